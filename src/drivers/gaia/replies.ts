import { DeadlineError, QueueClosedError } from '../../events/index.js';
import type { EarshotEvent } from '../../results/events.js';
import type { GaiaCallSeen, SimulationEntry } from '../../results/index.js';
import type { DriverRuntime } from '../../session/index.js';
import { BotTurns } from '../simulation/bot-turns.js';
import { recordCallEvent } from '../call-entries.js';

/** After a finished reply, how long the bot must stay quiet for the reply to count as whole. */
export const REPLY_SETTLE_MS = 1500;
/** Before the first turn: how long a silent bot is given to start a greeting, and a greeting to finish. */
export const GREETING_START_MS = 3000;
export const GREETING_MAX_MS = 15_000;

export interface Collected {
  /** The finished replies joined; empty when the bot said nothing. */
  reply: string;
  calls: GaiaCallSeen[];
  /** The deadline came before any finished reply. */
  timedOut: boolean;
  /** The stream ended (the bot hung up, or broke the protocol). */
  closed?: QueueClosedError;
}

/**
 * Reads the bot's side of one GAIA turn: its finished replies (bot-turns.ts: `llm_response` in text, the
 * transcribed `response` in audio, held across function calls) and the calls it reported, until it has been quiet
 * for the settle window after a reply (and is not speaking), or the turn's deadline. A reply in several pieces
 * ("Let me check." · call · "It was $14.2 million.") is one reply. Every event also goes into the transcript.
 */
export class ReplyReader {
  private readonly turns: BotTurns;
  private readonly replyEvent: 'response' | 'llm_response';

  constructor(
    private readonly rt: DriverRuntime,
    audio: boolean,
    private readonly transcript: SimulationEntry[],
    private readonly settleMs = REPLY_SETTLE_MS,
  ) {
    this.turns = new BotTurns(audio);
    this.replyEvent = audio ? 'response' : 'llm_response';
  }

  /**
   * Collects until `untilMs` (clock time) at the latest. `firstEventMs`: give up early when nothing at all arrives
   * within it (a greeting the bot may not have).
   */
  async collect(untilMs: number, firstEventMs?: number): Promise<Collected> {
    const { rt } = this;
    const now = (): number => rt.time.clock.now();
    const started = now();
    const parts: string[] = [];
    const calls: GaiaCallSeen[] = [];
    let anyEvent = false;
    // Reply text seen, finished or held (a call in progress that never reports stopping still ends in the window).
    let replied = false;
    let lastActivity = started;
    for (;;) {
      const settleAt = replied ? lastActivity + this.settleMs : Infinity;
      const silentAt = !anyEvent && firstEventMs !== undefined ? started + firstEventMs : Infinity;
      const deadline = Math.min(untilMs, settleAt, silentAt);
      let event: EarshotEvent;
      try {
        event = await rt.stream.next(() => true, deadline);
      } catch (err) {
        if (err instanceof QueueClosedError) return this.done(parts, calls, err);
        if (!(err instanceof DeadlineError)) throw err;
        // Still speaking when the window closed: the rest of the reply is on its way (the turn's deadline bounds it).
        if (now() < untilMs && replied && rt.stream.speaking) {
          lastActivity = now();
          continue;
        }
        return this.done(parts, calls);
      }
      anyEvent = true;
      lastActivity = now();
      if ((event.name === 'response' || event.name === 'llm_response') && event.name === this.replyEvent)
        replied ||= event.text.trim() !== '';
      this.record(event, calls);
      const said = this.turns.observe(event);
      if (said !== null) {
        parts.push(said);
        this.transcript.push({ kind: 'bot', at_ms: Math.round(event.at_ms), text: said });
      }
    }
  }

  private done(parts: string[], calls: GaiaCallSeen[], closed?: QueueClosedError): Collected {
    const rest = this.turns.flush();
    if (rest !== null) {
      parts.push(rest);
      this.transcript.push({
        kind: 'bot',
        at_ms: Math.round(this.rt.time.clock.now() - this.rt.time.t0Ms),
        text: rest,
      });
    }
    return { reply: parts.join(' '), calls, timedOut: parts.length === 0, ...(closed ? { closed } : {}) };
  }

  private record(event: EarshotEvent, calls: GaiaCallSeen[]): void {
    recordCallEvent(this.transcript, event);
    if (event.name === 'function_call') {
      const call: GaiaCallSeen = {};
      if (event.function_name !== undefined) call.name = event.function_name;
      if (event.args !== undefined) call.args = event.args;
      calls.push(call);
    } else if (event.name === 'function_call_stopped' && event.cancelled) {
      // The latest call of that name still standing is the one cancelled.
      const call = [...calls].reverse().find((c) => !c.cancelled && c.name === event.function_name);
      if (call) call.cancelled = true;
    }
  }
}
