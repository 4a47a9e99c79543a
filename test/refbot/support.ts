/**
 * Helpers for the reference bot's end-to-end tests (the bot itself runs as a
 * subprocess: ../support/refbot-process.ts): a raw RTVI client on a real
 * socket that records every message with its arrival time.
 */
import { existsSync, readFileSync } from 'node:fs';
import {
  buildEvalUrl,
  type ClientConnection,
  ClientMessages,
  type CodecName,
  connect,
  type EvalConnectFlags,
  type ServerInbound,
} from '../../src/protocol/index.js';

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
        throw new Error(
          `no ${what} within ${timeoutMs} ms (connection ${this.connection.isOpen ? 'open' : 'closed'}); got: ${this.types(from).join(', ')}`,
        );
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
