export type {
  Reporter,
  ReporterFactory,
  ReporterOptions,
  RunStart,
  ScenarioStart,
  TerminalStream,
} from './reporter.js';
export {
  REPORTERS,
  createReporters,
  parseReporterList,
  UnknownReporterError,
  ReporterSpecError,
  type ReporterChoice,
  type CreateReportersOptions,
} from './registry.js';
export { ReporterSet, ReporterError } from './reporter-set.js';
export { ListReporter, createListReporter } from './list.js';
export { createDotReporter } from './dot.js';
export { createJsonReporter } from './json.js';
export { createJsonlReporter } from './jsonl.js';
export { createJUnitReporter, renderJUnit, JUNIT_FILE } from './junit.js';
export { createGithubReporter, renderGithubSummary, markdownText, workflowEscape } from './github.js';
export {
  createHtmlReporter,
  writeHtmlReport,
  renderHtml,
  renderPage,
  type SelfContainedPage,
  HTML_FILE,
  inlineOnlyPolicy,
  jsonForScript,
  type HtmlReportOptions,
} from './html/html.js';
export { buildReportModel, type ReportModel, type ReportResult } from './html/model.js';
export { waveEnvelope, type WaveEnvelope } from './html/wav.js';
export { formatDuration, scenarioLabel, startOf, terminalSafe } from './format.js';
