import { describe, expect, it } from 'vitest';
import { ClientMessages, connect } from '../../../src/protocol/index.js';
import { RefbotOptionError } from '../../../src/refbot/errors.js';
import { FaultSpecError } from '../../../src/refbot/faults/switches.js';
import { startRefbot } from '../../../src/refbot/server.js';

/** `startRefbot`: the bot in this process, as `earshot demo` and `calibrate` use it. */
describe('startRefbot', () => {
  it('listens on a free port, serves a client, and stops on close() with every connection closed (1001)', async () => {
    const bot = await startRefbot({ port: 0 });
    expect(bot.url).toBe(`ws://127.0.0.1:${bot.port}`);
    expect(bot.port).toBeGreaterThan(0);
    expect(bot.wire).toBe('pipecat-eval');
    const conn = await connect(`${bot.url}/?skip_tts=true`, { codec: 'pipecat-eval' });
    conn.send(new ClientMessages().clientReady({ library: 'test' }));
    const first = await conn.receive();
    expect(first?.kind === 'rtvi' && first.message.type).toBe('bot-ready');
    expect(await bot.close()).toEqual({ reason: 'closed', exitCode: 0 });
    expect((await conn.closed).code).toBe(1001);
    expect(await bot.closed).toEqual({ reason: 'closed', exitCode: 0 });
  });

  it('stops when a client sends eval-cancel, saying so', async () => {
    const bot = await startRefbot({ wire: 'protobuf' });
    const conn = await connect(bot.url, { codec: 'protobuf' });
    conn.send(new ClientMessages().evalCancel());
    expect(await bot.closed).toEqual({ reason: 'eval-cancel', exitCode: 0 });
  });

  it('a crash fault ends it with exit code 70 and drops the sockets without a close frame', async () => {
    const bot = await startRefbot({ faults: ['crash-after-turn=0'] });
    const conn = await connect(`${bot.url}/?skip_tts=true`, { codec: 'pipecat-eval' });
    const messages = new ClientMessages();
    conn.send(messages.clientReady({ library: 'test' }));
    conn.send(messages.sendText('hello'));
    expect((await conn.closed).code).toBe(1006);
    expect(await bot.closed).toEqual({ reason: 'crash', exitCode: 70 });
  });

  it('aborting its signal stops it', async () => {
    const controller = new AbortController();
    const bot = await startRefbot({ signal: controller.signal });
    controller.abort();
    expect(await bot.closed).toEqual({ reason: 'closed', exitCode: 0 });
  });

  it.each([
    [{ voice: 'hal9000' }, RefbotOptionError, /voice: unknown Flite voice "hal9000" \(known: slt/],
    [{ sampleRate: 123 }, RefbotOptionError, /sampleRate: expected an integer from 8000 to 48000/],
    [{ responseDelayMs: -5 }, RefbotOptionError, /responseDelayMs: expected a number of ms >= 0/],
    [{ faults: ['slow'] }, FaultSpecError, /--fault slow: slow needs =N/],
    [{ brain: '/no/such/brain.yaml' }, Error, /cannot read the brain file/],
  ])('refuses bad options before listening: %j', async (options, type, message) => {
    const err = await startRefbot(options as Parameters<typeof startRefbot>[0]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(type);
    expect((err as Error).message).toMatch(message);
  });
});
