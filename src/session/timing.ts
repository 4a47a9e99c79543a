import type { Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';
import { sleepUntil, type TimerDriver } from '../core/timers.js';
import {
  checkLatency,
  deriveTurnMetrics,
  pipecatTiming,
  TimelineBuilder,
  type BotAudioBurst,
  type PipecatTiming,
  type DerivedTurnMetrics,
  type LatencyFailure,
  type RtviMetricsInput,
  type TimelineEventName,
  type TurnKind,
  type TurnTimeline,
} from '../metrics/index.js';
import type { TurnResult } from '../results/types.js';
import { LATENCY_METRICS, type LatencyAssertions } from '../scenario/index.js';
import { checkTakeover, type TakeoverVerdict } from './takeover.js';

/**
 * The session's side of the per-turn timeline (src/metrics): it feeds the
 * builder as things happen, hands out each turn's final metrics once the turn
 * has settled, and takes a turn's `latency:` verdict.
 *
 * WHEN A LATENCY VERDICT IS TAKEN. A turn's metrics are only final once its
 * window has closed (the next turn's send) and the bot's audio in it has
 * stopped, but a scenario has to know whether a turn failed before it moves on
 * (`stop_on_failure`). So the verdict is taken when the turn's expectations are
 * done, on a snapshot of the live turn, after waiting (at most
 * `latencyWaitMs`, default 5 s, and never once the connection is gone) until
 * every metric the block bounds can be measured — the reply's onset for
 * `voice_to_voice_ms`, the interrupted audio's offset for `interruption_ms`,
 * and so on. A `latency_exceeded` failure is then a failure of that turn like
 * any other: it stops the scenario unless `stop_on_failure: false`. The
 * metrics written to the result are the final ones, derived when the turn
 * settles; they differ from the verdict's snapshot only if the bot spoke again
 * later in the same window (a longer `bot_speech_ms`).
 *
 * Times here are ms since the session start. The timeline's own checks throw
 * only on a harness bug; such an error is reported through `onError` and
 * never ends a session.
 */
export interface SessionTimingOptions {
  clock: Clock;
  /** What the latency verdict's wait sleeps on (see `checkTurn`). */
  timers: TimerDriver;
  t0Ms: number;
  onError: (message: string) => void;
  /** Longest wait for asserted metrics to become measurable (default 5000 ms). */
  latencyWaitMs?: number;
  /** How long a turn stays open for late reports after its window closed (the builder's `settleMs`). */
  settleMs?: number;
  /** Pauses in the bot's speech bridged while its speaking window is open (derive.ts; default 1000 ms). */
  bargeInGapMs?: number;
}

export const DEFAULT_LATENCY_WAIT_MS = 5000;
const POLL_MS = 50;

export class SessionTiming {
  private readonly builder: TimelineBuilder;
  private readonly kinds = new Map<number, TurnKind>();
  private ended = false;
  private readonly derive: (t: TurnTimeline) => DerivedTurnMetrics;
  private readonly final = (tl: TurnTimeline): FinalTurnMetrics => ({ ...this.derive(tl), timing: pipecatTiming(tl) });

  constructor(private readonly opts: SessionTimingOptions) {
    this.builder = new TimelineBuilder({ settleMs: opts.settleMs });
    const derive = opts.bargeInGapMs === undefined ? {} : { bargeInGapMs: opts.bargeInGapMs };
    this.derive = (t) => deriveTurnMetrics(t, derive);
  }

  private get nowMs(): number {
    return this.opts.clock.now() - this.opts.t0Ms;
  }

  /** Opens turn `index`'s window at its send (the first frame's due time for speech). */
  beginTurn(index: number, sendAtMs: number, kind: TurnKind): void {
    if (this.guard('beginTurn', () => this.builder.beginTurn(index, sendAtMs, kind))) this.kinds.set(index, kind);
  }

  markUserSpeech(startAtMs: number, endAtMs: number): void {
    this.guard('markUserSpeech', () => this.builder.markUserSpeech(startAtMs, endAtMs));
  }

  event(name: TimelineEventName, atMs: number): void {
    this.guard('addEvent', () => this.builder.addEvent(name, atMs));
  }

  botMetrics(data: RtviMetricsInput, atMs: number): void {
    this.guard('addBotMetrics', () => this.builder.addBotMetrics(data, atMs));
  }

  /** Final metrics of the turns that have settled since the last call, with Pipecat's view of each (`timing`). */
  takeFinal(): FinalTurnMetrics[] {
    if (!this.ended) this.guard('advance', () => this.builder.advance(this.nowMs));
    return this.builder.takeCompleted().map(this.final);
  }

  /** Ends the timeline: every turn still open is final now. */
  end(): FinalTurnMetrics[] {
    if (!this.ended) {
      this.ended = true;
      this.guard('end', () => this.builder.end(Math.max(0, this.nowMs)));
    }
    return this.builder.takeCompleted().map(this.final);
  }

  /** Metrics of a live turn as they stand now. */
  snapshot(index: number): DerivedTurnMetrics | null {
    const tl = this.builder.peek(index);
    return tl ? this.derive(tl) : null;
  }

  /**
   * The turn's `latency:` verdict (see the class comment). `gone()` says the
   * connection has ended, so waiting for more cannot help.
   */
  async checkTurn(
    index: number,
    assertions: LatencyAssertions | undefined,
    gone: () => boolean,
    signal: AbortSignal,
  ): Promise<{ failures: LatencyFailure[]; waitedMs: number }> {
    const kind = this.kinds.get(index);
    if (!assertions || kind === undefined) return { failures: [], waitedMs: 0 };
    // What the kind of turn rules out (no user speech: no voice-to-voice) is not waited for.
    const bounded = LATENCY_METRICS.filter(
      (m) => (assertions[m]?.max !== undefined || assertions[m]?.min !== undefined) && possible(kind, m),
    );
    const started = this.opts.clock.now();
    const deadline = started + (this.opts.latencyWaitMs ?? DEFAULT_LATENCY_WAIT_MS);
    for (;;) {
      const derived = this.snapshot(index);
      if (!derived) return { failures: [], waitedMs: 0 };
      const ready = bounded.every((m) => derived.metrics[m] !== null);
      if (ready || gone() || this.opts.clock.now() >= deadline) {
        return {
          failures: checkLatency(index, assertions, derived),
          waitedMs: Math.round(this.opts.clock.now() - started),
        };
      }
      await sleepUntil(this.opts.timers, this.opts.clock.now() + POLL_MS, signal);
    }
  }

  /** Turn `index`'s bot audio bursts so far (the backchannel probe reads them). */
  bursts(index: number): readonly BotAudioBurst[] {
    return this.builder.peek(index)?.bot_audio ?? [];
  }

  /** A pause turn's `takeover` verdict (takeover.ts), after waiting (bounded) for the bot's onset. */
  checkTakeover(
    index: number,
    expected: boolean | undefined,
    gone: () => boolean,
    signal: AbortSignal,
  ): Promise<TakeoverVerdict> {
    const waitMs = this.opts.latencyWaitMs ?? DEFAULT_LATENCY_WAIT_MS;
    return checkTakeover(index, expected, {
      clock: this.opts.clock,
      timers: this.opts.timers,
      snapshot: () => this.snapshot(index),
      bursts: () => this.bursts(index),
      gone,
      signal,
      waitMs,
    });
  }

  private guard(method: string, fn: () => void): boolean {
    try {
      fn();
      return true;
    } catch (err) {
      this.opts.onError(`timeline: ${method} ignored: ${errorMessage(err)}`);
      return false;
    }
  }
}

/** Writes settled turns' metrics, Pipecat timing and notes onto their result records. */
export function applyFinal(turns: TurnResult[], derived: readonly FinalTurnMetrics[]): void {
  for (const d of derived) {
    const record = turns[d.turn_index];
    if (!record) continue;
    // The timeline's metrics replace their earlier values; what a driver measured itself (user_wer, bot_wer) stays.
    record.metrics = { ...record.metrics, ...d.metrics };
    record.timing = d.timing;
    for (const note of d.notes) addTurnNote(turns, d.turn_index, note);
  }
}

/** Adds a note to a turn's record, once. */
export function addTurnNote(turns: TurnResult[], turnIndex: number, note: string): void {
  const record = turns[turnIndex];
  if (!record) return;
  record.notes ??= [];
  const notes = record.notes;
  if (!notes.includes(note)) notes.push(note);
}

/** A settled turn's metrics: earshot's, and Pipecat's `EvalTurnTiming` of the same timeline. */
export type FinalTurnMetrics = DerivedTurnMetrics & { timing: PipecatTiming };

function possible(kind: TurnKind, metric: (typeof LATENCY_METRICS)[number]): boolean {
  if (metric === 'voice_to_voice_ms' || metric === 'interruption_ms') return kind === 'audio';
  if (metric === 'llm_ttfb_ms' || metric === 'first_token_ms') return kind !== 'none';
  return true;
}
