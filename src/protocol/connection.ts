/**
 * One open WebSocket with a codec on it: typed sends, and a bounded stream of
 * decoded inbound items, each stamped with its arrival time on the run's Clock.
 * Used in both roles (the harness's connection to a bot, and the reference
 * bot's connection to a client).
 *
 * Nothing a peer sends can throw out of here: undecodable frames become
 * `invalid` items, an oversized frame (over `maxPayloadBytes`, refused by `ws`
 * before it is buffered) becomes an `oversized` violation followed by a close
 * with 1009, and a flood beyond the queue's bounds becomes an `overflow` item.
 */
import WebSocket from 'ws';
import { type Clock, monotonicClock } from '../core/clock.js';
import type { InboundItem, OutboundItem, WireCodec, WirePayload } from './codec.js';
import { WireOptionError } from './errors.js';
import { InboundQueue, type Overflow, type QueueStats, type Stamped } from './inbound-queue.js';
import type { ProtocolViolation, ViolationCode } from './violation.js';
import type { SocketLike } from './socket-like.js';

export type Received<M> = (InboundItem<M> | Overflow) & Stamped;

export interface CloseInfo {
  /** WebSocket close code (1006: the link dropped without a close frame). */
  code: number;
  reason: string;
  /** True when the peer closed or the link dropped; false when this side closed (close(), abort, a protocol error). */
  byPeer: boolean;
  /** Clock time (ms) the close completed. */
  at: number;
  /** What the WebSocket layer reported, when a protocol error ended the connection. */
  error?: string;
}

export interface WireStats extends QueueStats {
  framesReceived: number;
  bytesReceived: number;
  framesSent: number;
  bytesSent: number;
  violations: number;
}

export interface ConnectionOptions {
  /** Largest inbound frame accepted (default 4 MiB); a larger one is a violation and ends the connection. */
  maxPayloadBytes?: number;
  /** Inbound queue bounds (defaults 10 000 items, 64 MiB); beyond them arrivals are dropped and counted. */
  maxQueuedItems?: number;
  maxQueuedBytes?: number;
  /** Timestamps every inbound item and close (default: the monotonic clock). */
  clock?: Clock;
  /** Aborting closes the connection (1000, "aborted"); while connecting, it stops the attempts. */
  signal?: AbortSignal;
  /** How long close() waits for the peer's close frame before dropping the link (default 2000 ms). */
  closeTimeoutMs?: number;
}

export const DEFAULT_MAX_PAYLOAD_BYTES = 4 * 1024 * 1024;
export const DEFAULT_MAX_QUEUED_ITEMS = 10_000;
export const DEFAULT_MAX_QUEUED_BYTES = 64 * 1024 * 1024;
const DEFAULT_CLOSE_TIMEOUT_MS = 2000;

export function positiveOption(name: string, value: number | undefined, fallback: number): number {
  const v = value ?? fallback;
  if (!Number.isFinite(v) || v <= 0) throw new WireOptionError(name, `expected a positive number, got ${value}`);
  return v;
}

/** The options with defaults applied; a WireOptionError for any out of range. */
export function validateConnectionOptions(
  options: ConnectionOptions,
): Required<Omit<ConnectionOptions, 'signal' | 'clock'>> {
  return {
    maxPayloadBytes: positiveOption('maxPayloadBytes', options.maxPayloadBytes, DEFAULT_MAX_PAYLOAD_BYTES),
    maxQueuedItems: positiveOption('maxQueuedItems', options.maxQueuedItems, DEFAULT_MAX_QUEUED_ITEMS),
    maxQueuedBytes: positiveOption('maxQueuedBytes', options.maxQueuedBytes, DEFAULT_MAX_QUEUED_BYTES),
    closeTimeoutMs: positiveOption('closeTimeoutMs', options.closeTimeoutMs, DEFAULT_CLOSE_TIMEOUT_MS),
  };
}

const WS_ERROR_VIOLATIONS: Record<string, ViolationCode> = { WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 'oversized' };
// The status ws sends when its receiver refuses a frame (RFC 6455 §7.4.1).
const WS_ERROR_CLOSE_CODES: Record<string, number> = {
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 1009,
  WS_ERR_INVALID_UTF8: 1007,
};

export class WireConnection<Out, In> {
  readonly codec: WireCodec<Out, In>;
  /** Clock time (ms) the connection opened. */
  readonly openedAt: number;
  readonly closed: Promise<CloseInfo>;

  private readonly socket: SocketLike;
  private readonly clock: Clock;
  private readonly queue: InboundQueue<InboundItem<In> & Stamped>;
  private readonly closeTimeoutMs: number;
  private readonly maxPayloadBytes: number;
  private readonly signal: AbortSignal | undefined;
  private resolveClosed!: (info: CloseInfo) => void;
  private closedByUs = false;
  private layerError: string | undefined;
  /** The status this side sent when it refused a frame; ws stops reading then, so the peer's echo is never seen. */
  private refusedWith: number | undefined;
  private closeTimer: NodeJS.Timeout | undefined;
  private readonly counters = { framesReceived: 0, bytesReceived: 0, framesSent: 0, bytesSent: 0, violations: 0 };

  /**
   * Takes over an OPEN socket; call synchronously from its 'open' (or server 'connection') event so no frame is missed.
   */
  constructor(socket: SocketLike, codec: WireCodec<Out, In>, options: ConnectionOptions = {}) {
    this.socket = socket;
    this.codec = codec;
    this.clock = options.clock ?? monotonicClock;
    this.openedAt = this.clock.now();
    const limits = validateConnectionOptions(options);
    this.closeTimeoutMs = limits.closeTimeoutMs;
    this.maxPayloadBytes = limits.maxPayloadBytes;
    this.queue = new InboundQueue(limits.maxQueuedItems, limits.maxQueuedBytes);
    this.closed = new Promise((resolve) => (this.resolveClosed = resolve));
    this.signal = options.signal;

    socket.on('message', (data, isBinary, arrivedAtMs) => this.onMessage(data, isBinary, arrivedAtMs));
    socket.on('error', (err) => this.onLayerError(err));
    socket.once('close', (code, reason) => this.onClose(code, reason.toString('utf8')));
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    if (this.signal?.aborted) this.onAbort();
  }

  /** The socket underneath (the pacer thread finds its own sockets by it). */
  get transport(): SocketLike {
    return this.socket;
  }

  get isOpen(): boolean {
    return this.socket.readyState === WebSocket.OPEN;
  }

  /** Bytes handed to the socket but not yet written (for senders that want to notice a stalled peer). */
  get bufferedAmount(): number {
    return this.socket.bufferedAmount;
  }

  /** Sends one RTVI message; false when the connection is not open. */
  send(message: Out): boolean {
    return this.sendItem({ kind: 'rtvi', message });
  }

  /** Sends PCM as the codec carries audio (raw-audio / eval-bot-audio / AudioRawFrame); false when not sent. */
  sendAudio(pcm: Int16Array, sampleRate: number, options: { numChannels?: number; pts?: number } = {}): boolean {
    return this.sendItem({ kind: 'audio', pcm, sampleRate, ...options });
  }

  /** False when the codec cannot carry this kind of item, or the connection is not open. */
  sendItem(item: OutboundItem<Out>): boolean {
    const payload = this.codec.encode(item);
    return payload !== null && this.sendRaw(payload);
  }

  /** Sends a frame as is (string → text frame, bytes → binary); for fault injection and tests. */
  sendRaw(payload: WirePayload): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) return false;
    const bytes = typeof payload === 'string' ? Buffer.byteLength(payload) : payload.byteLength;
    this.counters.framesSent++;
    this.counters.bytesSent += bytes;
    // A write that fails (peer gone) surfaces as the close; the callback only keeps it from being thrown.
    this.socket.send(payload, { binary: typeof payload !== 'string' }, () => {});
    return true;
  }

  /** The next inbound item, or null once the connection has closed and everything queued has been read. */
  receive(signal?: AbortSignal): Promise<Received<In> | null> {
    return this.queue.next(signal);
  }

  /** Everything queued now, without waiting (e.g. to drop stale output before a turn). */
  drain(): Array<Received<In>> {
    return this.queue.drain();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Received<In>> {
    for (let item = await this.receive(); item !== null; item = await this.receive()) yield item;
  }

  stats(): WireStats {
    return { ...this.queue.stats(), ...this.counters };
  }

  /** Starts a clean close and resolves when it is done (forcing it after `closeTimeoutMs`). Idempotent. */
  close(code = 1000, reason = ''): Promise<CloseInfo> {
    if (this.socket.readyState === WebSocket.CLOSED) return this.closed;
    this.closedByUs = true;
    try {
      this.socket.close(code, reason.slice(0, 120));
    } catch {
      this.socket.terminate(); // an invalid code or reason: drop the link instead
    }
    this.closeTimer ??= setTimeout(() => this.socket.terminate(), this.closeTimeoutMs);
    return this.closed;
  }

  /** Drops the link at once, without a closing handshake. */
  terminate(): Promise<CloseInfo> {
    this.closedByUs = true;
    this.socket.terminate();
    return this.closed;
  }

  private readonly onAbort = (): void => {
    void this.close(1000, 'aborted');
  };

  private onMessage(data: WebSocket.RawData, isBinary: boolean, arrivedAtMs?: number): void {
    const at = arrivedAtMs ?? this.clock.now();
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    this.counters.framesReceived++;
    this.counters.bytesReceived += buf.byteLength;
    const frame: WirePayload = isBinary
      ? new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength)
      : buf.toString('utf8');
    let item: InboundItem<In>;
    try {
      item = this.codec.decode(frame);
    } catch (err) {
      // Codecs are written not to throw; if one does, the frame is still the peer's fault to report, not a crash.
      const reason = `undecodable frame: ${err instanceof Error ? err.message : String(err)}`;
      item = { kind: 'invalid', violation: { code: 'bad_frame', reason, excerpt: '', bytes: buf.byteLength } };
    }
    if (item.kind === 'invalid') this.counters.violations++;
    this.queue.push({ ...item, at, bytes: buf.byteLength });
  }

  private onLayerError(err: Error): void {
    const code = (err as Error & { code?: unknown }).code;
    this.layerError = err.message;
    if (typeof code !== 'string' || !code.startsWith('WS_ERR_')) return;
    // ws has refused the frame and is closing the connection with the matching status.
    const violationCode = WS_ERROR_VIOLATIONS[code] ?? 'bad_frame';
    const reason =
      violationCode === 'oversized'
        ? `frame larger than maxPayloadBytes (${this.maxPayloadBytes}); the connection is closed with 1009`
        : `WebSocket protocol error (${code}): ${err.message}`;
    const violation: ProtocolViolation = { code: violationCode, reason, excerpt: '', bytes: 0 };
    this.closedByUs = true;
    this.refusedWith = WS_ERROR_CLOSE_CODES[code] ?? 1002;
    this.counters.violations++;
    this.queue.push({ kind: 'invalid', violation, at: this.clock.now(), bytes: 0 });
  }

  private onClose(code: number, reason: string): void {
    clearTimeout(this.closeTimer);
    this.signal?.removeEventListener('abort', this.onAbort);
    const info: CloseInfo = { code: this.refusedWith ?? code, reason, byPeer: !this.closedByUs, at: this.clock.now() };
    if (this.layerError !== undefined) info.error = this.layerError;
    this.queue.end();
    this.resolveClosed(info);
  }
}
