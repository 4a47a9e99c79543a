import { sleepUntil } from '../../core/timers.js';
import type { Clock } from '../../core/clock.js';
import type { TimerDriver } from '../../core/timers.js';
import type { BotAudioBurst, DerivedTurnMetrics } from '../../metrics/index.js';
import type { Failure } from '../../results/types.js';

/**
 * The pause probe's verdict (earshot extension; Full-Duplex-Bench v1's pause
 * handling, arXiv:2503.04721): the caller stopped mid-sentence; did the bot
 * take the turn? Measured on the turn's timeline of the captured bot audio —
 * the audio the recording's bot channel holds — against the caller's voiced
 * span (which runs through the pause to the last word):
 *
 * - `takeover` = the bot's first audio onset after the caller began came
 *   before the caller's speech ended (it spoke into the pause, or over the rest);
 * - `response_gap_ms` = that onset − end of the caller's speech (Full-Duplex-Bench's
 *   response latency, signed: negative is overlap);
 * - `overlap_ms` = how much of the bot audio that began after the caller did
 *   played before the caller's speech ended (both talking at once).
 */
export interface TakeoverVerdict {
  failures: Failure[];
  metrics: { takeover: boolean | null; response_gap_ms: number | null; overlap_ms: number | null };
}

export interface TakeoverDeps {
  clock: Clock;
  timers: TimerDriver;
  snapshot: () => DerivedTurnMetrics | null;
  /** The turn's bot audio bursts so far (ms since session start). */
  bursts: () => readonly BotAudioBurst[];
  gone: () => boolean;
  signal: AbortSignal;
  /** Longest wait for the bot's onset to be measured. */
  waitMs: number;
}

const POLL_MS = 50;
/** The longest a pause turn's utterance is waited for (a minute of speech and pause). */
const MAX_UTTERANCE_WAIT_MS = 60_000;

async function until(
  deps: TakeoverDeps,
  deadline: number,
  ready: (d: DerivedTurnMetrics) => boolean,
): Promise<DerivedTurnMetrics | null> {
  let derived = deps.snapshot();
  while (derived && !ready(derived) && !deps.gone() && deps.clock.now() < deadline) {
    await sleepUntil(deps.timers, deps.clock.now() + POLL_MS, deps.signal);
    derived = deps.snapshot();
  }
  return derived;
}

export async function checkTakeover(
  turnIndex: number,
  expected: boolean | undefined,
  deps: TakeoverDeps,
): Promise<TakeoverVerdict> {
  // First the caller's whole utterance (the pause, then the rest) must have been spoken; then the bot's onset.
  const speaking = deps.clock.now() + MAX_UTTERANCE_WAIT_MS;
  let derived = await until(deps, speaking, (d) => d.metrics.user_speech_end_at_ms !== null);
  if (derived && derived.metrics.user_speech_end_at_ms !== null) {
    const from = derived.metrics.user_speech_start_at_ms ?? 0;
    derived = await until(deps, deps.clock.now() + deps.waitMs, () => deps.bursts().some((b) => b.onset_at_ms >= from));
  }
  const m = derived?.metrics;
  const start = m?.user_speech_start_at_ms ?? null;
  const end = m?.user_speech_end_at_ms ?? null;
  // The bot's first onset once the caller began: in the pause, over the rest, or after the end.
  const bursts = start === null ? [] : deps.bursts().filter((b) => b.onset_at_ms >= start);
  const onset = bursts[0]?.onset_at_ms ?? null;
  const takeover = end === null ? null : onset !== null && onset < end;
  const overlap =
    end === null
      ? null
      : bursts.reduce((sum, b) => sum + Math.max(0, Math.min(b.offset_at_ms ?? end, end) - b.onset_at_ms), 0);
  const gap = end !== null && onset !== null ? Math.round((onset - end) * 1000) / 1000 : null;
  const failures: Failure[] = [];
  if (expected !== undefined && takeover !== null && takeover !== expected) {
    const reason = expected
      ? 'takeover: true, but the bot waited for the caller to finish: it did not take the turn in the pause'
      : "takeover: false, but the bot took the turn in the caller's pause (its audio began " +
        `${gap === null ? "during the caller's speech" : `${Math.abs(gap)}ms before the caller finished`})`;
    failures.push({ kind: 'takeover', turn_index: turnIndex, expectation_index: null, event: null, reason });
  } else if (expected !== undefined && takeover === null) {
    failures.push({
      kind: 'takeover',
      turn_index: turnIndex,
      expectation_index: null,
      event: null,
      reason: "takeover: the caller's speech was not measured, so whether the bot took the turn cannot be told",
    });
  }
  return {
    failures,
    metrics: {
      takeover,
      response_gap_ms: gap,
      overlap_ms: overlap === null ? null : Math.round(overlap * 1000) / 1000,
    },
  };
}
