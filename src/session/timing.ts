import type { Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';
import {
  deriveTurnMetrics,
  pipecatTiming,
  TimelineBuilder,
  type BotAudioBurst,
  type PipecatTiming,
  type DerivedTurnMetrics,
  type RtviMetricsInput,
  type TimelineEventName,
  type TurnKind,
  type TurnTimeline,
} from '../metrics/index.js';
import type { TurnResult } from '../results/types.js';
import type { TurnTimelines } from './driver.js';

/**
 * The session's side of the per-turn timeline (src/metrics): it feeds the
 * builder as things happen, shows a driver each live turn as it stands (its
 * verdicts wait on these: `src/drivers/probes/`), and hands out each turn's
 * final metrics once the turn has settled.
 *
 * Times here are ms since the session start. The timeline's own checks throw
 * only on a harness bug; such an error is reported through `onError` and
 * never ends a session.
 */
export interface SessionTimingOptions {
  clock: Clock;
  t0Ms: number;
  onError: (message: string) => void;
  /** How long a turn stays open for late reports after its window closed (the builder's `settleMs`). */
  settleMs?: number;
  /** Pauses in the bot's speech bridged while its speaking window is open (derive.ts; default 1000 ms). */
  bargeInGapMs?: number;
}

export class SessionTiming implements TurnTimelines {
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

  /** How turn `index`'s input went out, once it was sent. */
  kindOf(index: number): TurnKind | undefined {
    return this.kinds.get(index);
  }

  /** Turn `index`'s bot audio bursts so far (the backchannel probe reads them). */
  bursts(index: number): readonly BotAudioBurst[] {
    return this.builder.peek(index)?.bot_audio ?? [];
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
