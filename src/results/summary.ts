import { wilsonInterval } from '../metrics/index.js';
import { compareResults, resultKey, resultIdentity, scenarioKey } from './identity.js';
import { distribution, round3, sortedRecord, type DistributionStats } from './stats.js';
import { LATENCY_METRICS, type LatencyMetricName } from './turn-metrics.js';
import type { ScenarioResult, ScenarioStatus } from './types.js';
import type { ScenarioSeverity } from '../scenario/types.js';
import { summaryGroups, type SummaryGroups } from './summary-groups.js';
import { nemoSummary, type NemoRunSummary } from './nemo-summary.js';

/**
 * A scenario's verdict across its repeats: all passed, none passed, some passed
 * (flaky), every run skipped, or no run conclusive (every one that was not
 * skipped inconclusive). Skipped and inconclusive runs are left out of the rest.
 */
export type Outcome = 'passed' | 'failed' | 'flaky' | 'inconclusive' | 'skipped';

export interface TurnOutcome {
  index: number;
  runs: number;
  passed: number;
  failed: number;
  /** Runs in which the turn was inconclusive: neither a pass nor a failure. */
  inconclusive: number;
  not_run: number;
  /** passed / (passed + failed); null when the turn never ran (or was only inconclusive). */
  pass_rate: number | null;
  /** Latency distributions across repeats, for the metrics that were measured. */
  metrics: Partial<Record<LatencyMetricName, DistributionStats>>;
  /** Barge-in turns: how many runs the bot yielded / did not yield. */
  yielded?: { yes: number; no: number };
}

export interface ScenarioOutcome {
  name: string;
  file: string;
  bot?: string;
  /** The scenario's `category:` / `severity:` (its latest run's), when it has them. */
  category?: string;
  severity?: ScenarioSeverity;
  outcome: Outcome;
  /**
   * Whether this scenario counts as a success: pass rate ≥ `pass_threshold` when one is set,
   * else every conclusive run passed. A flaky scenario without a threshold is not ok; one
   * whose runs were all skipped or inconclusive is (nothing failed).
   */
  ok: boolean;
  runs: number;
  passed: number;
  failed: number;
  errored: number;
  skipped: number;
  /** Runs whose verdict was inconclusive: left out of the pass rate, like skipped ones. */
  inconclusive: number;
  /** passed / (runs − skipped − inconclusive); null when no run was conclusive. */
  pass_rate: number | null;
  /** The pass rate's Wilson 95 % interval (what `--repeat N` can tell about it); absent when every run was skipped. */
  pass_rate_ci95?: { low: number; high: number };
  pass_threshold?: number;
  failure_kinds: Record<string, number>;
  duration_ms: DistributionStats | null;
  turns: TurnOutcome[];
}

/** `categories`, `dimensions` and `severities` (summary-groups.ts) are there when some result has them. */
export interface RunSummary extends SummaryGroups {
  version: 1;
  /**
   * Every scenario ok (see ScenarioOutcome.ok): nothing failed. The exit status follows it and `counts.inconclusive`
   * (`exitCodeOf`).
   */
  ok: boolean;
  /** Result lines counted (after superseded attempts are dropped). */
  results: number;
  /** Earlier attempts of a run that a later attempt replaced, left out of every count. */
  superseded: number;
  counts: Record<ScenarioStatus, number>;
  /** passed / (results − skipped − inconclusive); null when there is nothing to rate. */
  pass_rate: number | null;
  outcomes: Record<Outcome, number>;
  /** One entry per (file, name, bot), sorted by file, name, then bot. */
  scenarios: ScenarioOutcome[];
  /** Failure kind → number of failures, over all results. */
  failure_kinds: Record<string, number>;
  turns: { total: number; passed: number; failed: number; inconclusive: number; not_run: number };
  /** Distribution of scenario run durations. */
  duration_ms: DistributionStats | null;
  /** Wall time of the whole run, when the caller measured it. */
  wall_ms?: number;
  /** Wall-clock start of the run, ISO 8601, when known. */
  started_at?: string;
  /** The shards (`I/N`) a merged summary was built from. */
  shards?: string[];
  /** Scenario runs the run planned, when it knows; more than `results` means some never ran. */
  planned?: number;
  /** The run was stopped (SIGINT/SIGTERM) before every planned scenario ran: never ok. */
  interrupted?: boolean;
  /** NeMo scenarios' composite, task and per-signal rates (nemo-summary.ts); absent when the run had none. */
  nemo?: NemoRunSummary;
}

export interface SummaryOptions {
  wall_ms?: number;
  started_at?: string;
  shards?: string[];
  planned?: number;
  interrupted?: boolean;
}

/** Keeps one result per identity: the highest attempt, and of equal attempts the later line. */
export function latestAttempts(results: readonly ScenarioResult[]): ScenarioResult[] {
  const byKey = new Map<string, ScenarioResult>();
  for (const r of results) {
    const key = resultKey(r);
    const prev = byKey.get(key);
    if (!prev || (r.run?.attempt ?? 1) >= (prev.run?.attempt ?? 1)) byKey.set(key, r);
  }
  return [...byKey.values()].sort(compareResults);
}

export function summarize(all: readonly ScenarioResult[], options: SummaryOptions = {}): RunSummary {
  const results = latestAttempts(all);
  const counts: Record<ScenarioStatus, number> = { passed: 0, failed: 0, inconclusive: 0, skipped: 0, error: 0 };
  const kinds = new Map<string, number>();
  const turns = { total: 0, passed: 0, failed: 0, inconclusive: 0, not_run: 0 };
  const groups = new Map<string, ScenarioResult[]>();
  for (const r of results) {
    counts[r.status] += 1;
    for (const f of r.failures) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
    for (const t of r.turns) {
      turns.total += 1;
      turns[t.status] += 1;
    }
    const key = scenarioKey(r);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  const scenarios = [...groups.values()].map(outcomeOf);
  const outcomes: Record<Outcome, number> = { passed: 0, failed: 0, flaky: 0, inconclusive: 0, skipped: 0 };
  for (const s of scenarios) outcomes[s.outcome] += 1;
  const summary: RunSummary = {
    version: 1,
    ok: scenarios.every((s) => s.ok),
    results: results.length,
    superseded: all.length - results.length,
    counts,
    pass_rate: rate(counts.passed, results.length - counts.skipped - counts.inconclusive),
    outcomes,
    scenarios,
    failure_kinds: sortedRecord(kinds),
    turns,
    duration_ms: distribution(results.map((r) => r.duration_ms)),
    ...summaryGroups(results),
  };
  const nemo = nemoSummary(results);
  if (nemo) summary.nemo = nemo;
  if (options.wall_ms !== undefined) summary.wall_ms = round3(options.wall_ms);
  if (options.started_at !== undefined) summary.started_at = options.started_at;
  if (options.shards !== undefined) summary.shards = [...options.shards].sort();
  if (options.planned !== undefined) summary.planned = options.planned;
  if (options.interrupted) {
    // Scenarios were left unrun: not ok, whatever the finished ones say.
    summary.interrupted = true;
    summary.ok = false;
  }
  return summary;
}

/** `runs` are one (file, name, bot)'s results, already in repeat order. */
function outcomeOf(runs: ScenarioResult[]): ScenarioOutcome {
  const last = runs[runs.length - 1];
  const id = resultIdentity(last);
  const n = { passed: 0, failed: 0, inconclusive: 0, error: 0, skipped: 0 };
  const kinds = new Map<string, number>();
  for (const r of runs) {
    n[r.status] += 1;
    for (const f of r.failures) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);
  }
  const rated = runs.length - n.skipped - n.inconclusive;
  const passRate = rate(n.passed, rated);
  const outcome: Outcome =
    rated === 0
      ? n.inconclusive > 0
        ? 'inconclusive'
        : 'skipped'
      : n.passed === rated
        ? 'passed'
        : n.passed === 0
          ? 'failed'
          : 'flaky';
  const threshold = runs.find((r) => r.run?.pass_threshold !== undefined)?.run?.pass_threshold;
  const ok =
    outcome === 'skipped' ||
    outcome === 'inconclusive' ||
    (threshold !== undefined ? (passRate ?? 0) >= threshold : outcome === 'passed');
  const result: ScenarioOutcome = {
    name: last.name,
    file: id.file,
    outcome,
    ok,
    runs: runs.length,
    passed: n.passed,
    failed: n.failed,
    errored: n.error,
    skipped: n.skipped,
    inconclusive: n.inconclusive,
    pass_rate: passRate,
    failure_kinds: sortedRecord(kinds),
    duration_ms: distribution(runs.map((r) => r.duration_ms)),
    turns: turnOutcomes(runs),
  };
  if (rated > 0) {
    const w = wilsonInterval(n.passed, rated);
    result.pass_rate_ci95 = { low: round3(w.low), high: round3(w.high) };
  }
  if (id.bot) result.bot = id.bot;
  if (last.category !== undefined) result.category = last.category;
  if (last.severity !== undefined) result.severity = last.severity;
  if (threshold !== undefined) result.pass_threshold = threshold;
  return result;
}

function turnOutcomes(runs: ScenarioResult[]): TurnOutcome[] {
  const count = Math.max(0, ...runs.map((r) => r.turns.length));
  const out: TurnOutcome[] = [];
  for (let index = 0; index < count; index++) {
    const turns = runs.flatMap((r) => r.turns.filter((t) => t.index === index));
    const passed = turns.filter((t) => t.status === 'passed').length;
    const failed = turns.filter((t) => t.status === 'failed').length;
    const inconclusive = turns.filter((t) => t.status === 'inconclusive').length;
    const metrics: TurnOutcome['metrics'] = {};
    for (const name of LATENCY_METRICS) {
      const values = turns.flatMap((t) => {
        const v = t.metrics?.[name];
        return typeof v === 'number' ? [v] : [];
      });
      const d = distribution(values);
      if (d) metrics[name] = d;
    }
    const entry: TurnOutcome = {
      index,
      runs: turns.length,
      passed,
      failed,
      inconclusive,
      not_run: turns.length - passed - failed - inconclusive,
      pass_rate: rate(passed, passed + failed),
      metrics,
    };
    const yields = turns.map((t) => t.metrics?.yielded).filter((y): y is boolean => typeof y === 'boolean');
    if (yields.length > 0) entry.yielded = { yes: yields.filter(Boolean).length, no: yields.filter((y) => !y).length };
    out.push(entry);
  }
  return out;
}

/**
 * The exit status a run's summary calls for: 1 when anything failed (or the run
 * was interrupted), else 3 when some verdict was inconclusive, else 0.
 */
export function exitCodeOf(summary: Pick<RunSummary, 'ok' | 'counts'>): 0 | 1 | 3 {
  if (!summary.ok) return 1;
  return summary.counts.inconclusive > 0 ? 3 : 0;
}

function rate(part: number, whole: number): number | null {
  return whole > 0 ? round3(part / whole) : null;
}
