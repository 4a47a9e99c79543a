/**
 * The bot side of the wire, for the reference bot: listen on host:port, and
 * hand each client over as a peer with its eval URL flags and a connection
 * speaking the server role of the codec.
 */
import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';
import { WebSocketServer } from 'ws';
import type { CodecName, ServerCodec } from './codec.js';
import { getCodec } from './codecs.js';
import { type ConnectionOptions, validateConnectionOptions, WireConnection } from './connection.js';
import { ListenError } from './errors.js';
import { buildEvalUrl, type EvalConnectFlags, parseEvalFlags } from './eval-url.js';
import type { ClientInbound } from './parse.js';
import type { ServerMessage } from './rtvi.js';

export type ServerConnection = WireConnection<ServerMessage, ClientInbound>;

export interface WirePeer {
  connection: ServerConnection;
  /** The eval flags of the client's connect URL (all absent for a plain client). */
  flags: EvalConnectFlags;
  /** The request target as sent (`/?skip_tts=true`). */
  target: string;
  remoteAddress: string;
}

export interface ServeOptions extends Omit<ConnectionOptions, 'signal'> {
  /** A codec name, or a factory for a codec per connection. */
  codec: CodecName | (() => ServerCodec);
  /** Default 127.0.0.1: a test bot has no business on other interfaces unless asked. */
  host?: string;
  /** 0 (default) picks a free port; read it back from `port`. */
  port?: number;
  /** Called synchronously for each new client, before any of its frames is read. */
  onConnection: (peer: WirePeer) => void;
  /** Aborting closes the server and every connection. */
  signal?: AbortSignal;
}

export class WireServer {
  readonly host: string;
  readonly port: number;
  private readonly wss: WebSocketServer;
  private readonly peers = new Set<ServerConnection>();
  private closing: Promise<void> | undefined;

  private constructor(wss: WebSocketServer, host: string, port: number) {
    this.wss = wss;
    this.host = host;
    this.port = port;
  }

  /** Listens and resolves once the port is bound; a ListenError when it cannot be. */
  static listen(options: ServeOptions): Promise<WireServer> {
    const limits = validateConnectionOptions(options);
    const makeCodec = typeof options.codec === 'string' ? getCodec(options.codec).server : options.codec;
    const host = options.host ?? '127.0.0.1';
    const requestedPort = options.port ?? 0;
    return new Promise((resolve, reject) => {
      const wss = new WebSocketServer({
        host,
        port: requestedPort,
        maxPayload: limits.maxPayloadBytes,
        perMessageDeflate: false,
      });
      wss.once('error', (err) => reject(new ListenError(host, requestedPort, err)));
      wss.once('listening', () => {
        const address = wss.address();
        const port = typeof address === 'object' && address ? address.port : requestedPort;
        const server = new WireServer(wss, host, port);
        // After listening, server errors are per-socket trouble ws already handles; keep them from crashing the bot.
        wss.on('error', () => {});
        wss.on('connection', (socket, request) => server.accept(socket, request, makeCodec(), options));
        options.signal?.addEventListener('abort', () => void server.close(), { once: true });
        resolve(server);
      });
    });
  }

  /** A URL a client can connect to, with eval flags if given. */
  url(flags: EvalConnectFlags = {}, path = '/'): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return buildEvalUrl(`ws://${host}:${this.port}${path}`, flags);
  }

  get connectionCount(): number {
    return this.peers.size;
  }

  /** Stops listening and closes every connection (1001, "server closing"). */
  close(): Promise<void> {
    this.closing ??= (async () => {
      const closes = [...this.peers].map((peer) => peer.close(1001, 'server closing'));
      await new Promise<void>((resolve) => this.wss.close(() => resolve()));
      await Promise.all(closes);
    })();
    return this.closing;
  }

  private accept(socket: WebSocket, request: IncomingMessage, codec: ServerCodec, options: ServeOptions): void {
    const connection: ServerConnection = new WireConnection(socket, codec, { ...options, signal: undefined });
    this.peers.add(connection);
    void connection.closed.then(() => this.peers.delete(connection));
    if (this.closing) {
      void connection.close(1001, 'server closing');
      return;
    }
    const target = request.url ?? '/';
    options.onConnection({
      connection,
      flags: parseEvalFlags(target),
      target,
      remoteAddress: request.socket.remoteAddress ?? '',
    });
  }
}
