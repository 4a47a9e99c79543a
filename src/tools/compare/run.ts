import { UsageError } from '../../core/errors.js';
import type { TerminalStream } from '../../report/index.js';
import { compareRuns, DEFAULT_COMPARE_SETTINGS, type CompareReport, type CompareSettings } from './compare.js';
import { writeCompareOutputs } from './outputs.js';
import { loadRunSamples } from './samples.js';

export interface RunCompareOptions {
  /** The baseline: a run output folder or its results.jsonl. */
  base: string;
  /** The run under test. */
  next: string;
  settings?: Partial<CompareSettings>;
  /** `--reporter`: default `list`. */
  reporter?: string;
  stdout?: TerminalStream;
  stderr?: TerminalStream;
  env?: NodeJS.ProcessEnv;
}

/**
 * `earshot compare BASE NEW`: reads both, compares, writes the chosen outputs
 * and returns the report (`ok` false when something regressed). Two inputs with
 * no scenario in common are a usage error: comparing them would say nothing.
 */
export function runCompare(options: RunCompareOptions): CompareReport {
  const settings: CompareSettings = { ...DEFAULT_COMPARE_SETTINGS, ...options.settings };
  if (!(settings.alpha > 0 && settings.alpha < 1))
    throw new UsageError(`--alpha must be within (0, 1), got ${settings.alpha}`);
  const base = loadRunSamples(options.base);
  const next = loadRunSamples(options.next);
  const report = compareRuns(base, next, settings);
  if (report.scenarios.length === 0) {
    const names = (list: typeof base.scenarios): string =>
      list
        .slice(0, 5)
        .map((s) => s.name)
        .join(', ') + (list.length > 5 ? ', …' : '');
    throw new UsageError(
      `${options.base} and ${options.next} have no scenario in common ` +
        `(base: ${names(base.scenarios)}; new: ${names(next.scenarios)})`,
    );
  }
  writeCompareOutputs(report, options.reporter ?? 'list', {
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
    env: options.env ?? process.env,
  });
  return report;
}
