import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import {
  DOCUMENTS_MESSAGE,
  documentsContext,
  type ClientConnection,
  type ClientMessages,
  type DocumentPayload,
} from '../protocol/index.js';
import { failure } from '../results/failure.js';
import type { Failure } from '../results/types.js';
import type { Runnable } from '../scenario/index.js';
import { DeadlineError, QueueClosedError, type EventQueue, type EventTranslator } from '../events/index.js';
import { DOCUMENTS_ACK_TIMEOUT_MS, documentProblems, readDocuments } from './documents.js';
import type { BotRequests, RequestFailure } from './requests.js';
import { appendToContextProblem, checkWire, formatProblems, type WirePlan, type WireSettings } from './wire-check.js';

export interface BotControlDeps {
  scenario: Runnable;
  wire: WireSettings;
  plan: WirePlan;
  messages: ClientMessages;
  queue: EventQueue;
  translator: EventTranslator;
  clock: Clock;
  signal: AbortSignal;
  handshakeTimeoutMs: number;
  log: (line: string) => void;
  timers: TimerDriver;
  /** Requests that wait for the bot's answer (the documents' ack). */
  requests: BotRequests;
  /** How long the bot gets to acknowledge the documents (default 30 s). */
  documentsAckTimeoutMs?: number;
}

/**
 * The control for this scenario on this wire, or the located errors of what the wire cannot serve (checked before
 * connecting).
 */
export function prepareControl(d: Omit<BotControlDeps, 'plan'>): BotControl | string {
  const check = checkWire(d.scenario, d.wire);
  if (check.problems.length) return formatProblems(check.problems);
  return new BotControl({ ...d, plan: check.plan });
}

/**
 * What the session asks of the bot itself, over the wire plan that
 * wire-check.ts made: the handshake (held to Pipecat's bot-ready gate, or none
 * for a bot without RTVI), the scenario's configuration and context, and the
 * stop at the end.
 */
export class BotControl {
  private documents: DocumentPayload[] = [];

  constructor(private readonly d: BotControlDeps) {}

  /** Before connecting: reads the documents the bot is to get; the located error text when any cannot be sent. */
  async loadDocuments(): Promise<string | null> {
    if (this.d.plan.documents !== 'message' && this.d.plan.documents !== 'context') return null;
    const read = await readDocuments(this.d.scenario);
    if ('problems' in read) return documentProblems(read.problems);
    this.documents = read.documents;
    return null;
  }

  /**
   * The `message` way: sends the documents and waits for the bot's acknowledgement before the first turn (a bot
   * still indexing would answer the first question from nothing). The error text when it never comes.
   */
  async indexDocuments(): Promise<string | null> {
    const { d } = this;
    if (d.plan.documents !== 'message') return null;
    const bytes = this.documents.reduce((n, doc) => n + doc.bytes, 0);
    d.log(`documents: sending ${this.documents.length} document(s), ${bytes} bytes; waiting for the ack`);
    const waitMs = d.documentsAckTimeoutMs ?? DOCUMENTS_ACK_TIMEOUT_MS;
    const got = await d.requests.request(DOCUMENTS_MESSAGE, { documents: this.documents }, { timeoutMs: waitMs });
    if (got.ok) {
      const indexed = (got.d as { indexed?: unknown } | undefined)?.indexed;
      d.log(`documents: the bot acknowledged (indexed: ${typeof indexed === 'number' ? indexed : '?'})`);
      return null;
    }
    d.signal.throwIfAborted();
    const why = ackFailure(got.reason, got.error, waitMs);
    d.log(`documents: ${why}`);
    return (
      `${why}: a bot given documents by message must index them and answer ` +
      `{t: '${DOCUMENTS_MESSAGE}', d: {indexed: n}}; or pass --documents-via context or spawn`
    );
  }

  /** client-ready, then bot-ready within the gate; the failure when the bot never says it is ready. */
  async handshake(conn: ClientConnection): Promise<Failure | null> {
    const { d } = this;
    if (d.wire.handshake === 'none') {
      d.log('handshake: none (a bot without RTVI: the session starts on connect)');
      return null;
    }
    conn.send(d.messages.clientReady({ library: 'earshot', library_version: '0.1.0' }));
    try {
      await d.queue.whenSeen('bot_ready', d.clock.now() + d.handshakeTimeoutMs, d.signal);
      d.log('handshake: ok (bot-ready)');
      return null;
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof QueueClosedError)) throw err;
      const reason =
        err instanceof QueueClosedError
          ? `the bot closed the connection before bot-ready: ${err.why}`
          : `bot-ready not received within ${d.handshakeTimeoutMs}ms`;
      d.log(`handshake: failed: ${reason}`);
      return failure(err instanceof QueueClosedError ? err.kind : 'handshake_timeout', reason);
    }
  }

  /** Applies what the scenario asks of the bot; the located error when the bot cannot take its context. */
  configure(conn: ClientConnection): string | null {
    const { d } = this;
    const { configure, context } = d.plan;
    if (configure) {
      conn.send(d.messages.evalConfigure(configure));
      d.log(`send: eval-configure ${JSON.stringify(configure)}`);
    }
    const messages: Array<Record<string, unknown> & { role: string }> = (
      d.scenario.kind === 'script' ? d.scenario.context : []
    ).map((m) => ({
      role: String(m.role ?? 'user'),
      ...m,
    }));
    // The `context` way: the documents as one system message before the scenario's own context.
    if (d.plan.documents === 'context') messages.unshift({ role: 'system', content: documentsContext(this.documents) });
    if (context === 'eval-context') {
      conn.send(d.messages.evalContext(messages));
      d.log(`send: eval-context (${messages.length} messages)`);
    } else if (context === 'append-to-context') {
      const problem = appendToContextProblem(d.scenario, d.wire.codec, d.translator.botAbout);
      if (problem) {
        const text = formatProblems([problem]);
        d.log(`wire: ${text}`);
        return text;
      }
      for (const m of messages) conn.send(d.messages.appendToContext(m));
      d.log(
        `send: append-to-context × ${messages.length} (the bot predates Pipecat 1.0: appended to its context, ` +
          'not replacing it)',
      );
    }
    return null;
  }

  /** `--stop-bot`: the wire's way of ending the bot, or a note when there is none. */
  stop(conn: ClientConnection): void {
    const { d } = this;
    if (!conn.isOpen) return;
    switch (d.plan.stop) {
      case 'eval-cancel':
        conn.send(d.messages.evalCancel());
        d.log('send: eval-cancel');
        return;
      case 'disconnect-bot':
        conn.send(d.messages.disconnectBot());
        d.log('send: disconnect-bot');
        return;
      case 'none':
        d.log('stop: a bot without RTVI cannot be asked to stop; whoever started it must');
        return;
    }
  }
}

/** Why the documents' ack failed, in the words the run error uses. */
function ackFailure(reason: RequestFailure, error: string, waitMs: number): string {
  switch (reason) {
    case 'closed':
      return 'the bot closed the connection before acknowledging the documents';
    case 'refused':
      return `the bot refused the documents (${error})`;
    case 'protocol':
      return `the bot answered the documents with a malformed acknowledgement (${error})`;
    case 'aborted':
      // Reached only when the requests' signal ended but this control's did not: the caller rethrows its own abort.
      return `the run ended before the bot acknowledged the documents (${error})`;
    case 'timeout':
      return `the bot never acknowledged the documents (no server-response '${DOCUMENTS_MESSAGE}' within ${waitMs}ms)`;
  }
}
