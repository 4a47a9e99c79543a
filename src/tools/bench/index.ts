/**
 * `earshot bench`: one scenario run many times against a running bot (or
 * swept over barge-in offsets), its per-turn latencies summarized as
 * distributions and rendered as a table.
 */
export { runBench, planRuns, DEFAULT_BENCH_REPEAT, type BenchOptions, type BenchOutcome } from './bench.js';
export {
  summarizeBench,
  renderBenchReport,
  type BenchRun,
  type BenchReport,
  type BenchHeader,
  type BenchSweep,
  type MetricSummary,
  type SweepPoint,
  type SweepRunPoint,
} from './report.js';
export {
  parseSweepRange,
  sweepOffsets,
  bargeInTurnIndex,
  withInterruptOffset,
  MAX_SWEEP_POINTS,
  SweepRangeError,
  NoBargeInTurnError,
  type SweepRange,
} from './sweep.js';
export {
  parseConditionSweep,
  withConditionLevel,
  conditionPoints,
  MAX_CONDITION_LEVELS,
  type ConditionSweep,
  type ConditionPoint,
  type BenchConditionSweep,
} from './condition-sweep.js';
export { planConditionRuns } from './bench.js';
