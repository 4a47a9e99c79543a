import { SUCCESS_SIGNALS, type SuccessSignal } from '../scenario/nemo/types.js';
import { round3 } from './stats.js';
import type { ScenarioResult } from './types.js';

/**
 * The run's NeMo rates (NeMo's `all_summary`): the composite success rate over the scenarios that scored, where a run
 * below `--min-agent-turns` counts as failed and an `'N/A'` one is left out; the task success rate (the same without
 * `clean_exit`); and each signal's own rate, which skips the short runs (a scenario that never started is a defect,
 * not evidence about a signal). Absent from summaries of runs without NeMo scenarios.
 */

export interface NemoSignalRate {
  passed: number;
  failed: number;
  not_applicable: number;
  /** passed / (passed + failed); null when none had a value. */
  rate: number | null;
}

export interface NemoRunSummary {
  composite: {
    successful: number;
    /** Short runs included. */
    failed: number;
    not_applicable: number;
    /** Runs below `--min-agent-turns`. */
    short: number;
    /** successful / (successful + failed); null when nothing scored. */
    rate: number | null;
  };
  task_success_rate: number | null;
  /** Metric key → its rate, over every run that computed it (whitelisted or not), short runs skipped. */
  signals: Partial<Record<SuccessSignal, NemoSignalRate>>;
}

const rate = (passed: number, failed: number): number | null =>
  passed + failed === 0 ? null : round3(passed / (passed + failed));

/** `results`: one per identity (`latestAttempts`). */
export function nemoSummary(results: readonly ScenarioResult[]): NemoRunSummary | undefined {
  const outcomes = results.flatMap((r) => (r.simulation?.nemo ? [r.simulation.nemo] : []));
  if (outcomes.length === 0) return undefined;
  const composite = { successful: 0, failed: 0, not_applicable: 0, short: 0, rate: null as number | null };
  const task = { passed: 0, failed: 0 };
  const signals = new Map<SuccessSignal, NemoSignalRate>();
  for (const o of outcomes) {
    if (o.below_min_agent_turns) composite.short += 1;
    if (o.below_min_agent_turns || o.is_successful === false) composite.failed += 1;
    else if (o.is_successful === true) composite.successful += 1;
    else composite.not_applicable += 1;
    if (o.below_min_agent_turns || o.is_task_successful === false) task.failed += 1;
    else if (o.is_task_successful === true) task.passed += 1;
    if (o.below_min_agent_turns) continue;
    for (const s of o.signals) {
      const tally = signals.get(s.signal) ?? { passed: 0, failed: 0, not_applicable: 0, rate: null };
      if (s.value === true) tally.passed += 1;
      else if (s.value === false) tally.failed += 1;
      else tally.not_applicable += 1;
      signals.set(s.signal, tally);
    }
  }
  composite.rate = rate(composite.successful, composite.failed);
  const bySignal: NemoRunSummary['signals'] = {};
  for (const key of SUCCESS_SIGNALS) {
    const tally = signals.get(key);
    if (tally) bySignal[key] = { ...tally, rate: rate(tally.passed, tally.failed) };
  }
  return { composite, task_success_rate: rate(task.passed, task.failed), signals: bySignal };
}
