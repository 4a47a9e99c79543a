/**
 * Helpers for the reference bot's end-to-end tests: the bot as a real
 * subprocess (`node dist/cli/main.js refbot ...`, built by `npm test` before
 * vitest runs), and a raw RTVI client on a real socket that records every
 * message with its arrival time.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import {
  buildEvalUrl,
  type ClientConnection,
  ClientMessages,
  type CodecName,
  connect,
  type EvalConnectFlags,
  type ServerInbound,
} from '../../src/protocol/index.js';

export const ROOT = resolve(import.meta.dirname, '..', '..');
/** The built CLI; EARSHOT_TEST_MAIN points the tests at another build (e.g. a private one while dist/ is being rebuilt). */
const MAIN = process.env.EARSHOT_TEST_MAIN ?? join(ROOT, 'dist', 'cli', 'main.js');

export interface BotProcess {
  url: string;
  wire: string;
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stderr(): string;
  stop(): Promise<void>;
}

/** Starts `earshot refbot --port 0 ...args` and waits for its "listening" line. */
export async function startBot(args: string[] = [], timeoutMs = 15_000): Promise<BotProcess> {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: build first (npx tsc -p tsconfig.build.json)`);
  const child = spawn(process.execPath, [MAIN, 'refbot', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) => child.once('exit', (code, signal) => r({ code, signal })));
  const line = await new Promise<RegExpExecArray>((resolveLine, reject) => {
    const timer = setTimeout(() => reject(new Error(`refbot did not print its URL within ${timeoutMs} ms; stderr: ${err}`)), timeoutMs);
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^refbot listening on (ws:\/\/\S+) \(wire (\S+)\)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveLine(m);
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`refbot exited (${e.code ?? e.signal}) before listening; stderr: ${err}`));
    });
  });
  return {
    url: line[1],
    wire: line[2],
    child,
    exited,
    stderr: () => err,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      await exited;
    },
  };
}

export interface Seen {
  at: number;
  message: ServerInbound;
}

/** A raw RTVI client: typed sends, and every message and audio frame the bot sent, in order. */
export class Client {
  readonly seen: Seen[] = [];
  readonly audio: Array<{ at: number; pcm: Int16Array; sampleRate: number }> = [];
  readonly invalid: string[] = [];
  readonly interruptions: number[] = [];
  readonly messages = new ClientMessages();
  readonly done: Promise<void>;
  private waiters: Array<() => void> = [];

  private constructor(readonly connection: ClientConnection) {
    this.done = (async () => {
      for await (const item of connection) {
        if (item.kind === 'rtvi') this.seen.push({ at: item.at, message: item.message });
        else if (item.kind === 'audio') this.audio.push({ at: item.at, pcm: item.pcm, sampleRate: item.sampleRate });
        else if (item.kind === 'invalid') this.invalid.push(item.violation.reason);
        else if (item.kind === 'interruption') this.interruptions.push(item.at);
        for (const w of this.waiters.splice(0)) w();
      }
      for (const w of this.waiters.splice(0)) w();
    })();
  }

  static async open(
    url: string,
    options: { codec?: CodecName; flags?: EvalConnectFlags; maxPayloadBytes?: number; connectTimeoutMs?: number } = {},
  ): Promise<Client> {
    const connection = await connect(buildEvalUrl(url, options.flags ?? {}), {
      codec: options.codec ?? 'pipecat-eval',
      connectTimeoutMs: options.connectTimeoutMs ?? 5000,
      ...(options.maxPayloadBytes ? { maxPayloadBytes: options.maxPayloadBytes } : {}),
    });
    return new Client(connection);
  }

  /** client-ready, then waits for bot-ready. */
  async handshake(): Promise<void> {
    this.connection.send(this.messages.clientReady({ library: 'earshot-test' }));
    await this.waitFor((m) => m.type === 'bot-ready', 5000, 'bot-ready');
  }

  types(from = 0, to = this.seen.length): string[] {
    return this.seen.slice(from, to).map((s) => s.message.type);
  }

  /** Resolves with the index in `seen` of the first message from `from` on that matches. */
  async waitFor(pred: (m: ServerInbound) => boolean, timeoutMs: number, what = 'message', from = 0): Promise<number> {
    const deadline = performance.now() + timeoutMs;
    for (;;) {
      const i = this.seen.findIndex((s, k) => k >= from && pred(s.message));
      if (i >= 0) return i;
      const left = deadline - performance.now();
      if (left <= 0 || !this.connection.isOpen) {
        throw new Error(`no ${what} within ${timeoutMs} ms (connection ${this.connection.isOpen ? 'open' : 'closed'}); got: ${this.types(from).join(', ')}`);
      }
      await new Promise<void>((r) => {
        const t = setTimeout(r, left);
        this.waiters.push(() => {
          clearTimeout(t);
          r();
        });
      });
    }
  }

  /** Waits for `type`'s `n`-th occurrence from `from` on (n from 1). */
  async waitForType(type: string, timeoutMs: number, from = 0, n = 1): Promise<number> {
    let index = from - 1;
    for (let k = 0; k < n; k++) index = await this.waitFor((m) => m.type === type, timeoutMs, type, index + 1);
    return index;
  }

  /** The text a reply streamed between `bot-llm-started` at/after `from` and its `bot-llm-stopped`. */
  replyText(from: number, to = this.seen.length): string {
    return this.seen
      .slice(from, to)
      .flatMap((s) => (s.message.type === 'bot-llm-text' ? [s.message.data.text] : []))
      .join('');
  }

  async close(): Promise<void> {
    await this.connection.close(1000, 'test done');
    await this.done;
  }
}

/** Message types without the noise (metrics, streamed text chunks). */
export function shape(types: string[]): string[] {
  const out: string[] = [];
  for (const t of types) {
    // Metrics and the per-sentence bot-transcription interleave with the text stream; their own tests check them.
    if (t === 'metrics' || t === 'bot-transcription') continue;
    if (t === 'bot-llm-text' && out[out.length - 1] === 'bot-llm-text…') continue;
    out.push(t === 'bot-llm-text' ? 'bot-llm-text…' : t);
  }
  return out;
}

export function readTruth(path: string): Array<Record<string, unknown>> {
  if (!existsSync(path)) return [];
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
