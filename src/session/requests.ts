import type { Clock } from '../core/clock.js';
import { sleepUntil, type TimerDriver } from '../core/timers.js';
import type { BotResponse } from '../events/index.js';
import type { ClientConnection, ClientMessages } from '../protocol/index.js';

/**
 * Requests to the bot that wait for its answer: a `client-message` `{t, d}` with an id, answered by a
 * `server-response` or refused by an `error-response` carrying that id (RTVI's request/response pairing, which
 * NeMo's control plane and the GAIA documents' ack both use). One mechanism for every answer the read loop hands
 * over, so no two features race for the same response.
 */

/**
 * Why a request failed, for callers that word the failure themselves (the documents' ack): no answer in time, an
 * `error-response`, the connection closed (or never open), the run ended, or an answer that breaks the protocol.
 */
export type RequestFailure = 'timeout' | 'refused' | 'closed' | 'aborted' | 'protocol';

export type ControlReply = { ok: true; d: unknown } | { ok: false; reason: RequestFailure; error: string };

export interface RequestOptions {
  /** How long the bot gets to answer (default 10 s). */
  timeoutMs?: number;
}

/** What a driver asks of the bot itself (`DriverRuntime.control`). */
export interface BotRequests {
  /**
   * Sends `client-message {t, d}` and waits for the answer with its id. Never throws for the bot's faults: an
   * `error-response`, no answer by the deadline, the connection closing or the run ending are
   * `{ok: false, reason, error}`.
   */
  request(t: string, d: unknown, options?: RequestOptions): Promise<ControlReply>;
}

export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;

/** A trace line's `d` longer than this is summarized (a `db` can be megabytes). */
const TRACE_CHARS = 300;

interface Pending {
  t: string;
  settle: (reply: ControlReply) => void;
}

export interface SessionRequestsDeps {
  messages: ClientMessages;
  clock: Clock;
  timers: TimerDriver;
  signal: AbortSignal;
  log: (line: string) => void;
}

export class SessionRequests implements BotRequests {
  private readonly pending = new Map<string, Pending>();
  private conn: ClientConnection | null = null;
  private endedWhy: string | null = null;

  constructor(private readonly d: SessionRequestsDeps) {}

  /** The connection requests go out on (once connected). */
  attach(conn: ClientConnection): void {
    this.conn = conn;
  }

  async request(t: string, data: unknown, options: RequestOptions = {}): Promise<ControlReply> {
    const { d } = this;
    const timeoutMs = options.timeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    // The stream's end is named first, as the text does (`closed`); a run ended while the stream was open is
    // `aborted`; anything else unsent had no open connection (`closed`).
    const aborted = this.endedWhy === null && d.signal.aborted;
    const refused = this.endedWhy ?? (aborted ? 'the run ended' : null) ?? (this.conn ? null : 'not connected');
    if (refused !== null || !this.conn?.isOpen) {
      const error = `${t}: not sent: ${refused ?? 'the connection is closed'}`;
      d.log(`send: ${error}`);
      return { ok: false, reason: aborted ? 'aborted' : 'closed', error };
    }
    const message = d.messages.custom(t, data);
    const id = message.id;
    const reply = new Promise<ControlReply>((resolve) => this.pending.set(id, { t, settle: resolve }));
    this.conn.send(message);
    d.log(`send: ${t} (id ${id}) ${summarize(data)}`);
    const stop = new AbortController();
    const signal = AbortSignal.any([d.signal, stop.signal]);
    void sleepUntil(d.timers, d.clock.now() + timeoutMs, signal).then(
      () =>
        this.settle(id, {
          ok: false,
          reason: 'timeout',
          error: `${t}: no answer within ${timeoutMs}ms (request id ${id})`,
        }),
      () => {
        if (d.signal.aborted)
          this.settle(id, { ok: false, reason: 'aborted', error: `${t}: the run ended before the bot answered` });
      },
    );
    const got = await reply;
    stop.abort();
    return got;
  }

  /** An answer from the read loop; false when no request waits for it. */
  onResponse(r: BotResponse): boolean {
    const id = this.match(r);
    if (id === null) return false;
    const t = this.pending.get(id)?.t ?? '?';
    if (r.kind === 'error-response') {
      this.d.log(`recv: error-response to ${t} (id ${id}): ${r.error}`);
      return this.settle(id, { ok: false, reason: 'refused', error: `${t}: the bot refused it: ${r.error}` });
    }
    this.d.log(`recv: server-response ${t} (id ${id}) ${summarize(r.d)}`);
    return this.settle(id, { ok: true, d: r.d });
  }

  /** The bot answered request `id` with a message that breaks the protocol (parse.ts named the request). */
  onMalformed(id: string, reason: string): void {
    const t = this.pending.get(id)?.t;
    if (t === undefined) return;
    this.settle(id, { ok: false, reason: 'protocol', error: `${t}: protocol error in the bot's answer: ${reason}` });
  }

  /** The stream ended (closed connection): every waiting request fails with `why`, later ones are not sent. */
  end(why: string): void {
    this.endedWhy ??= why;
    for (const [id, p] of [...this.pending])
      this.settle(id, { ok: false, reason: 'closed', error: `${p.t}: ${why} before answering` });
  }

  /**
   * The request an answer belongs to: by its id; an answer without one (a bot that does not echo ids) by its `t`
   * when exactly one request of that `t` waits.
   */
  private match(r: BotResponse): string | null {
    if (r.id !== undefined) return this.pending.has(r.id) ? r.id : null;
    if (r.kind !== 'server-response') return null;
    const same = [...this.pending].filter(([, p]) => p.t === r.t);
    return same.length === 1 ? same[0][0] : null;
  }

  private settle(id: string, reply: ControlReply): boolean {
    const p = this.pending.get(id);
    if (!p) return false;
    this.pending.delete(id);
    p.settle(reply);
    return true;
  }
}

/** `d` for the trace: whole when short, else each top-level field summarized (a large `db` as its size). */
export function summarize(d: unknown): string {
  const whole = JSON.stringify(d) ?? 'undefined';
  if (whole.length <= TRACE_CHARS) return whole;
  if (d === null || typeof d !== 'object' || Array.isArray(d)) return sized(d, whole);
  const parts = Object.entries(d).map(([k, v]) => {
    const text = JSON.stringify(v) ?? 'undefined';
    return `${k}: ${text.length <= 80 ? text : sized(v, text)}`;
  });
  return `{${parts.join(', ')}}`;
}

function sized(v: unknown, text: string): string {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (Array.isArray(v)) return `<${v.length} item(s), ${bytes} bytes>`;
  if (v !== null && typeof v === 'object') return `<object of ${Object.keys(v).length} key(s), ${bytes} bytes>`;
  return `<${bytes} bytes>`;
}
