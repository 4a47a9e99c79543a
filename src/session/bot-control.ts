import type { Clock } from '../core/clock.js';
import type { ClientConnection, ClientMessages } from '../protocol/index.js';
import { failure } from '../results/failure.js';
import type { Failure } from '../results/types.js';
import type { Runnable } from '../scenario/index.js';
import { DeadlineError, QueueClosedError, type EventQueue, type EventTranslator } from '../events/index.js';
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
  constructor(private readonly d: BotControlDeps) {}

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
    const messages = (d.scenario.kind === 'script' ? d.scenario.context : []).map((m) => ({
      role: String(m.role ?? 'user'),
      ...m,
    }));
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
