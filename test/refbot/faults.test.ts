import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ConnectError, parseServerMessage } from '../../src/protocol/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { Client, readTruth } from './support.js';

/**
 * Every fault switch of `earshot refbot --fault`, on a real subprocess: what
 * a client sees, and that it is the same every time.
 */
const dir = mkdtempSync(join(tmpdir(), 'earshot-refbot-faults-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const bots: RefbotProcess[] = [];
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.stop()));
});
async function bot(...args: string[]): Promise<RefbotProcess> {
  const b = await startRefbotProcess(args);
  bots.push(b);
  return b;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Every frame of one connection, raw, until `quietMs` passes with none (or `maxMs`). */
async function rawFrames(
  url: string,
  send: (ws: WebSocket) => void,
  quietMs = 400,
  maxMs = 5000,
): Promise<Array<string | Buffer>> {
  const ws = new WebSocket(url, { maxPayload: 64 * 1024 * 1024 });
  const frames: Array<string | Buffer> = [];
  let last = performance.now();
  ws.on('message', (data, isBinary) => {
    frames.push(isBinary ? (data as Buffer) : data.toString());
    last = performance.now();
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  send(ws);
  const started = performance.now();
  while (performance.now() - last < quietMs && performance.now() - started < maxMs) await sleep(50);
  ws.close();
  return frames;
}

const clientReady = JSON.stringify({
  label: 'rtvi-ai',
  type: 'client-ready',
  id: '1',
  data: { version: '2.1.0', about: { library: 'raw' } },
});
const sendText = (text: string, id = '2'): string =>
  JSON.stringify({
    label: 'rtvi-ai',
    type: 'send-text',
    id,
    data: { content: text, options: { run_immediately: true } },
  });

describe('connection faults', () => {
  it('refuse: every upgrade is answered 503, so no connection ever opens', async () => {
    const b = await bot('--fault', 'refuse');
    const err = await Client.open(b.url, { connectTimeoutMs: 1000 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConnectError);
    expect((err as ConnectError).lastCause).toMatch(/503/);
    expect(b.child.exitCode).toBeNull();
  });

  it('no-ready: the connection opens but bot-ready (or anything else) never comes; eval-cancel still stops it', async () => {
    const b = await bot('--fault', 'no-ready');
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    client.connection.send(client.messages.clientReady({ library: 'test' }));
    client.connection.send(client.messages.sendText('hello'));
    client.connection.sendRaw('not json');
    await sleep(1500);
    expect(client.seen).toEqual([]);
    expect(client.connection.isOpen).toBe(true);
    client.connection.send(client.messages.evalCancel());
    expect(await b.exited).toEqual({ code: 0, signal: null });
  });
});

describe('mid-conversation faults', () => {
  it('crash-after-turn=1: answers turn 1; in turn 2 the process dies mid-response, dropping the socket (1006), exit 70', async () => {
    const truthLog = join(dir, 'crash.jsonl');
    const b = await bot('--fault', 'crash-after-turn=1', '--truth-log', truthLog);
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    await client.waitForType('bot-llm-stopped', 5000);
    client.connection.send(client.messages.sendText('What is the capital of France?'));
    await client.waitForType('bot-llm-stopped', 5000, 0, 2);
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('What is the capital of Japan?'));
    const closed = await client.connection.closed;
    expect(closed.code).toBe(1006);
    expect(client.types(from)).toEqual(['user-llm-text', 'bot-llm-started', 'metrics', 'bot-llm-text']);
    expect(await b.exited).toEqual({ code: 70, signal: null });
    const truth = readTruth(truthLog);
    expect(truth.find((t) => t.event === 'fault')).toMatchObject({
      fault: 'crash-after-turn',
      action: 'crashed in turn 2',
    });
    expect(truth[truth.length - 1]).toMatchObject({ event: 'exit', reason: 'crash', exit_code: 70 });
  });

  it('hang-after-turn=1: answers turn 1, then never sends anything again, socket left open', async () => {
    const b = await bot('--fault', 'hang-after-turn=1');
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    client.connection.send(client.messages.sendText('Hello'));
    await client.waitForType('bot-llm-stopped', 5000, 0, 2);
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('What is the capital of France?'));
    client.connection.send(client.messages.dtmf('1#'));
    await sleep(1500);
    expect(client.types(from)).toEqual([]);
    expect(client.connection.isOpen).toBe(true);
    expect(b.child.exitCode).toBeNull();
    await client.close();
  });

  it('garbage: every reply is replaced by 3 non-JSON text frames and 3 random binary frames, the same bytes every run', async () => {
    // (what precedes a reply, such as user-llm-text, is sent as usual)
    const runs: Array<Array<string | Buffer>> = [];
    for (let i = 0; i < 2; i++) {
      const b = await bot('--fault', 'garbage');
      runs.push(
        await rawFrames(`${b.url}/?skip_tts=true`, (ws) => {
          ws.send(clientReady);
          setTimeout(() => ws.send(sendText('hello')), 300);
        }),
      );
    }
    const [frames, again] = runs;
    expect(JSON.parse(frames[0] as string)).toMatchObject({ type: 'bot-ready' });
    const replies = (all: Array<string | Buffer>): Array<string | Buffer> =>
      all.slice(1).filter((f) => !(typeof f === 'string' && f.includes('"user-llm-text"')));
    const rest = replies(frames);
    expect(rest).toHaveLength(12); // greeting + one turn
    expect(rest.filter((f) => typeof f === 'string')).toHaveLength(6);
    expect(rest.filter((f) => Buffer.isBuffer(f))).toHaveLength(6);
    for (const f of rest) expect(parseServerMessage(typeof f === 'string' ? f : new Uint8Array(f)).ok).toBe(false);
    expect(replies(again)).toEqual(rest);
  });

  it('malformed-rtvi: every reply is replaced by valid JSON of the wrong shapes and types', async () => {
    const b = await bot('--fault', 'malformed-rtvi');
    const frames = await rawFrames(`${b.url}/?skip_tts=true`, (ws) => ws.send(clientReady));
    const rest = frames.slice(1);
    expect(rest.length).toBeGreaterThanOrEqual(10);
    for (const f of rest) {
      expect(typeof f).toBe('string');
      expect(() => JSON.parse(f as string) as unknown).not.toThrow();
      expect(parseServerMessage(f as string).ok, f as string).toBe(false);
    }
  });

  it('huge-frame=BYTES: one frame of exactly that size right after bot-ready; a client with a smaller limit refuses it (1009)', async () => {
    const b = await bot('--fault', 'huge-frame=200000');
    const frames = await rawFrames(`${b.url}/?skip_tts=true`, (ws) => ws.send(clientReady));
    expect(Buffer.byteLength(frames[1] as string)).toBe(200_000);
    expect(JSON.parse(frames[1] as string)).toMatchObject({
      label: 'rtvi-ai',
      type: 'server-message',
      data: { fault: 'huge-frame' },
    });
    expect(frames.slice(2).map((f) => (JSON.parse(f as string) as { type: string }).type)).toContain('bot-llm-stopped');

    const small = await Client.open(b.url, { flags: { skipTts: true }, maxPayloadBytes: 100_000 });
    small.connection.send(small.messages.clientReady({ library: 'test' }));
    const closed = await small.connection.closed;
    expect(closed.code).toBe(1009);
    await small.done;
    expect(small.invalid.join()).toMatch(/larger than maxPayloadBytes/);
  });

  it('flood=2000: a steady storm of valid, irrelevant RTVI messages, while the bot still answers', async () => {
    const b = await bot('--fault', 'flood=2000');
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    const t0 = performance.now();
    await sleep(1000);
    const elapsed = performance.now() - t0;
    const noise = client.seen.filter(
      (s) => s.message.type === 'server-message' || s.message.type === 'bot-audio-level',
    ).length;
    expect(noise).toBeGreaterThan(0.6 * 2 * elapsed);
    expect(noise).toBeLessThan(1.4 * 2 * elapsed + 100);
    expect(client.invalid).toEqual([]);
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('What is the capital of France?'));
    const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
    expect(client.replyText(from, stopped)).toBe('The capital of France is Paris.');
    await client.close();
  });

  it('slow=MS: every reply, the greeting included, starts that much later', async () => {
    const b = await bot('--fault', 'slow=700');
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    const started = await client.waitForType('bot-llm-started', 5000);
    expect(client.seen[started].at - client.seen[0].at).toBeGreaterThanOrEqual(690);
    await client.waitForType('bot-llm-stopped', 5000);
    const sent = performance.now();
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('Hello'));
    const next = await client.waitForType('bot-llm-started', 5000, from);
    expect(client.seen[next].at - sent).toBeGreaterThanOrEqual(690);
    await client.close();
  });
});

describe('audio faults', () => {
  it('audio-burst: a minute of bot audio arrives at once, whatever the flags', async () => {
    const b = await bot('--fault', 'audio-burst');
    const client = await Client.open(b.url); // no capture_bot_audio: sent anyway
    const t0 = performance.now();
    await client.handshake();
    await client.waitForType('bot-stopped-speaking', 10_000);
    await sleep(300);
    const samples = client.audio.reduce((n, f) => n + f.pcm.length, 0);
    expect(samples).toBe(60 * 16000);
    const span = client.audio[client.audio.length - 1].at - client.audio[0].at;
    expect(span).toBeLessThan(3000);
    expect(performance.now() - t0).toBeLessThan(10_000);
    await client.close();
  });

  it('disconnect-mid-audio: the first answered turn closes the socket (1011) a second into its audio', async () => {
    const b = await bot('--fault', 'disconnect-mid-audio');
    const client = await Client.open(b.url, { flags: { captureBotAudio: true } });
    await client.handshake();
    // The greeting is not affected (it is cut here only to save time).
    await client.waitForType('bot-started-speaking', 10_000);
    client.connection.send(client.messages.sendText('Tell me a story.'));
    const from = await client.waitForType('bot-llm-started', 5000, await client.waitForType('user-llm-text', 5000));
    const closed = await client.connection.closed;
    expect(closed.code).toBe(1011);
    expect(closed.reason).toBe('refbot fault: disconnect-mid-audio');
    const speaking = client.seen.findIndex((x, i) => i > from && x.message.type === 'bot-started-speaking');
    expect(speaking).toBeGreaterThan(from);
    expect(client.types(speaking)).not.toContain('bot-stopped-speaking');
    const sent = client.audio.filter((f) => f.at >= client.seen[speaking].at).reduce((n, f) => n + f.pcm.length, 0);
    expect(sent).toBeGreaterThanOrEqual(16000);
    expect(sent).toBeLessThan(16000 + 3 * 320);
    // Only that connection: the bot still serves.
    const next = await Client.open(b.url, { flags: { skipTts: true } });
    await next.handshake();
    await next.close();
  });

  it('disconnect-mid-audio without speech (skip_tts): closes halfway through the streamed text', async () => {
    const b = await bot('--fault', 'disconnect-mid-audio');
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    await client.waitForType('bot-llm-stopped', 5000);
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('What is the capital of France?'));
    expect((await client.connection.closed).code).toBe(1011);
    const chunks = client.types(from).filter((t) => t === 'bot-llm-text').length;
    expect(chunks).toBe(3); // half of "The capital of France is Paris." (6 words)
    expect(client.types(from)).not.toContain('bot-llm-stopped');
  });
});

describe('known delays', () => {
  it('--response-delay-ms delays each answer to a user turn (not the greeting) by that much', async () => {
    const truthLog = join(dir, 'delay.jsonl');
    const b = await bot('--response-delay-ms', '600', '--truth-log', truthLog);
    const client = await Client.open(b.url, { flags: { skipTts: true } });
    await client.handshake();
    const greeting = await client.waitForType('bot-llm-started', 5000);
    expect(client.seen[greeting].at - client.seen[0].at).toBeLessThan(300);
    await client.waitForType('bot-llm-stopped', 5000);
    const from = client.seen.length;
    client.connection.send(client.messages.sendText('Hello'));
    const started = await client.waitForType('bot-llm-started', 5000, from);
    expect(client.seen[started].at - client.seen[from].at).toBeGreaterThanOrEqual(595);
    expect(client.seen[started].at - client.seen[from].at).toBeLessThan(900);
    await client.close();
    expect(readTruth(truthLog)[0]).toMatchObject({ event: 'listening', response_delay_ms: 600, faults: [] });
  });
});
