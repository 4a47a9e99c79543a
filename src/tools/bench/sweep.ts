import { UsageError } from '../../core/errors.js';
import type { Scenario } from '../../scenario/index.js';

/**
 * `earshot bench --sweep-interrupt FROM:TO:STEP`: the barge-in turn of a
 * scenario rerun with its interrupt offset (`send_after.delay_ms`) set to each
 * value of a range, to draw the bot's yield curve.
 */

export interface SweepRange {
  from_ms: number;
  to_ms: number;
  step_ms: number;
}

/** More offsets than this is a typo, not a benchmark. */
export const MAX_SWEEP_POINTS = 1000;

/** A `--sweep-interrupt` value that is not `FROM:TO:STEP`, or whose numbers cannot make a range. */
export class SweepRangeError extends UsageError {
  constructor(
    readonly value: string,
    readonly problem: string,
  ) {
    super(`--sweep-interrupt ${JSON.stringify(value)}: ${problem}`);
    this.name = 'SweepRangeError';
  }
}

/** The scenario has no turn whose interrupt offset could be swept. */
export class NoBargeInTurnError extends UsageError {
  constructor(readonly file: string) {
    super(
      `${file}: --sweep-interrupt needs a barge-in turn: a turn whose send_after names an event ` +
        `(e.g. send_after: {event: bot_audio_started, delay_ms: 800}); this scenario has none`,
    );
    this.name = 'NoBargeInTurnError';
  }
}

/** `FROM:TO:STEP` in ms, e.g. `200:1200:200`: from ≥ 0, to ≥ from, step > 0. */
export function parseSweepRange(value: string): SweepRange {
  const parts = value.split(':');
  if (parts.length !== 3) throw new SweepRangeError(value, 'expected FROM:TO:STEP in milliseconds, e.g. 200:1200:200');
  const names = ['FROM', 'TO', 'STEP'];
  const nums = parts.map((p, i) => {
    const t = p.trim();
    const n = t === '' ? Number.NaN : Number(t);
    if (!Number.isFinite(n)) throw new SweepRangeError(value, `${names[i]} is not a number: ${JSON.stringify(p)}`);
    return n;
  });
  const [from_ms, to_ms, step_ms] = nums;
  if (from_ms < 0) throw new SweepRangeError(value, `FROM must be >= 0 ms, got ${from_ms}`);
  if (to_ms < from_ms) throw new SweepRangeError(value, `TO (${to_ms}) is below FROM (${from_ms})`);
  if (!(step_ms > 0)) throw new SweepRangeError(value, `STEP must be > 0 ms, got ${step_ms}`);
  const range = { from_ms, to_ms, step_ms };
  const count = Math.floor((to_ms - from_ms) / step_ms + 1e-9) + 1;
  if (count > MAX_SWEEP_POINTS) throw new SweepRangeError(value, `makes ${count} offsets; at most ${MAX_SWEEP_POINTS}`);
  return range;
}

/** Every offset from FROM up to TO (included when a step lands on it). */
export function sweepOffsets(range: SweepRange): number[] {
  const out: number[] = [];
  // Multiplying (not accumulating) keeps 0.1-ms steps from drifting; the epsilon keeps TO itself.
  for (let i = 0; ; i++) {
    const v = Math.round((range.from_ms + i * range.step_ms) * 1000) / 1000;
    if (v > range.to_ms + 1e-9) break;
    out.push(v);
  }
  return out;
}

/** Index of the first turn with an event-anchored `send_after` (the barge-in), or null. */
export function bargeInTurnIndex(scenario: Pick<Scenario, 'turns'>): number | null {
  const i = scenario.turns.findIndex((t) => t.send_after?.event !== undefined);
  return i < 0 ? null : i;
}

/** A copy of the scenario with turn `turnIndex`'s interrupt offset set to `offsetMs`. */
export function withInterruptOffset(scenario: Scenario, turnIndex: number, offsetMs: number): Scenario {
  const turn = scenario.turns[turnIndex];
  if (!turn?.send_after?.event) throw new NoBargeInTurnError(scenario.file);
  const turns = scenario.turns.map((t, i) =>
    i === turnIndex ? { ...t, send_after: { ...t.send_after!, delay_ms: offsetMs } } : t,
  );
  return { ...scenario, turns };
}
