/**
 * `earshot compare`: a baseline run against a new one, per scenario and turn —
 * pass rates with Wilson intervals, latency median shifts with bootstrap
 * intervals and Mann–Whitney p-values, and a verdict per row; rendered as a
 * terminal list, markdown, JSON, a self-contained HTML page or a GitHub job summary.
 */
export {
  compareRuns,
  compareRates,
  compareMetric,
  severity,
  DEFAULT_COMPARE_SETTINGS,
  NEUTRAL_METRICS,
  type ChangeVerdict,
  type CompareReport,
  type CompareSettings,
  type MetricComparison,
  type RateComparison,
  type RateSide,
  type ScenarioComparison,
  type ScenarioRef,
  type TurnComparison,
} from './compare.js';
export {
  loadRunSamples,
  groupSamples,
  CompareInputError,
  type RunSamples,
  type ScenarioSamples,
  type TurnSamples,
} from './samples.js';
export { parseThreshold, ThresholdError } from './threshold.js';
export { compareRows, type CompareRow } from './rows.js';
export {
  compareScore,
  compareTurnScores,
  DEFAULT_SCORE_THRESHOLD_POINTS,
  SCORE_NAMES,
  type ScoreComparison,
  type ScoreName,
} from './scores.js';
export { renderCompareList, renderCompareMarkdown, MARKDOWN_BUDGET_CHARS } from './render.js';
export { renderCompareHtml, compareHtmlModel, COMPARE_CLIENT_JS, COMPARE_STYLE_CSS } from './html.js';
export { COMPARE_OUTPUTS, parseCompareOutputs, writeCompareOutputs, type CompareOutputContext } from './outputs.js';
export { runCompare, type RunCompareOptions } from './run.js';
