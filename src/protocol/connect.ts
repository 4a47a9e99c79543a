/**
 * The harness side of the wire: connect to a bot, retrying until a connect
 * timeout. Retrying is also how earshot waits for a bot it has just started:
 * the port refuses connections until the bot listens.
 */
import WebSocket from 'ws';
import { sleep } from '../core/abort.js';
import { monotonicClock } from '../core/clock.js';
import type { ClientCodec, CodecName } from './codec.js';
import { getCodec } from './codecs.js';
import { type ConnectionOptions, positiveOption, validateConnectionOptions, WireConnection } from './connection.js';
import { ConnectError, InvalidUrlError } from './errors.js';
import { parseBotUrl } from './eval-url.js';
import type { ServerInbound } from './parse.js';
import type { ClientMessage } from './rtvi.js';
import type { SocketLike, SocketOpener } from './socket-like.js';

export type ClientConnection = WireConnection<ClientMessage, ServerInbound>;

export interface ConnectOptions extends ConnectionOptions {
  codec: CodecName | ClientCodec;
  /** Total time for all attempts (default 10 000 ms); then a ConnectError. */
  connectTimeoutMs?: number;
  /** Pause between a failed attempt and the next (default 250 ms). */
  retryIntervalMs?: number;
  /** Extra HTTP headers on the upgrade request (e.g. authorization for a hosted bot). */
  headers?: Record<string, string>;
  /** Makes the socket (default: a `ws` WebSocket on this thread); the pacer thread passes one that lives there. */
  openSocket?: SocketOpener;
}

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const DEFAULT_RETRY_INTERVAL_MS = 250;

/**
 * Opens a connection to `url` (ws:// or wss://; add eval flags with
 * `buildEvalUrl`). Rejects with a ConnectError once `connectTimeoutMs` has
 * passed without success, with the signal's reason if it aborts first, and
 * with an InvalidUrlError / WireOptionError for bad arguments.
 */
export async function connect(url: string, options: ConnectOptions): Promise<ClientConnection> {
  parseBotUrl(url);
  const timeoutMs = positiveOption('connectTimeoutMs', options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS);
  const retryMs = positiveOption('retryIntervalMs', options.retryIntervalMs, DEFAULT_RETRY_INTERVAL_MS);
  const { maxPayloadBytes: maxPayload } = validateConnectionOptions(options);
  const codec = typeof options.codec === 'string' ? getCodec(options.codec).client() : options.codec;
  const clock = options.clock ?? monotonicClock;
  const { signal } = options;
  signal?.throwIfAborted();

  const started = clock.now();
  const budget = new AbortController();
  const timer = setTimeout(() => budget.abort(), timeoutMs);
  const onAbort = (): void => budget.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  let attempts = 0;
  let lastError: unknown;
  try {
    for (;;) {
      attempts++;
      try {
        return await openOnce(
          url,
          { maxPayload, headers: options.headers },
          options.openSocket ?? openWs,
          budget.signal,
          (socket) => new WireConnection(socket, codec, options),
        );
      } catch (err) {
        if (err instanceof InvalidUrlError) throw err;
        // An attempt cut short by the deadline knows less than one that failed on its own.
        if (!(err instanceof BudgetSpent)) lastError = err;
        else lastError = err.failure ?? lastError ?? new Error('no answer to the opening handshake');
        if (budget.signal.aborted) break;
      }
      try {
        await sleep(retryMs, budget.signal);
      } catch {
        break;
      }
    }
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
  signal?.throwIfAborted();
  throw new ConnectError({
    url,
    attempts,
    elapsedMs: clock.now() - started,
    timeoutMs,
    lastCause: describeError(lastError),
    cause: lastError,
  });
}

/** The budget ran out while an attempt was still in flight; `failure` is what that attempt knew. */
class BudgetSpent extends Error {
  constructor(readonly failure: unknown) {
    super('connect timeout reached during an attempt');
  }
}

/** Compression off: it costs CPU at audio rates and blurs arrival times; Pipecat does not need it. */
export const openWs: SocketOpener = (url, options) =>
  new WebSocket(url, { maxPayload: options.maxPayload, perMessageDeflate: false, headers: options.headers });

function openOnce(
  url: string,
  wsOptions: { maxPayload: number; headers?: Record<string, string> },
  open: SocketOpener,
  budget: AbortSignal,
  onOpen: (socket: SocketLike) => WireConnection<ClientMessage, ServerInbound>,
): Promise<ClientConnection> {
  return new Promise((resolve, reject) => {
    let socket: SocketLike;
    try {
      socket = open(url, wsOptions);
    } catch (err) {
      reject(new InvalidUrlError(url, describeError(err)));
      return;
    }
    let failure: unknown;
    const onError = (err: Error): void => {
      failure ??= err;
    };
    const onClose = (): void => {
      budget.removeEventListener('abort', onBudget);
      reject(failure ?? new Error('connection closed during the opening handshake'));
    };
    const onBudget = (): void => {
      socket.off('close', onClose);
      socket.terminate();
      reject(new BudgetSpent(failure));
    };
    socket.on('error', onError);
    socket.once('close', onClose);
    socket.once('open', () => {
      budget.removeEventListener('abort', onBudget);
      socket.off('close', onClose);
      // Listeners are attached here, synchronously, before any frame can be read.
      try {
        resolve(onOpen(socket));
      } catch (err) {
        socket.terminate();
        reject(err);
      }
      socket.off('error', onError);
    });
    budget.addEventListener('abort', onBudget, { once: true });
  });
}

export function describeError(err: unknown): string {
  if (err instanceof AggregateError && !err.message) {
    // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) reports an empty AggregateError.
    return err.errors.map(describeError).join('; ') || 'connection failed';
  }
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}
