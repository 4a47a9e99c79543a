import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readSync, fstatSync, writeSync } from 'node:fs';
import { Redactor } from '../core/redact.js';
import { connect as tcpConnect } from 'node:net';
import { sleep } from '../core/abort.js';
import { monotonicClock, type Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';

/**
 * One spawned bot: its own process group (so stopping it stops whatever it
 * started too), stdout and stderr in one log file, readiness by TCP connect
 * retries, and a stop that escalates: wait for the bot to leave on its own
 * (the session already sent `eval-cancel`), then SIGTERM, then SIGKILL.
 */

export interface BotSpawnOptions {
  command: string;
  args: readonly string[];
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Receives the bot's stdout and stderr (created or truncated), secrets masked, capped in size. */
  logFile: string;
  clock?: Clock;
  /** Masks secrets in the log; default: from `env` (the bot's environment holds the keys it may print). */
  redactor?: Redactor;
}

/** A bot that floods its output must not fill the disk: the log stops here, with a note. */
export const MAX_BOT_LOG_BYTES = 32 * 1024 * 1024;

export interface BotExit {
  code: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the program could not be started at all (ENOENT, EACCES). */
  error?: string;
}

export type ReadyOutcome =
  | { ready: true; afterMs: number }
  | { ready: false; why: 'exited'; exit: BotExit; afterMs: number }
  | { ready: false; why: 'timeout'; afterMs: number };

export interface StopOptions {
  /** How long to wait for the bot to exit by itself before SIGTERM. */
  graceMs: number;
  /** How long to wait after SIGTERM before SIGKILL. */
  termGraceMs: number;
}

export interface StopOutcome {
  /** What ended it: it left by itself, or the signal that did. */
  how: 'exited' | 'SIGTERM' | 'SIGKILL';
  exit: BotExit;
  /** Processes of its group still alive after the bot left, killed with SIGKILL. */
  strays: boolean;
}

const PROBE_INTERVAL_MS = 50;
const PROBE_TIMEOUT_MS = 1000;

export class BotProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<BotExit>;
  private exit: BotExit | null = null;
  private readonly clock: Clock;

  private constructor(
    child: ChildProcess,
    readonly logFile: string,
    clock: Clock,
  ) {
    this.clock = clock;
    this.pid = child.pid;
    this.exited = new Promise<BotExit>((resolve) => {
      child.once('error', (err) => {
        // 'error' without a pid: the program never ran; 'exit' will not follow.
        if (child.pid === undefined) {
          this.exit = { code: null, signal: null, error: errorMessage(err) };
          resolve(this.exit);
        }
      });
      // 'close' follows 'exit' once the bot's output is drained into its log (the reason for a failed start
      // is usually its last lines); a grandchild holding the pipes open must not delay the verdict, hence the cap.
      const closed = new Promise<void>((r) => child.once('close', () => r()));
      child.once('exit', (code, signal) => {
        void Promise.race([closed, new Promise<void>((r) => setTimeout(r, 500).unref())]).then(() => {
          this.exit = { code, signal };
          resolve(this.exit);
        });
      });
    });
  }

  /** Starts the bot. Never throws for a program that cannot run: `exited` then resolves with `error`. */
  static spawn(options: BotSpawnOptions): BotProcess {
    const log = new RedactedLog(options.logFile, options.redactor ?? new Redactor(options.env ?? process.env));
    const child = spawn(options.command, [...options.args], {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      // Through earshot, not straight into the file: what a bot prints (its keys included) is redacted first.
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => log.write(d, 'out'));
    child.stderr?.on('data', (d: Buffer) => log.write(d, 'err'));
    const bot = new BotProcess(child, options.logFile, options.clock ?? monotonicClock);
    void bot.exited.then((exit) => {
      log.close();
      if (exit.error) appendLine(options.logFile, `earshot: could not start ${options.command}: ${exit.error}`);
    });
    return bot;
  }

  /** The exit, once it happened. */
  get exitInfo(): BotExit | null {
    return this.exit;
  }

  /**
   * Retries TCP connects to `host:port` until one succeeds, the bot exits, or
   * `timeoutMs` passes. Aborting rejects with the signal's reason.
   */
  async waitReady(options: {
    host: string;
    port: number;
    timeoutMs: number;
    signal?: AbortSignal;
  }): Promise<ReadyOutcome> {
    const start = this.clock.now();
    const deadline = start + options.timeoutMs;
    const elapsed = (): number => Math.round(this.clock.now() - start);
    const stop = new AbortController();
    const signal = options.signal ? AbortSignal.any([options.signal, stop.signal]) : stop.signal;
    const exitedFirst = this.exited.then((exit) => ({
      ready: false as const,
      why: 'exited' as const,
      exit,
      afterMs: elapsed(),
    }));
    const probing = (async (): Promise<ReadyOutcome> => {
      while (this.clock.now() < deadline) {
        if (
          await probe(
            options.host,
            options.port,
            Math.min(PROBE_TIMEOUT_MS, Math.max(1, deadline - this.clock.now())),
            signal,
          )
        ) {
          return { ready: true, afterMs: elapsed() };
        }
        await sleep(Math.min(PROBE_INTERVAL_MS, Math.max(0, deadline - this.clock.now())), signal);
      }
      return { ready: false, why: 'timeout', afterMs: elapsed() };
    })();
    try {
      const outcome = await Promise.race([exitedFirst, probing]);
      // A bot that listened and died at once is not ready.
      if (outcome.ready && this.exit) return { ready: false, why: 'exited', exit: this.exit, afterMs: outcome.afterMs };
      return outcome;
    } finally {
      stop.abort();
      probing.catch(() => undefined);
    }
  }

  /** Waits for the bot to exit by itself, then SIGTERM, then SIGKILL, to its whole process group. */
  async stop(options: StopOptions): Promise<StopOutcome> {
    let how: StopOutcome['how'] = 'exited';
    if (!this.exit && !(await this.exitsWithin(options.graceMs))) {
      how = 'SIGTERM';
      this.signalGroup('SIGTERM');
      if (!(await this.exitsWithin(options.termGraceMs))) {
        how = 'SIGKILL';
        this.signalGroup('SIGKILL');
      }
    }
    const exit = await this.exited;
    const strays = this.groupAlive();
    if (strays) this.signalGroup('SIGKILL');
    return { how, exit, strays };
  }

  /** SIGKILL to the whole group, synchronously (for process exit). */
  killNow(): void {
    this.signalGroup('SIGKILL');
  }

  /** The last lines of the bot's log, ANSI colours removed, for a failure reason. */
  logTail(maxLines = 15, maxChars = 2000): string {
    return readTail(this.logFile, maxLines, maxChars);
  }

  private async exitsWithin(ms: number): Promise<boolean> {
    if (this.exit) return true;
    const timer = new AbortController();
    try {
      return await Promise.race([this.exited.then(() => true), sleep(ms, timer.signal).then(() => false)]);
    } finally {
      timer.abort();
    }
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch {
      // ESRCH: the group is gone already.
    }
  }

  private groupAlive(): boolean {
    if (this.pid === undefined) return false;
    try {
      process.kill(-this.pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

/** One TCP connect attempt; true when something accepted it. */
function probe(host: string, port: number, timeoutMs: number, signal: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve(false);
    const socket = tcpConnect({ host, port, autoSelectFamily: true });
    const done = (ok: boolean): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      socket.destroy();
      resolve(ok);
    };
    const onAbort = (): void => done(false);
    const timer = setTimeout(() => done(false), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** How people read an exit: `exited with code 3`, `was killed by SIGKILL`, `could not start: ...`. */
export function describeExit(exit: BotExit): string {
  if (exit.error) return `could not start: ${exit.error}`;
  if (exit.signal) return `was killed by ${exit.signal}`;
  return `exited with code ${exit.code ?? '?'}`;
}

const ANSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

export function readTail(path: string, maxLines: number, maxChars: number): string {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return '';
  }
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, maxChars * 4);
    const buf = Buffer.alloc(length);
    readSync(fd, buf, 0, length, size - length);
    const lines = buf.toString('utf8').replace(ANSI, '').replace(/\r/g, '').split('\n');
    while (lines.length && lines[lines.length - 1].trim() === '') lines.pop();
    if (length < size) lines.shift(); // first line is cut
    const text = lines.slice(-maxLines).join('\n');
    return text.length > maxChars ? `…${text.slice(text.length - maxChars)}` : text;
  } finally {
    closeSync(fd);
  }
}

/**
 * The bot's log file: whole lines, each redacted before it is written (a
 * secret split across two reads is still one line), synchronously so the tail
 * is readable the moment the bot exits, capped at MAX_BOT_LOG_BYTES.
 */
class RedactedLog {
  private readonly fd: number;
  private readonly partial: Record<'out' | 'err', string> = { out: '', err: '' };
  private written = 0;
  private closed = false;

  constructor(
    readonly path: string,
    private readonly redactor: Redactor,
  ) {
    this.fd = openSync(path, 'w');
  }

  write(chunk: Buffer, stream: 'out' | 'err'): void {
    if (this.closed) return;
    const text = this.partial[stream] + chunk.toString('utf8');
    const cut = text.lastIndexOf('\n');
    this.partial[stream] = cut < 0 ? text : text.slice(cut + 1);
    if (this.partial[stream].length > 64 * 1024) {
      // A bot printing without newlines: flush what it has so far.
      this.emit(this.partial[stream]);
      this.partial[stream] = '';
    }
    if (cut >= 0) this.emit(text.slice(0, cut + 1));
  }

  close(): void {
    if (this.closed) return;
    for (const s of ['out', 'err'] as const) if (this.partial[s]) this.emit(`${this.partial[s]}\n`);
    this.closed = true;
    closeSync(this.fd);
  }

  private emit(text: string): void {
    if (this.written >= MAX_BOT_LOG_BYTES) return;
    let out = this.redactor.text(text);
    if (this.written + out.length > MAX_BOT_LOG_BYTES)
      out =
        `${out.slice(0, MAX_BOT_LOG_BYTES - this.written)}\n` +
        `earshot: bot log capped at ${MAX_BOT_LOG_BYTES} bytes\n`;
    this.written += Buffer.byteLength(out);
    writeSync(this.fd, out);
  }
}

function appendLine(path: string, line: string): void {
  try {
    const fd = openSync(path, 'a');
    try {
      writeSync(fd, `${line}\n`);
    } finally {
      closeSync(fd);
    }
  } catch {
    // The log is a convenience; the exit is reported either way.
  }
}
