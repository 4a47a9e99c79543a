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
    const bot = await startRefbot({ wire: 'pipecat-eval' });
    const conn = await connect(bot.url, { codec: 'pipecat-eval' });
    conn.send(new ClientMessages().evalCancel());
    expect(await bot.closed).toEqual({ reason: 'eval-cancel', exitCode: 0 });
  });

  it('on protobuf, ignores eval-cancel as a production transport does (only the eval serializer reads it)', async () => {
    const lines: string[] = [];
    const bot = await startRefbot({ wire: 'protobuf', log: (l) => lines.push(l) });
    const conn = await connect(bot.url, { codec: 'protobuf' });
    const messages = new ClientMessages();
    conn.send(messages.evalCancel());
    conn.send(messages.clientReady({ library: 'test' }));
    const first = await conn.receive();
    expect(first?.kind === 'rtvi' && first.message.type).toBe('bot-ready');
    expect(lines.some((l) => l.includes('"eval-cancel" ignored'))).toBe(true);
    expect(await bot.close()).toEqual({ reason: 'closed', exitCode: 0 });
  });

  it('ends on RTVI disconnect-bot, as a Pipecat bot ends its pipeline (EndWorkerFrame)', async () => {
    const bot = await startRefbot({ wire: 'protobuf' });
    const conn = await connect(bot.url, { codec: 'protobuf' });
    conn.send(new ClientMessages().disconnectBot());
    expect(await bot.closed).toEqual({ reason: 'disconnect-bot', exitCode: 0 });
  });

  it('answers append-to-context as Pipecat 1.x does: an error-response, the context untouched', async () => {
    const bot = await startRefbot({ wire: 'protobuf' });
    const conn = await connect(bot.url, { codec: 'protobuf' });
    const messages = new ClientMessages();
    conn.send(messages.clientReady({ library: 'test' }));
    const append = messages.appendToContext({ role: 'system', content: 'Be terse.' });
    conn.send(append);
    let reply: unknown;
    for (;;) {
      const item = await conn.receive();
      if (item === null) break;
      if (item.kind === 'rtvi' && item.message.type === 'error-response') {
        reply = item.message;
        break;
      }
    }
    expect(reply).toEqual({
      type: 'error-response',
      id: append.id,
      data: { error: 'Unsupported type append-to-context' },
    });
    await bot.close();
  });

  it('refuses --no-rtvi on the eval wire, which has no audio frames of its own', async () => {
    await expect(startRefbot({ noRtvi: true })).rejects.toThrow(RefbotOptionError);
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
