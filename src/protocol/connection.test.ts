import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { CODEC_NAMES } from './codec.js';
import { type ClientConnection, connect } from './connect.js';
import type { Received } from './connection.js';
import { startServer, type TestServer, waitFor } from './loopback.testutil.js';
import type { ServerInbound } from './parse.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function pairUp(
  codec: (typeof CODEC_NAMES)[number],
  clientOptions: Parameters<typeof connect>[1] extends infer O ? Partial<O> : never = {},
  serverOptions = {},
) {
  const test: TestServer = await startServer(codec, serverOptions);
  cleanups.push(() => test.server.close());
  const client = await connect(test.server.url(), { codec, ...clientOptions });
  cleanups.push(() => client.close());
  const peer = await test.nextPeer();
  return { client, peer: peer.connection };
}

function kinds(items: Array<Received<ServerInbound>>): string[] {
  return items.map((i) =>
    i.kind === 'rtvi' ? i.message.type : i.kind === 'invalid' ? `invalid:${i.violation.code}` : i.kind,
  );
}

async function receiveAll(connection: ClientConnection): Promise<Array<Received<ServerInbound>>> {
  const items: Array<Received<ServerInbound>> = [];
  for await (const item of connection) items.push(item);
  return items;
}

describe.each(CODEC_NAMES)('WireConnection over %s', (codec) => {
  it('carries RTVI messages and audio both ways', async () => {
    const { client, peer } = await pairUp(codec);
    const pcm = Int16Array.from({ length: 320 }, (_, i) => i - 160);
    expect(
      client.send({ type: 'send-text', id: '1', data: { content: 'hi', options: { run_immediately: true } } }),
    ).toBe(true);
    expect(client.sendAudio(pcm, 16000)).toBe(true);
    expect(await peer.receive()).toMatchObject({
      kind: 'rtvi',
      message: { type: 'send-text', data: { content: 'hi' } },
    });
    expect(await peer.receive()).toMatchObject({ kind: 'audio', pcm, sampleRate: 16000, numChannels: 1 });
    peer.send({ type: 'bot-tts-text', data: { text: 'hello' } });
    peer.sendAudio(pcm, 24000);
    expect(await client.receive()).toMatchObject({ kind: 'rtvi', message: { type: 'bot-tts-text' } });
    expect(await client.receive()).toMatchObject({ kind: 'audio', pcm, sampleRate: 24000 });
  });

  it('stamps each item with its arrival time on the injected clock and its size on the wire', async () => {
    const clock = new ManualClock(5000);
    const { client, peer } = await pairUp(codec, { clock });
    expect(client.openedAt).toBe(5000);
    clock.set(7250.5);
    peer.send({ type: 'bot-llm-started' });
    const item = await client.receive();
    expect(item?.at).toBe(7250.5);
    expect(item?.bytes).toBe(codec === 'pipecat-eval' ? 44 : 48);
    expect(client.stats()).toMatchObject({ framesReceived: 1, bytesReceived: item?.bytes });
  });

  it('an oversized frame becomes a violation, then the connection closes with 1009', async () => {
    const { client, peer } = await pairUp(codec, { maxPayloadBytes: 2048 });
    peer.send({ type: 'bot-llm-started' });
    peer.send({ type: 'bot-llm-text', data: { text: 'x'.repeat(10_000) } });
    peer.send({ type: 'bot-llm-stopped' });
    const items = await receiveAll(client);
    expect(kinds(items)).toEqual(['bot-llm-started', 'invalid:oversized']);
    const v = items[1].kind === 'invalid' ? items[1].violation : undefined;
    expect(v?.reason).toBe('frame larger than maxPayloadBytes (2048); the connection is closed with 1009');
    expect(await client.closed).toMatchObject({ code: 1009, byPeer: false, error: 'Max payload size exceeded' });
    expect(await peer.closed).toMatchObject({ code: 1009, byPeer: true });
  });

  it('the bot side enforces its own limit on what the client sends', async () => {
    const { client, peer } = await pairUp(codec, {}, { maxPayloadBytes: 1024 });
    client.sendAudio(new Int16Array(16000), 16000);
    expect(await peer.receive()).toMatchObject({ kind: 'invalid', violation: { code: 'oversized' } });
    expect(await client.closed).toMatchObject({ code: 1009, byPeer: true });
  });

  it('a frame of the wrong kind is a violation and the connection stays open', async () => {
    const { client, peer } = await pairUp(codec);
    peer.sendRaw(codec === 'pipecat-eval' ? new Uint8Array([1, 2, 3]) : 'hello');
    peer.send({ type: 'bot-ready', data: { version: '2.1.0' } });
    expect(kinds([(await client.receive())!, (await client.receive())!])).toEqual([
      'invalid:wrong_frame_type',
      'bot-ready',
    ]);
    expect(client.isOpen).toBe(true);
    expect(client.stats().violations).toBe(1);
  });

  it('a flood beyond the queue bound is dropped and reported as one overflow item', async () => {
    const { client, peer } = await pairUp(codec, { maxQueuedItems: 10 });
    for (let i = 0; i < 200; i++) peer.send({ type: 'bot-llm-text', data: { text: String(i) } });
    peer.send({ type: 'bot-llm-stopped' });
    await waitFor(() => client.stats().framesReceived === 201);
    expect(client.stats()).toMatchObject({ queued: 10, dropped: 191 });
    const items = client.drain();
    expect(items).toHaveLength(11);
    expect(items[10]).toMatchObject({ kind: 'overflow', dropped: 191 });
  });
});

describe('WireConnection and WebSocket-level faults', () => {
  it('a text frame that is not UTF-8 is a bad_frame violation and the connection closes with 1007', async () => {
    const { client, peer } = await pairUp('pipecat-eval');
    const socket = (peer as unknown as { socket: { send(data: Buffer, options: { binary: boolean }): void } }).socket;
    socket.send(Buffer.from([0x7b, 0xc3, 0x28, 0x7d]), { binary: false });
    const item = await client.receive();
    expect(item).toMatchObject({
      kind: 'invalid',
      violation: { code: 'bad_frame', reason: expect.stringContaining('WS_ERR_INVALID_UTF8') },
    });
    expect(await client.closed).toMatchObject({ code: 1007, byPeer: false });
  });
});

describe('WireConnection closing', () => {
  it('the peer closes: code and reason arrive, byPeer is true, the stream ends, sends return false', async () => {
    const { client, peer } = await pairUp('pipecat-eval');
    peer.send({ type: 'bot-stopped-speaking' });
    await peer.close(4000, 'scenario over');
    expect(await client.closed).toMatchObject({ code: 4000, reason: 'scenario over', byPeer: true });
    expect(kinds(await receiveAll(client))).toEqual(['bot-stopped-speaking']);
    expect(await client.receive()).toBeNull();
    expect(client.send({ type: 'disconnect-bot', id: '9' })).toBe(false);
    expect(client.isOpen).toBe(false);
  });

  it('this side closes: byPeer is false here and true at the bot', async () => {
    const { client, peer } = await pairUp('protobuf');
    expect(await client.close()).toMatchObject({ code: 1000, byPeer: false });
    expect(await peer.closed).toMatchObject({ code: 1000, byPeer: true });
    expect(await client.close()).toMatchObject({ code: 1000 }); // idempotent
  });

  it('the link drops without a close frame: 1006, by the peer', async () => {
    const { client, peer } = await pairUp('protobuf');
    await peer.terminate();
    expect(await client.closed).toMatchObject({ code: 1006, byPeer: true });
  });

  it('aborting the signal after connecting closes the connection with 1000 "aborted"', async () => {
    const ac = new AbortController();
    const { client, peer } = await pairUp('pipecat-eval', { signal: ac.signal });
    ac.abort();
    expect(await client.closed).toMatchObject({ code: 1000, reason: 'aborted', byPeer: false });
    expect(await peer.closed).toMatchObject({ code: 1000, reason: 'aborted', byPeer: true });
  });

  it('a waiting receive can be abandoned with its own signal without closing the connection', async () => {
    const { client, peer } = await pairUp('pipecat-eval');
    const ac = new AbortController();
    const waiting = client.receive(ac.signal);
    ac.abort(new Error('turn deadline'));
    await expect(waiting).rejects.toThrow('turn deadline');
    peer.send({ type: 'bot-llm-started' });
    expect(await client.receive()).toMatchObject({ kind: 'rtvi', message: { type: 'bot-llm-started' } });
  });

  it('close() forces the link down when the peer never answers the close handshake', async () => {
    const { client, peer } = await pairUp('pipecat-eval', { closeTimeoutMs: 150 }, { closeTimeoutMs: 150 });
    // The bot's event loop is busy: pause its socket so the close frame is never read.
    (peer as unknown as { socket: { pause(): void } }).socket.pause();
    const started = performance.now();
    const info = await client.close();
    expect(performance.now() - started).toBeLessThan(1000);
    expect(info).toMatchObject({ byPeer: false, code: 1006 });
  });
});
