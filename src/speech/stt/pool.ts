import { availableParallelism } from 'node:os';
import { SpeechQueueFullError } from '../errors.js';

/**
 * A pool of long-lived recognizers shared by every session of a process.
 *
 * Each worker does one job at a time (a PocketSphinx process decodes one
 * utterance at a time; an ONNX pipeline already uses every core for one
 * call). Jobs beyond the workers wait in a FIFO queue of bounded length; a job
 * arriving at a full queue is refused at once with SpeechQueueFullError, never
 * silently dropped or left to wait without limit: the caller reports that
 * transcription as failed, and the run says earshot could not keep up. A
 * worker that dies is discarded (the next job starts a fresh one) and the job
 * it held is run once more on another worker.
 */
export interface PoolWorker {
  /** False once the worker's process or model is gone: it is replaced, never reused. */
  readonly alive: boolean;
  close(): Promise<void>;
}

export interface PoolOptions<W extends PoolWorker> {
  /** For messages: `sphinx`, `whisper`... */
  provider: string;
  /** Workers at most; default the cores (`os.availableParallelism()`). */
  size?: number;
  /** Jobs waiting for a worker at most; default 16 per worker. */
  maxQueue?: number;
  create: () => Promise<W>;
}

export interface PoolStats {
  size: number;
  maxQueue: number;
  /** Workers alive now (idle or busy). */
  workers: number;
  busy: number;
  queued: number;
  /** Workers started over the pool's life (replacements included). */
  started: number;
  /** Workers found dead and discarded. */
  replaced: number;
  /** Jobs refused because the queue was full. */
  refused: number;
}

interface Job<W, R> {
  task: (worker: W) => Promise<R>;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
  signal: AbortSignal | undefined;
  onAbort: () => void;
  attempt: number;
}

/** A job whose worker died is tried once more on a fresh worker. */
const MAX_ATTEMPTS = 2;

export class WorkerPool<W extends PoolWorker> {
  readonly size: number;
  readonly maxQueue: number;
  private readonly idle: W[] = [];
  private readonly all = new Set<W>();
  /** Workers being created: they count against `size`. */
  private starting = 0;
  private busyCount = 0;
  private queue: Job<W, unknown>[] = [];
  private closed = false;
  private startedCount = 0;
  private replacedCount = 0;
  private refusedCount = 0;

  constructor(private readonly options: PoolOptions<W>) {
    this.size = Math.max(1, Math.floor(options.size ?? availableParallelism()));
    this.maxQueue = Math.max(0, Math.floor(options.maxQueue ?? 16 * this.size));
  }

  stats(): PoolStats {
    return {
      size: this.size,
      maxQueue: this.maxQueue,
      workers: this.all.size,
      busy: this.busyCount,
      queued: this.queue.length,
      started: this.startedCount,
      replaced: this.replacedCount,
      refused: this.refusedCount,
    };
  }

  /** The workers alive now (for diagnostics and tests). */
  workersNow(): readonly W[] {
    return [...this.all];
  }

  /**
   * Runs `task` on a free worker, now or after the jobs queued before it. An
   * abort rejects the caller at once; a task already running keeps its worker
   * until it finishes (its result is dropped), so the pool never counts a
   * worker free while its process is still decoding.
   */
  run<R>(task: (worker: W) => Promise<R>, signal?: AbortSignal): Promise<R> {
    if (this.closed) return Promise.reject(new Error(`${this.options.provider}: recognizer pool closed`));
    if (signal?.aborted) return Promise.reject(signal.reason);
    // Jobs at the head of the queue wait for the workers being started, not for a busy one.
    const free = this.idle.length + (this.size - this.all.size - this.starting);
    if (free <= 0 && this.queue.length - this.starting >= this.maxQueue) {
      this.refusedCount++;
      return Promise.reject(new SpeechQueueFullError(this.options.provider, this.size, this.maxQueue));
    }
    return new Promise<R>((resolve, reject) => {
      const job: Job<W, R> = { task, resolve, reject, signal, attempt: 1, onAbort: () => undefined };
      job.onAbort = () => {
        const at = this.queue.indexOf(job as Job<W, unknown>);
        if (at >= 0) this.queue.splice(at, 1);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', job.onAbort, { once: true });
      this.queue.push(job as Job<W, unknown>);
      this.pump();
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    const waiting = this.queue;
    this.queue = [];
    for (const job of waiting)
      this.settle(job, () => job.reject(new Error(`${this.options.provider}: recognizer pool closed`)));
    const workers = [...this.all];
    this.all.clear();
    this.idle.length = 0;
    await Promise.all(workers.map((w) => w.close().catch(() => undefined)));
  }

  /** Hands queued jobs to idle workers, starting workers while under `size`. */
  private pump(): void {
    while (this.queue.length > 0 && !this.closed) {
      const worker = this.idle.pop();
      if (worker) {
        this.dispatch(this.queue.shift()!, worker);
        continue;
      }
      // One start per job not yet covered by a worker on its way; a started worker pumps when it is ready.
      if (this.queue.length > this.starting && this.all.size + this.starting < this.size) {
        this.startWorker();
        continue;
      }
      return;
    }
  }

  private startWorker(): void {
    this.starting++;
    this.options.create().then(
      (worker) => {
        this.starting--;
        this.startedCount++;
        if (this.closed) {
          void worker.close().catch(() => undefined);
          return;
        }
        this.all.add(worker);
        this.idle.push(worker);
        this.pump();
      },
      (err: unknown) => {
        this.starting--;
        // A worker that cannot start fails the job that asked for it (a missing model says so); the next job tries
        // again.
        const job = this.queue.shift();
        if (job) this.settle(job, () => job.reject(err));
        this.pump();
      },
    );
  }

  private dispatch(job: Job<W, unknown>, worker: W): void {
    this.busyCount++;
    const aborted = (): boolean => job.signal?.aborted === true;
    job.task(worker).then(
      (value) => {
        this.release(worker);
        if (!aborted()) this.settle(job, () => job.resolve(value));
      },
      (err: unknown) => {
        const died = !worker.alive;
        this.release(worker);
        if (died && job.attempt < MAX_ATTEMPTS && !aborted() && !this.closed) {
          job.attempt++;
          this.queue.unshift(job);
          this.pump();
          return;
        }
        if (!aborted()) this.settle(job, () => job.reject(err));
      },
    );
  }

  private release(worker: W): void {
    this.busyCount--;
    if (!this.all.has(worker)) return; // closed meanwhile
    if (worker.alive) {
      this.idle.push(worker);
    } else {
      this.all.delete(worker);
      this.replacedCount++;
      void worker.close().catch(() => undefined);
    }
    this.pump();
  }

  private settle(job: Job<W, unknown>, fn: () => void): void {
    job.signal?.removeEventListener('abort', job.onAbort);
    fn();
  }
}
