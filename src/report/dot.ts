import { inconclusiveLine, inconclusiveOf, type RunSummary, type ScenarioResult } from '../results/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';
import { colorEnabled, failureLine, formatDuration, paint, scenarioLabel, startOf, terminalSafe } from './format.js';

const MARK = { passed: '·', failed: 'F', inconclusive: '?', error: 'E', skipped: '-' } as const;

/** One character per scenario run, then the failures and a tally: compact logs for big suites. */
export function createDotReporter(options: ReporterOptions): Reporter {
  const p = paint(colorEnabled(options.stdout, options.env));
  const width = Math.max(20, Math.min(80, (options.stdout.columns ?? 80) - 1));
  const failed: ScenarioResult[] = [];
  let column = 0;
  const safe = (s: string): string => terminalSafe(options.redactor.text(s));
  return {
    name: 'dot',
    printsToTerminal: true,
    onScenarioEnd(result) {
      const mark = MARK[result.status];
      const colored =
        result.status === 'passed'
          ? p.green(mark)
          : result.status === 'skipped' || result.status === 'inconclusive'
            ? p.yellow(mark)
            : p.red(mark);
      if (result.status === 'failed' || result.status === 'error' || result.status === 'inconclusive')
        failed.push(result);
      column += 1;
      options.stdout.write(column % width === 0 ? `${colored}\n` : colored);
    },
    onEnd(summary: RunSummary) {
      const lines: string[] = column % width === 0 ? [] : [''];
      failed.forEach((r, i) => {
        lines.push('', `${i + 1}) ${safe(scenarioLabel(startOf(r)))} ${p.dim(safe(r.file))}`);
        for (const f of r.failures) lines.push(`   ${p.red(safe(failureLine(f)))}`);
        if (r.status === 'inconclusive')
          for (const x of inconclusiveOf(r)) lines.push(`   ${p.yellow(safe(inconclusiveLine(x)))}`);
        if (r.failures.length === 0 && r.error) lines.push(`   ${p.red(safe(r.error))}`);
      });
      const c = summary.counts;
      const tally = [`${c.passed} passed`, `${c.failed} failed`, `${c.error} errored`, `${c.skipped} skipped`];
      if (c.inconclusive) tally.splice(2, 0, `${c.inconclusive} inconclusive`);
      if (summary.outcomes.flaky) tally.push(`${summary.outcomes.flaky} flaky`);
      const wall = summary.wall_ms === undefined ? '' : ` in ${formatDuration(summary.wall_ms)}`;
      lines.push('', `${tally.join(', ')}${wall}`);
      options.stdout.write(`${lines.join('\n')}\n`);
    },
  };
}
