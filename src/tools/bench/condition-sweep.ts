import { UsageError } from '../../core/errors.js';
import { latencyStats, type LatencyStats } from '../../metrics/index.js';
import type { ScenarioResult } from '../../results/index.js';
import {
  applyConditionOverrides,
  parseConditionFlags,
  type ConditionOverrides,
  type Scenario,
} from '../../scenario/index.js';

/**
 * `earshot bench --sweep-condition snr=30,20,10,5`: each scenario rerun at
 * every level of one channel condition (earshot extension), to draw how the
 * bot's pass rate and latency degrade with the line: the condition curve, as
 * `--sweep-interrupt` draws the yield curve. `snr` is `noise.snr_db` (white
 * noise unless the scenario names another), `loss` is `loss.rate`; any numeric
 * `--condition` key works too (`gain.gain_db=0,12,24`).
 */
export interface ConditionSweep {
  /** What was written before `=` (`snr`). */
  name: string;
  /** The condition key it sets (`noise.snr_db`). */
  key: string;
  values: number[];
}

const ALIASES: Record<string, string> = {
  snr: 'noise.snr_db',
  loss: 'loss.rate',
  rate: 'speaking_rate.factor',
  gain: 'gain.gain_db',
};
const NUMERIC_KEYS = [
  'noise.snr_db',
  'loss.rate',
  'loss.burst_ms',
  'gain.gain_db',
  'gain.clip_dbfs',
  'speaking_rate.factor',
];
export const MAX_CONDITION_LEVELS = 100;

/** Parses `NAME=V1,V2,...`; throws a UsageError naming the bad part. */
export function parseConditionSweep(value: string): ConditionSweep {
  const eq = value.indexOf('=');
  const name = eq > 0 ? value.slice(0, eq).trim() : '';
  const key = ALIASES[name] ?? name;
  if (!NUMERIC_KEYS.includes(key)) {
    throw new UsageError(
      `--sweep-condition ${value}: expected NAME=V1,V2,... ` +
        `with NAME one of ${[...Object.keys(ALIASES), ...NUMERIC_KEYS].join(', ')}`,
    );
  }
  const parts = value
    .slice(eq + 1)
    .split(',')
    .map((p) => p.trim());
  if (parts.length === 0 || parts.some((p) => p === ''))
    throw new UsageError(`--sweep-condition ${value}: list the levels, e.g. snr=30,20,10,5`);
  if (parts.length > MAX_CONDITION_LEVELS)
    throw new UsageError(`--sweep-condition ${value}: ${parts.length} levels; at most ${MAX_CONDITION_LEVELS}`);
  // Each level is checked as `--condition` checks it (range, number).
  for (const p of parts) {
    try {
      parseConditionFlags([`${key}=${p}`]);
    } catch (err) {
      throw new UsageError(
        `--sweep-condition ${value}: level ${JSON.stringify(p)}: ` +
          `${err instanceof Error ? err.message.replace(/^--condition [^:]+: /, '') : String(err)}`,
      );
    }
  }
  const values = parts.map(Number);
  if (new Set(values).size !== values.length)
    throw new UsageError(`--sweep-condition ${value}: a level is listed twice`);
  return { name, key, values };
}

/**
 * A copy of the scenario at one level: the condition set on the scenario and on every turn that has its own conditions.
 */
export function withConditionLevel(scenario: Scenario, sweep: ConditionSweep, level: number): Scenario {
  if (scenario.user.modality !== 'audio') {
    throw new UsageError(
      `${scenario.file}: --sweep-condition degrades the caller's audio; scenario ${scenario.name} types its turns ` +
        `(user.modality: text)`,
    );
  }
  const overrides = parseConditionFlags([`${sweep.key}=${level}`]) as ConditionOverrides;
  const at = (c: Scenario['conditions']): Scenario['conditions'] => applyConditionOverrides(c, overrides, undefined);
  return {
    ...scenario,
    conditions: at(scenario.conditions),
    turns: scenario.turns.map((t) => (t.conditions ? { ...t, conditions: at(t.conditions) } : t)),
  };
}

export interface ConditionPoint {
  level: number;
  runs: number;
  passed: number;
  /** passed / conclusive runs (inconclusive ones left out, as everywhere); null when none was conclusive. */
  pass_rate: number | null;
  inconclusive: number;
  voice_to_voice_ms: LatencyStats | null;
  /** The bot's own transcription of the caller against `user:` (user_wer), where measured. */
  user_wer: LatencyStats | null;
}

export interface BenchConditionSweep {
  name: string;
  key: string;
  points: ConditionPoint[];
}

/**
 * The condition curve: per level (in the order given), pass rate, voice-to-voice latency and the bot's word error rate.
 */
export function conditionPoints(
  runs: ReadonlyArray<{ level?: number; result: ScenarioResult }>,
  sweep: ConditionSweep,
): BenchConditionSweep {
  const points = sweep.values.map((level): ConditionPoint => {
    const group = runs.filter((r) => r.level === level).map((r) => r.result);
    const passed = group.filter((r) => r.status === 'passed').length;
    const inconclusive = group.filter((r) => r.status === 'inconclusive').length;
    const conclusive = group.length - inconclusive;
    const turns = group.flatMap((r) => r.turns);
    return {
      level,
      runs: group.length,
      passed,
      pass_rate: conclusive ? Math.round((passed / conclusive) * 10_000) / 10_000 : null,
      inconclusive,
      voice_to_voice_ms: latencyStats(turns.map((t) => t.metrics?.voice_to_voice_ms)),
      user_wer: latencyStats(turns.map((t) => t.metrics?.user_wer)),
    };
  });
  return { name: sweep.name, key: sweep.key, points };
}

/** The condition curve as text lines (the table drawer is the report's). */
export function renderConditionCurve(
  s: BenchConditionSweep,
  table: (head: string[], body: string[][]) => string[],
): string[] {
  const f = (v: number | undefined): string => (v === undefined ? '-' : v.toFixed(1));
  return [
    `condition curve (${s.name === s.key ? s.key : `${s.name}: ${s.key}`}):`,
    ...table(
      [s.key, 'runs', 'passed', 'pass_rate', 'v2v p50_ms', 'v2v p95_ms', 'user_wer p50'],
      s.points.map((p) => [
        String(p.level),
        String(p.runs),
        String(p.passed),
        p.pass_rate === null ? '-' : `${(p.pass_rate * 100).toFixed(1)}%`,
        f(p.voice_to_voice_ms?.p50),
        f(p.voice_to_voice_ms?.p95),
        p.user_wer ? p.user_wer.p50.toFixed(3) : '-',
      ]),
    ).map((l) => `  ${l}`),
  ];
}
