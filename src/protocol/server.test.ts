import { afterEach, describe, expect, it } from 'vitest';
import { connect } from './connect.js';
import { ConnectError, ListenError } from './errors.js';
import { evalServerCodec } from './eval-codec.js';
import { startServer } from './loopback.testutil.js';
import { WireServer } from './server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('WireServer', () => {
  it('listens on a free port of 127.0.0.1 and gives each client’s eval flags and request target', async () => {
    const { server, nextPeer } = await startServer('pipecat-eval');
    cleanups.push(() => server.close());
    expect(server.host).toBe('127.0.0.1');
    expect(server.port).toBeGreaterThan(0);
    const url = server.url({ skipTts: true, captureBotAudio: true, record: 'runs/a.wav' }, '/ws');
    expect(url).toBe(`ws://127.0.0.1:${server.port}/ws?skip_tts=true&capture_bot_audio=true&record=runs%2Fa.wav`);
    const client = await connect(url, { codec: 'pipecat-eval' });
    cleanups.push(() => client.close());
    const peer = await nextPeer();
    expect(peer.flags).toEqual({ skipTts: true, captureBotAudio: true, record: 'runs/a.wav' });
    expect(peer.target).toBe('/ws?skip_tts=true&capture_bot_audio=true&record=runs%2Fa.wav');
    expect(peer.remoteAddress).toBe('127.0.0.1');
    expect(peer.connection.codec).toMatchObject({ name: 'pipecat-eval', role: 'server' });
    expect(server.connectionCount).toBe(1);
  });

  it('serves several clients at once, each with its own connection', async () => {
    const { server, nextPeer } = await startServer('protobuf');
    cleanups.push(() => server.close());
    const a = await connect(server.url(), { codec: 'protobuf' });
    const b = await connect(server.url({ userAudio: true }), { codec: 'protobuf' });
    cleanups.push(
      () => a.close(),
      () => b.close(),
    );
    const [pa, pb] = [await nextPeer(), await nextPeer()];
    pa.connection.send({ type: 'bot-llm-text', data: { text: 'to a' } });
    pb.connection.send({ type: 'bot-llm-text', data: { text: 'to b' } });
    expect(await a.receive()).toMatchObject({ message: { data: { text: 'to a' } } });
    expect(await b.receive()).toMatchObject({ message: { data: { text: 'to b' } } });
    expect(pb.flags).toEqual({ userAudio: true });
  });

  it('takes a codec factory, one codec per connection', async () => {
    let made = 0;
    const { server } = await startServer('pipecat-eval', {
      codec: () => {
        made++;
        return evalServerCodec();
      },
    });
    cleanups.push(() => server.close());
    const a = await connect(server.url(), { codec: 'pipecat-eval' });
    const b = await connect(server.url(), { codec: 'pipecat-eval' });
    await Promise.all([a.close(), b.close()]);
    expect(made).toBe(2);
  });

  it('refuses a port already in use with a ListenError naming it', async () => {
    const { server } = await startServer('pipecat-eval');
    cleanups.push(() => server.close());
    const err = await WireServer.listen({ codec: 'pipecat-eval', port: server.port, onConnection: () => {} }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ListenError);
    expect((err as ListenError).message).toMatch(
      new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${server.port}: .*EADDRINUSE`),
    );
  });

  it('close() ends every connection with 1001 and stops listening', async () => {
    const { server, nextPeer } = await startServer('pipecat-eval');
    const client = await connect(server.url(), { codec: 'pipecat-eval' });
    await nextPeer();
    await server.close();
    expect(await client.closed).toMatchObject({ code: 1001, reason: 'server closing', byPeer: true });
    await expect(connect(server.url(), { codec: 'pipecat-eval', connectTimeoutMs: 200 })).rejects.toThrow(ConnectError);
    await server.close(); // idempotent
  });

  it('aborting its signal closes the server', async () => {
    const ac = new AbortController();
    const { server } = await startServer('protobuf', { signal: ac.signal });
    const client = await connect(server.url(), { codec: 'protobuf' });
    ac.abort();
    expect(await client.closed).toMatchObject({ code: 1001, byPeer: true });
  });
});
