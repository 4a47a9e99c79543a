import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientMessages } from './builders.js';
import { connect } from './connect.js';
import { ConnectError, InvalidUrlError, UnknownCodecError, WireOptionError } from './errors.js';
import { freePort, startServer } from './loopback.testutil.js';
import { WireServer } from './server.js';

const cleanups: Array<() => Promise<unknown> | undefined> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function expectConnectError(promise: Promise<unknown>): Promise<ConnectError> {
  const err = await promise.then(
    () => new Error('connected, but should not have'),
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConnectError);
  return err as ConnectError;
}

describe('connect: retry until the connect timeout', () => {
  it('connects to a bot that starts listening only after the first attempts failed', async () => {
    const port = await freePort();
    const started = performance.now();
    const connecting = connect(`ws://127.0.0.1:${port}`, {
      codec: 'pipecat-eval',
      connectTimeoutMs: 5000,
      retryIntervalMs: 50,
    });
    await new Promise((r) => setTimeout(r, 300));
    const server = await WireServer.listen({
      codec: 'pipecat-eval',
      port,
      onConnection: (p) => p.connection.send({ type: 'bot-llm-started' }),
    });
    cleanups.push(() => server.close());
    const connection = await connecting;
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    expect(await connection.receive()).toMatchObject({ kind: 'rtvi', message: { type: 'bot-llm-started' } });
    await connection.close();
  });

  it('nothing listening: a ConnectError when the timeout expires, not before and not much after', async () => {
    const port = await freePort();
    const started = performance.now();
    const err = await expectConnectError(
      connect(`ws://127.0.0.1:${port}`, { codec: 'protobuf', connectTimeoutMs: 600, retryIntervalMs: 50 }),
    );
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(590);
    expect(elapsed).toBeLessThan(600 + 250);
    expect(err.attempts).toBeGreaterThanOrEqual(3);
    expect(err.lastCause).toContain('ECONNREFUSED');
    expect(err.timeoutMs).toBe(600);
    expect(err.elapsedMs).toBeGreaterThanOrEqual(590);
    expect(err.message).toMatch(
      new RegExp(
        `^could not connect to ws://127\\.0\\.0\\.1:${port} within 600 ms \\(\\d+ attempts\\): .*ECONNREFUSED`,
      ),
    );
  });

  it('a server that accepts TCP but never answers the handshake: ConnectError at the timeout', async () => {
    const sockets: Socket[] = [];
    const tcp = createTcpServer((s) => sockets.push(s));
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => tcp.close(resolve));
    });
    const port = (tcp.address() as { port: number }).port;
    const started = performance.now();
    const err = await expectConnectError(
      connect(`ws://127.0.0.1:${port}`, { codec: 'pipecat-eval', connectTimeoutMs: 400 }),
    );
    expect(performance.now() - started).toBeLessThan(400 + 250);
    expect(err.attempts).toBe(1);
    expect(err.lastCause).toBe('no answer to the opening handshake');
  });

  it('an HTTP server that is not a WebSocket endpoint: the cause names its status', async () => {
    const http = createHttpServer((_req, res) => res.writeHead(404).end('not here'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(resolve)));
    const port = (http.address() as { port: number }).port;
    const err = await expectConnectError(
      connect(`ws://127.0.0.1:${port}/ws`, { codec: 'pipecat-eval', connectTimeoutMs: 300, retryIntervalMs: 50 }),
    );
    expect(err.lastCause).toBe('Unexpected server response: 404');
  });

  it('aborting while connecting rejects at once with the signal’s reason', async () => {
    const port = await freePort();
    const ac = new AbortController();
    const started = performance.now();
    setTimeout(() => ac.abort(new Error('run cancelled')), 100);
    await expect(
      connect(`ws://127.0.0.1:${port}`, { codec: 'pipecat-eval', connectTimeoutMs: 10_000, signal: ac.signal }),
    ).rejects.toThrow('run cancelled');
    // At once: far inside the 10 s connect budget (the margin is a timer delayed on a loaded machine).
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('bad arguments fail at once with usage errors, without retrying', async () => {
    const started = performance.now();
    await expect(connect('http://127.0.0.1:1', { codec: 'pipecat-eval' })).rejects.toThrow(InvalidUrlError);
    await expect(connect('ws://127.0.0.1:1', { codec: 'pipecat-eval', connectTimeoutMs: -5 })).rejects.toThrow(
      WireOptionError,
    );
    await expect(connect('ws://127.0.0.1:1', { codec: 'pipecat-eval', maxQueuedItems: 0 })).rejects.toThrow(
      'maxQueuedItems',
    );
    await expect(connect('ws://127.0.0.1:1', { codec: 'json' as 'protobuf' })).rejects.toThrow(UnknownCodecError);
    // No retries: retrying would go on until the default connect timeout (seconds).
    expect(performance.now() - started).toBeLessThan(1000);
  });
});

describe('connect: the first frames are never lost', () => {
  it('a bot that speaks the instant the client connects is heard in full', async () => {
    const { server } = await startServer('protobuf', {
      onConnection: (peer) => {
        for (let i = 0; i < 50; i++) peer.connection.send({ type: 'bot-llm-text', data: { text: String(i) } });
      },
    });
    cleanups.push(() => server.close());
    const connection = await connect(server.url(), { codec: 'protobuf' });
    const texts: string[] = [];
    for (let i = 0; i < 50; i++) {
      const item = await connection.receive();
      if (item?.kind === 'rtvi' && item.message.type === 'bot-llm-text') texts.push(item.message.data.text);
    }
    expect(texts).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    await connection.close();
  });

  it('the harness handshake goes through: client-ready in, bot-ready out', async () => {
    const { server, nextPeer } = await startServer('pipecat-eval');
    cleanups.push(() => server.close());
    const connection = await connect(server.url({ skipTts: true }), { codec: 'pipecat-eval' });
    const ids = new ClientMessages();
    connection.send(ids.clientReady({ library: 'earshot' }));
    const peer = await nextPeer();
    const ready = await peer.connection.receive();
    expect(ready).toMatchObject({
      kind: 'rtvi',
      message: { type: 'client-ready', id: '1', data: { version: '2.1.0', about: { library: 'earshot' } } },
    });
    peer.connection.send({ type: 'bot-ready', id: '1', data: { version: '2.1.0' } });
    expect(await connection.receive()).toMatchObject({ kind: 'rtvi', message: { type: 'bot-ready', id: '1' } });
    await connection.close();
  });
});
