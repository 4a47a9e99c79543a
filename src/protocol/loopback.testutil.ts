/** Real sockets on 127.0.0.1 for the connection and server tests. */
import { createServer } from 'node:net';
import type { CodecName } from './codec.js';
import { type ServeOptions, WireServer, type WirePeer } from './server.js';

export interface TestServer {
  server: WireServer;
  /** Resolves with the next client to connect. */
  nextPeer(): Promise<WirePeer>;
}

export async function startServer(codec: CodecName, options: Partial<ServeOptions> = {}): Promise<TestServer> {
  const peers: WirePeer[] = [];
  const waiting: Array<(p: WirePeer) => void> = [];
  const server = await WireServer.listen({
    codec,
    ...options,
    onConnection: (peer) => {
      options.onConnection?.(peer);
      const w = waiting.shift();
      if (w) w(peer);
      else peers.push(peer);
    },
  });
  return {
    server,
    nextPeer: () => {
      const p = peers.shift();
      return p ? Promise.resolve(p) : new Promise((resolve) => waiting.push(resolve));
    },
  };
}

/** A port nothing listens on (bound, read, released). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  const address = srv.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => srv.close(() => resolve()));
  return port;
}

export async function waitFor(condition: () => boolean, timeoutMs = 3000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
