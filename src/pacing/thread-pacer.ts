import type { Worker } from 'node:worker_threads';
import { AudioOptionError } from '../audio/index.js';
import { DurationHistogram, type DurationSummary } from '../core/histogram.js';
import { startModuleWorker } from '../core/module-worker.js';
import { assertNever } from '../core/never.js';
import type { ClientConnection, SocketOpener } from '../protocol/index.js';
import { FRAME_FIELDS, type FromPacer, type ToPacer } from './messages.js';
import { RemoteSocket } from './remote-socket.js';
import { RemoteStream, type RemoteStreamOptions } from './remote-stream.js';
import type { PacerWorkerData } from './worker.js';

export interface ThreadPacerOptions {
  /** The pacer thread's timer lead (see `SleepingTimerDriver`); default learned on this machine, from 2 ms. */
  leadMs?: number;
  /**
   * Write audio frames straight to a plain-TCP socket's descriptor (default
   * true; src/pacing/direct-send.ts); false sends every frame through `ws`,
   * as before, for comparison.
   */
  directSend?: boolean;
}

export interface ThreadPacerStats {
  frameMs: number;
  activeStreams: number;
  streamsCreated: number;
  /** sentMs − dueMs over every frame of every stream, as the pacer thread reported them. */
  frameLateness: DurationSummary;
}

/** The pacer thread: `worker.ts` beside this file (built or under tsx). */
function startWorker(workerData: PacerWorkerData): Worker {
  return startModuleWorker(import.meta.url, 'worker', workerData);
}

/**
 * The pacer for real runs: microphone streams paced and sent on a worker
 * thread of their own (src/pacing/worker.ts says why a busy main thread
 * cannot delay a frame there). Audio sessions open their WebSocket through
 * `openSocket`, so the socket lives on that thread, and their microphone
 * through `openStream`. The thread starts on first use, so a text-only run
 * never pays for it, and it holds the process open only while it has a socket
 * or a stream. The in-thread `Pacer` stays for manual-time tests.
 */
export class ThreadPacer {
  readonly frameMs = 20;
  private worker: Worker | null = null;
  private ready: Promise<void> | null = null;
  private origin: number | null = null;
  private tid: number | null = null;
  private readonly sockets = new Map<number, RemoteSocket>();
  private readonly streams = new Map<number, RemoteStream>();
  private readonly lateness = new DurationHistogram();
  /** The same, since the last `takeLatenessWindow`. */
  private window = new DurationHistogram();
  private nextId = 1;
  private created = 0;
  private closed = false;

  constructor(private readonly options: ThreadPacerOptions = {}) {}

  /** Whether the pacer thread was ever started. */
  get started(): boolean {
    return this.worker !== null;
  }

  /** The tick grid's origin on this thread's clock (known once `whenReady` resolves). */
  get originMs(): number {
    return this.origin ?? NaN;
  }

  /**
   * The pacer thread's kernel thread id (Linux, once `whenReady` resolves; null
   * elsewhere or before): what /proc/self/task/<id> reads to give the pacer
   * thread's own CPU apart from the rest of the process.
   */
  get osThreadId(): number | null {
    return this.tid;
  }

  /** Starts the pacer thread if it is not running; resolves once it ticks. */
  whenReady(): Promise<void> {
    this.start();
    return this.ready as Promise<void>;
  }

  /** For `connect({ openSocket })`: the WebSocket is opened, read and written on the pacer thread. */
  readonly openSocket: SocketOpener = (url, options) => {
    if (this.closed) throw new AudioOptionError('pacer', 'closed', 'an open pacer (openSocket after close)');
    const id = this.nextId++;
    const socket = new RemoteSocket(
      id,
      (m) => this.post(m),
      (s) => this.release(() => this.sockets.delete(s.id)),
    );
    this.sockets.set(id, socket);
    this.post({
      t: 'open',
      sock: id,
      url,
      maxPayload: options.maxPayload,
      ...(options.headers ? { headers: options.headers } : {}),
    });
    return socket;
  };

  /** A microphone stream on `connection`, which must have been opened through `openSocket`. */
  openStream(connection: ClientConnection, options: RemoteStreamOptions): RemoteStream {
    if (this.closed) throw new AudioOptionError('pacer', 'closed', 'an open pacer (openStream after close)');
    const socket = connection.transport;
    if (!(socket instanceof RemoteSocket) || this.sockets.get(socket.id) !== socket) {
      throw new AudioOptionError('connection', 'opened elsewhere', "a connection opened with this pacer's openSocket");
    }
    // The pacer thread makes its own codec of the same name: the audio encoding is stateless.
    const codec = connection.codec.name;
    const id = this.nextId++;
    const stream = new RemoteStream(id, options, this.frameMs, (m) => this.post(m));
    this.streams.set(id, stream);
    this.created++;
    void stream.ended.then(() => this.release(() => this.streams.delete(id)));
    this.post({
      t: 'stream',
      stream: id,
      sock: socket.id,
      codec,
      sampleRate: options.sampleRate,
      label: options.label,
      ...(options.recordFrames !== undefined ? { recordFrames: options.recordFrames } : {}),
    });
    return stream;
  }

  stats(): ThreadPacerStats {
    return {
      frameMs: this.frameMs,
      activeStreams: this.streams.size,
      streamsCreated: this.created,
      frameLateness: this.lateness.summary(),
    };
  }

  /**
   * Frame lateness (sent − due) of the frames reported since the previous
   * call, or since the start; the next window starts now. For long runs that
   * report by the minute (the soak): a trend hides in a whole-run percentile.
   */
  takeLatenessWindow(): DurationSummary {
    const summary = this.window.summary();
    this.window = new DurationHistogram();
    return summary;
  }

  /** Ends every stream (`pacer_closed`), drops every socket and stops the thread. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    const worker = this.worker;
    this.worker = null;
    this.gone();
    void worker?.terminate();
  }

  private start(): void {
    if (this.worker || this.closed) return;
    const { leadMs, directSend } = this.options;
    const worker = startWorker({
      mainTimeOrigin: performance.timeOrigin,
      ...(leadMs !== undefined ? { leadMs } : {}),
      ...(directSend !== undefined ? { directSend } : {}),
    });
    this.worker = worker;
    worker.unref();
    this.ready = new Promise((resolve, reject) => {
      worker.on('message', (m: FromPacer) => {
        if (m.t === 'ready') {
          this.origin = m.originMs;
          this.tid = m.tid;
          resolve();
        } else this.deliver(m);
      });
      // A thread that failed or exited is forgotten: its sockets drop, its streams end, and the next use starts
      // another.
      const lost = (): void => {
        if (this.worker === worker) this.worker = null;
        this.gone();
      };
      worker.once('error', (err) => {
        reject(err);
        lost();
      });
      worker.once('exit', lost);
    });
    // A failed start surfaces on whoever waits for it (or as dropped sockets); never as an unhandled rejection.
    this.ready.catch(() => {});
  }

  private post(m: ToPacer): void {
    this.start();
    if (!this.worker) return;
    this.worker.ref();
    if (m.t === 'enqueue') this.worker.postMessage(m, [m.samples.buffer as ArrayBuffer]);
    else this.worker.postMessage(m);
  }

  /** Something ended: the thread keeps the process alive only while it still has work. */
  private release(forget: () => void): void {
    forget();
    if (this.sockets.size === 0 && this.streams.size === 0) this.worker?.unref();
  }

  /** The thread is gone (closed, crashed): every socket dropped, every stream ended. */
  private gone(): void {
    for (const s of [...this.sockets.values()]) s.drop();
    for (const s of [...this.streams.values()]) s.onEnded(null, null);
  }

  private deliver(m: FromPacer): void {
    switch (m.t) {
      case 'ready':
        return;
      case 'open':
      case 'error':
      case 'message':
      case 'close':
        return this.sockets.get(m.sock)?.deliver(m);
      case 'started':
        return this.streams.get(m.stream)?.onStarted(m.startMs);
      case 'frames': {
        const f = m.frames;
        for (let i = 0; i + FRAME_FIELDS <= f.length; i += FRAME_FIELDS) {
          this.lateness.record(f[i + 3] - f[i + 2]);
          this.window.record(f[i + 3] - f[i + 2]);
          this.streams.get(f[i])?.onFrame(f[i + 1], f[i + 2], f[i + 3], f[i + 4]);
        }
        return;
      }
      case 'utt':
        return this.streams.get(m.stream)?.onUtterance(m.utt, m.phase, m.timing, m.end);
      case 'ended':
        return this.streams.get(m.stream)?.onEnded(m.stats, m.records);
      default:
        assertNever(m, 'pacer thread message');
    }
  }
}
