import { basename, dirname } from 'node:path';
import { UsageError } from '../core/errors.js';
import { ResultsWriter, type RunSummary, type ScenarioResult } from '../results/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';

/**
 * The streamed results file: one line per scenario the moment it ends, then
 * summary.json beside it. Always on in runs that have an output dir.
 */
export function createJsonlReporter(options: ReporterOptions): Reporter {
  let writer: ResultsWriter;
  const common = { redactor: options.redactor, truncate: options.truncateResults === true };
  if (options.file !== undefined) {
    writer = new ResultsWriter(dirname(options.file), { ...common, fileName: basename(options.file) });
  } else if (options.outDir !== undefined) {
    writer = new ResultsWriter(options.outDir, common);
  } else {
    throw new UsageError('reporter jsonl needs an output dir (--out DIR) or a file (jsonl=PATH)');
  }
  return {
    name: 'jsonl',
    printsToTerminal: false,
    onScenarioEnd(result: ScenarioResult) {
      writer.append(result);
    },
    onEnd(summary: RunSummary) {
      writer.writeSummary(summary);
      writer.close();
    },
  };
}
