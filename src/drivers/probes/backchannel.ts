import type { Clock } from '../../core/clock.js';
import { sleepUntil, type TimerDriver } from '../../core/timers.js';
import { DEFAULT_YIELD_WINDOW_MS, type BotAudioBurst } from '../../metrics/index.js';
import type { Failure } from '../../results/types.js';
import type { Turn } from '../../scenario/index.js';

/**
 * The backchannel probe (earshot extension; Full-Duplex-Bench v1.5's user
 * backchannel scenario, arXiv:2507.23159): while the bot answers the turn,
 * `after_ms` after its audio starts, the caller murmurs ("right",
 * "mm-hmm"). A bot that holds the floor keeps talking; one that yields stops.
 * Measured on the turn's bot audio bursts (the audio the recording's bot
 * channel holds):
 *
 * - `backchannel_yielded` = the burst playing when the murmur began stopped
 *   within the yield window (2 s, as for a barge-in);
 * - `yield_ms` = murmur onset → that burst's end (v1.5's stop latency), when it yielded.
 */
export interface BackchannelVerdict {
  failures: Failure[];
  metrics: { backchannel_yielded: boolean | null; yield_ms: number | null };
}

export interface BackchannelDeps {
  clock: Clock;
  timers: TimerDriver;
  signal: AbortSignal;
  t0Ms: number;
  /** The turn's bot audio bursts so far, ms since session start. */
  bursts: () => readonly BotAudioBurst[];
  /** Plays the murmur; resolves with its first frame's due time (absolute). */
  murmur: (text: string) => Promise<number>;
  gone: () => boolean;
  log: (line: string) => void;
  windowMs?: number;
}

const POLL_MS = 50;
/** How long the bot's answer is waited for before the murmur is given up. */
const MAX_ONSET_WAIT_MS = 30_000;

export async function playBackchannel(
  turnIndex: number,
  turn: Pick<Turn, 'backchannel' | 'yielded'>,
  sentAtMs: number,
  deps: BackchannelDeps,
): Promise<BackchannelVerdict> {
  const spec = turn.backchannel!;
  const windowMs = deps.windowMs ?? DEFAULT_YIELD_WINDOW_MS;
  const now = (): number => deps.clock.now() - deps.t0Ms;
  const sent = sentAtMs - deps.t0Ms;
  const fail = (reason: string): BackchannelVerdict => ({
    failures:
      turn.yielded === undefined
        ? []
        : [{ kind: 'backchannel_yield', turn_index: turnIndex, expectation_index: null, event: null, reason }],
    metrics: { backchannel_yielded: null, yield_ms: null },
  });
  const onsetDeadline = now() + MAX_ONSET_WAIT_MS;
  let onset: number | undefined;
  for (;;) {
    onset = deps.bursts().find((b) => b.onset_at_ms >= sent)?.onset_at_ms;
    if (onset !== undefined) break;
    if (deps.gone() || now() >= onsetDeadline)
      return fail(`the bot's audio never started after the turn's input, so the backchannel was not played`);
    await sleepUntil(deps.timers, deps.clock.now() + POLL_MS, deps.signal);
  }
  await sleepUntil(deps.timers, deps.t0Ms + onset + spec.after_ms, deps.signal);
  const at = (await deps.murmur(spec.text)) - deps.t0Ms;
  deps.log(
    `backchannel: ${JSON.stringify(spec.text)} at ${at.toFixed(1)}ms (${(at - onset).toFixed(0)}ms into the ` +
      "bot's audio)",
  );
  const playing = (): BotAudioBurst | undefined =>
    deps.bursts().find((b) => b.onset_at_ms <= at && (b.offset_at_ms === null || b.offset_at_ms > at));
  if (!playing())
    return fail(
      `the bot had stopped talking before the backchannel began (${(at - onset).toFixed(0)}ms after its ` +
        'onset): nothing to yield',
    );
  // Wait for the window to pass (and the onset detector to place a stop within it).
  const until = deps.t0Ms + at + windowMs + 300;
  while (deps.clock.now() < until && !deps.gone()) {
    const b = playing();
    if (b?.offset_at_ms !== null && b?.offset_at_ms !== undefined) break;
    await sleepUntil(deps.timers, deps.clock.now() + POLL_MS, deps.signal);
  }
  const burst = deps.bursts().find((b) => b.onset_at_ms <= at && (b.offset_at_ms === null || b.offset_at_ms > at));
  const end = burst?.offset_at_ms ?? null;
  const yielded = end !== null && end - at <= windowMs;
  const metrics = { backchannel_yielded: yielded, yield_ms: yielded ? Math.round((end - at) * 1000) / 1000 : null };
  const failures: Failure[] = [];
  if (turn.yielded !== undefined && turn.yielded !== yielded) {
    const reason = turn.yielded
      ? `yielded: true, but the bot talked on over the backchannel (still speaking ${windowMs}ms after it began)`
      : `yielded: false, but the bot stopped talking ${metrics.yield_ms}ms after the caller's backchannel ` +
        `${JSON.stringify(spec.text)}`;
    failures.push({ kind: 'backchannel_yield', turn_index: turnIndex, expectation_index: null, event: null, reason });
  }
  return { failures, metrics };
}
