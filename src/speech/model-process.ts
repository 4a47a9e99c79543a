import type { ChildProcess } from 'node:child_process';
import { forkModule } from '../core/module-worker.js';
import type { PoolWorker } from './stt/pool.js';

/**
 * A model in a process of its own (Whisper, Moonshine, Kokoro), driven over
 * IPC. onnxruntime-node computes on the thread that calls `run` (its promise
 * resolves only after the forward pass, which blocks that thread), and the
 * transformers.js pipelines around it are JavaScript too: beside the sessions,
 * a Whisper-tiny call stalled the event loop 240–470 ms (196–369 ms on the
 * tiny fixture), a Kokoro utterance for its whole synthesis
 * (docs/benchmarks.md). A worker thread cannot host them: the binding loads
 * once per process ("Module did not self-register" in a second thread) and the
 * sessions' thread already holds it for Silero VAD. So a child process
 * computes, one call at a time, and the sessions' thread only waits.
 */
export type ToModelProcess<Load, Request> =
  | { t: 'load'; data: Load }
  | { t: 'call'; id: number; request: Request }
  | { t: 'close' };

export type FromModelProcess<Result> =
  | { t: 'ready' }
  | { t: 'load_failed'; message: string }
  | { t: 'result'; id: number; result: Result }
  | { t: 'failed'; id: number; message: string };

interface Pending<Result> {
  resolve: (result: Result) => void;
  reject: (err: Error) => void;
}

const CLOSE_GRACE_MS = 2000;
/** What of the child's stderr an error message quotes. */
const STDERR_TAIL_CHARS = 300;

export class ModelProcess<Load, Request, Result> implements PoolWorker {
  private dead = false;
  private nextId = 1;
  private readonly pending = new Map<number, Pending<Result>>();
  private readonly exited: Promise<void>;

  private constructor(
    private readonly child: ChildProcess,
    private readonly what: string,
    private readonly stderrTail: () => string,
  ) {
    child.on('message', (m: FromModelProcess<Result>) => {
      if (m.t !== 'result' && m.t !== 'failed') return;
      const job = this.pending.get(m.id);
      if (!job) return;
      this.settle(m.id);
      if (m.t === 'result') job.resolve(m.result);
      else job.reject(new Error(m.message));
    });
    this.exited = new Promise((resolve) => {
      child.once('exit', (code, signal) => {
        this.dead = true;
        const said = this.stderrTail();
        const why = `the ${what} process exited (${signal ?? `code ${code}`})${said ? `: ${said}` : ''}`;
        for (const [id, job] of this.pending) {
          this.settle(id);
          job.reject(new Error(why));
        }
        resolve();
      });
    });
  }

  get alive(): boolean {
    return !this.dead;
  }

  /**
   * Forks `entry` (a module beside `callerUrl` that calls `serveModel`) and
   * loads the model in it; rejects with the loader's own message when the
   * model cannot load. `what` names the process in errors (`whisper`).
   */
  static start<L, Q, R>(callerUrl: string, entry: string, what: string, data: L): Promise<ModelProcess<L, Q, R>> {
    const child = forkModule(callerUrl, entry);
    let stderr = '';
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_TAIL_CHARS);
    });
    const tail = (): string => stderr.trim();
    return new Promise((resolve, reject) => {
      const onMessage = (m: FromModelProcess<R>): void => {
        if (m.t !== 'ready' && m.t !== 'load_failed') return;
        cleanup();
        if (m.t === 'ready') {
          const made = new ModelProcess<L, Q, R>(child, what, tail);
          made.idle();
          resolve(made);
        } else {
          child.kill();
          reject(new Error(m.message));
        }
      };
      const onExit = (code: number | null, signal: string | null): void => {
        cleanup();
        const said = tail();
        const how = signal ?? `code ${code}`;
        reject(new Error(`the ${what} process exited while loading (${how})${said ? `: ${said}` : ''}`));
      };
      const onError = (err: Error): void => {
        cleanup();
        reject(err);
      };
      const cleanup = (): void => {
        child.off('message', onMessage).off('exit', onExit).off('error', onError);
      };
      child.on('message', onMessage).on('exit', onExit).on('error', onError);
      child.send({ t: 'load', data } satisfies ToModelProcess<L, Q>);
    });
  }

  call(request: Request): Promise<Result> {
    if (this.dead) return Promise.reject(new Error(`the ${this.what} process is gone`));
    const id = this.nextId++;
    if (this.pending.size === 0) this.busy();
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      this.child.send({ t: 'call', id, request } satisfies ToModelProcess<Load, Request>);
    });
  }

  async close(): Promise<void> {
    if (this.dead) return;
    this.child.send({ t: 'close' } satisfies ToModelProcess<Load, Request>);
    const timer = setTimeout(() => this.child.kill('SIGKILL'), CLOSE_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }

  private settle(id: number): void {
    this.pending.delete(id);
    if (this.pending.size === 0) this.idle();
  }

  /** An idle process does not keep earshot running; one with a call out does. */
  private idle(): void {
    this.child.unref();
    this.child.channel?.unref();
  }

  private busy(): void {
    this.child.ref();
    this.child.channel?.ref();
  }
}
