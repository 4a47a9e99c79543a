import type { Clock } from '../../core/clock.js';
import { sleepUntil, type TimerDriver } from '../../core/timers.js';
import { checkLatency, type LatencyFailure, type TurnKind } from '../../metrics/index.js';
import { LATENCY_METRICS, type LatencyAssertions } from '../../scenario/index.js';
import type { TurnTimelines } from '../../session/index.js';

/**
 * A turn's `latency:` verdict.
 *
 * WHEN IT IS TAKEN. A turn's metrics are only final once its window has closed
 * (the next turn's send) and the bot's audio in it has stopped, but a scenario
 * has to know whether a turn failed before it moves on (`stop_on_failure`). So
 * the verdict is taken when the turn's expectations are done, on a snapshot of
 * the live turn, after waiting (at most `waitMs`, default 5 s, and never once
 * the connection is gone) until every metric the block bounds can be measured
 * — the reply's onset for `voice_to_voice_ms`, the interrupted audio's offset
 * for `interruption_ms`, and so on. A `latency_exceeded` failure is then a
 * failure of that turn like any other: it stops the scenario unless
 * `stop_on_failure: false`. The metrics written to the result are the final
 * ones, derived when the turn settles; they differ from the verdict's snapshot
 * only if the bot spoke again later in the same window (a longer
 * `bot_speech_ms`).
 */
export interface LatencyWait {
  clock: Clock;
  timers: TimerDriver;
  /** Longest wait for the bounded metrics to become measurable. */
  waitMs: number;
  /** The connection has ended: waiting for more cannot help. */
  gone: () => boolean;
  signal: AbortSignal;
}

export interface LatencyVerdict {
  failures: LatencyFailure[];
  waitedMs: number;
}

const POLL_MS = 50;

export async function awaitLatencyVerdict(
  timeline: TurnTimelines,
  index: number,
  assertions: LatencyAssertions | undefined,
  wait: LatencyWait,
): Promise<LatencyVerdict> {
  const kind = timeline.kindOf(index);
  if (!assertions || kind === undefined) return { failures: [], waitedMs: 0 };
  // What the kind of turn rules out (no user speech: no voice-to-voice) is not waited for.
  const bounded = LATENCY_METRICS.filter(
    (m) => (assertions[m]?.max !== undefined || assertions[m]?.min !== undefined) && possible(kind, m),
  );
  const started = wait.clock.now();
  const deadline = started + wait.waitMs;
  for (;;) {
    const derived = timeline.snapshot(index);
    if (!derived) return { failures: [], waitedMs: 0 };
    const ready = bounded.every((m) => derived.metrics[m] !== null);
    if (ready || wait.gone() || wait.clock.now() >= deadline) {
      const waitedMs = Math.round(wait.clock.now() - started);
      return { failures: checkLatency(index, assertions, derived), waitedMs };
    }
    await sleepUntil(wait.timers, wait.clock.now() + POLL_MS, wait.signal);
  }
}

function possible(kind: TurnKind, metric: (typeof LATENCY_METRICS)[number]): boolean {
  if (metric === 'voice_to_voice_ms' || metric === 'interruption_ms') return kind === 'audio';
  if (metric === 'llm_ttfb_ms' || metric === 'first_token_ms') return kind !== 'none';
  return true;
}
