export * from './types.js';
export * from './events.js';
export * from './hearing.js';
export * from './simulation.js';
export * from './gaia.js';
export * from './nemo.js';
export * from './turn-metrics.js';
export * from './identity.js';
export * from './errors.js';
export { errorResult, failure, type ErrorResultBase, type FailureSite } from './failure.js';
export { redactDeep } from './redact-value.js';
export { ResultsWriter, RESULTS_FILE, SUMMARY_FILE, type ResultsWriterOptions } from './writer.js';
export { readResultsFile, readResultsDir, type ResultsFile } from './reader.js';
export {
  summarize,
  latestAttempts,
  exitCodeOf,
  type RunSummary,
  type ScenarioOutcome,
  type TurnOutcome,
  type Outcome,
  type SummaryOptions,
} from './summary.js';
export {
  summaryGroups,
  dimensionScores,
  type SummaryGroups,
  type CategoryGroup,
  type DimensionGroup,
  type SeverityGroup,
} from './summary-groups.js';
export { nemoMetrics } from './nemo-metrics.js';
export { nemoSummary, type NemoRunSummary, type NemoSignalRate } from './nemo-summary.js';
export { distribution, type DistributionStats } from './stats.js';
export { mergeResults, type MergedResults, type MergeSource, type MergeOptions } from './merge.js';
export { pipecatFailure, withPipecatFields } from './pipecat.js';
