import { terminalSafe } from '../../report/index.js';
import type { JudgeCheckReport } from './check.js';

/**
 * The terminal report of `earshot judge check`: agreement with its interval
 * and kappa, per category, the confusion matrix (rows: the label, columns: the
 * judge) and every disagreement with the judge's reason. Reasons come from a
 * model that read untrusted text: control sequences are stripped.
 */
export function renderJudgeCheck(report: JudgeCheckReport): string {
  const pct = (x: number): string => `${(x * 100).toFixed(1)}%`;
  const lines = [
    `judge check: ${terminalSafe(report.labels)}: ${report.cases} cases, judge ${terminalSafe(report.judge)}`,
    `agreement: ${report.agreed}/${report.cases} = ${pct(report.agreement.rate)} ` +
      `(95% CI ${pct(report.agreement.low)}–${pct(report.agreement.high)}), ` +
      `Cohen's kappa ${report.kappa === null ? '–' : report.kappa.toFixed(3)}` +
      `${report.errors ? `, ${report.errors} judge error${report.errors === 1 ? '' : 's'}` : ''}`,
    '',
  ];
  const width = Math.max('category'.length, ...report.categories.map((c) => [...terminalSafe(c.category, 40)].length));
  lines.push(`${'category'.padEnd(width)}  cases  agreed  agreement`);
  for (const c of report.categories) {
    lines.push(
      `${terminalSafe(c.category, 40).padEnd(width)}  ${String(c.cases).padStart(5)}  ` +
        `${String(c.agreed).padStart(6)}  ${pct(c.rate).padStart(9)}`,
    );
  }
  lines.push('', 'confusion matrix (rows: expected, columns: the judge):');
  const columns = Object.keys(report.matrix.yes);
  lines.push(`${'expected'.padEnd(10)}${columns.map((c) => c.padStart(10)).join('')}`);
  for (const [expected, row] of Object.entries(report.matrix)) {
    lines.push(`${expected.padEnd(10)}${columns.map((c) => String(row[c as keyof typeof row]).padStart(10)).join('')}`);
  }
  lines.push(
    '',
    report.disagreements.length === 0 ? 'no disagreements' : `disagreements (${report.disagreements.length}):`,
  );
  const idWidth = Math.max(0, ...report.disagreements.map((d) => [...terminalSafe(d.id, 60)].length));
  for (const d of report.disagreements) {
    lines.push(
      `  ${terminalSafe(d.id, 60).padEnd(idWidth)}  expected ${d.expected.padEnd(8)} got ${d.got.padEnd(8)} ` +
        `${terminalSafe(d.reason, 200)}`,
    );
  }
  return `${lines.join('\n')}\n`;
}
