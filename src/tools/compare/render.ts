import { markdownText, terminalSafe } from '../../report/index.js';
import type { CompareReport, ScenarioRef } from './compare.js';
import { compareRows, headline, notableRows, ruleText, turnLabel, verdictWord, type CompareRow } from './rows.js';

/**
 * The terminal list and the markdown of `earshot compare`. Scenario names and
 * files come from scenario files someone else may have written: the terminal
 * gets them stripped of control sequences, markdown gets them escaped.
 */

export function renderCompareList(report: CompareReport): string {
  const rows = compareRows(report);
  const cells = rows.map((r) => [
    turnLabel(r.turn),
    r.what,
    `${r.base} → ${r.new}`,
    r.change,
    r.p,
    verdictWord(r.verdict),
  ]);
  const widths = cells.reduce<number[]>((w, row) => row.map((c, i) => Math.max(w[i] ?? 0, [...c].length)), []);
  const pad = (row: string[]): string =>
    row
      .map((c, i) => (i === row.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  const lines = [
    `earshot compare: ${terminalSafe(report.base.source)} (${report.base.results} results) ` +
      `→ ${terminalSafe(report.new.source)} (${report.new.results} results)`,
    `rule: ${ruleText(report)}`,
  ];
  for (const s of report.scenarios) {
    const bot = s.bot ? ` [${terminalSafe(s.bot, 60)}]` : '';
    const pairing = s.matched_by === 'name' ? ', paired by name' : '';
    lines.push(
      '',
      `${verdictWord(s.verdict)}  ${terminalSafe(s.name, 120)}${bot}  (${terminalSafe(s.file, 200)}; ` +
        `${s.base_runs} → ${s.new_runs} runs${pairing})`,
    );
    rows.forEach((r, i) => {
      if (r.scenario === s) lines.push(`  ${pad(cells[i])}`);
    });
  }
  lines.push(
    ...refLines('only in the base', report.only_in_base, terminalSafe),
    ...refLines('only in the new run', report.only_in_new, terminalSafe),
  );
  for (const w of report.warnings) lines.push(`warning: ${terminalSafe(w)}`);
  lines.push('', headline(report));
  return `${lines.join('\n')}\n`;
}

function refLines(title: string, refs: readonly ScenarioRef[], safe: (s: string, max?: number) => string): string[] {
  if (refs.length === 0) return [];
  return [
    '',
    `${title} (not compared):`,
    ...refs.map((r) => `  ${safe(r.name, 120)}${r.bot ? ` [${safe(r.bot, 60)}]` : ''}  ${safe(r.file, 200)}`),
  ];
}

/** GitHub's limit for a comment body is 65 536 characters; stay well inside it. */
export const MARKDOWN_BUDGET_CHARS = 60_000;
const ICON = { regressed: '🔴', improved: '🟢', changed: '🟡', unchanged: '⚪', too_few: '⚫' } as const;

/**
 * A pull-request comment: the headline, the rows that changed (regressions
 * first), then every row in a collapsed section; rows stop where GitHub's limit
 * would be reached. Names and paths from the inputs are escaped; the figures are
 * earshot's own and shown as they are.
 */
export function renderCompareMarkdown(report: CompareReport): string {
  const t = (s: string, max?: number): string => markdownText(s, max);
  const rows = compareRows(report);
  const notable = notableRows(rows);
  const head = [
    `## ${report.ok ? '✅' : '❌'} earshot compare: ` +
      (report.counts.regressed === 0
        ? 'no regression'
        : `${report.counts.regressed} scenario${report.counts.regressed === 1 ? '' : 's'} regressed`),
    '',
    `${headline(report)} · base ${t(report.base.source, 120)} (${report.base.results} results) ` +
      `→ new ${t(report.new.source, 120)} (${report.new.results} results)`,
    '',
    `<sub>${t(ruleText(report), 400)}</sub>`,
    '',
  ];
  const header = [
    '| | scenario | where | what | base | new | change (95% CI) | p |',
    '|---|---|---|---|---|---|---|---|',
  ];
  const line = (r: CompareRow): string =>
    `| ${ICON[r.verdict]} | ${t(r.scenario.name, 80)} | ${turnLabel(r.turn)} | ` +
    `\`${r.what}\` | ${r.base} | ${r.new} | ${r.change} | ${r.p} |`;
  const tail: string[] = [];
  for (const [title, refs] of [
    ['Only in the base', report.only_in_base],
    ['Only in the new run', report.only_in_new],
  ] as const) {
    if (refs.length)
      tail.push(
        `**${title}** (not compared): ${refs
          .slice(0, 50)
          .map((r) => t(r.name, 80))
          .join(', ')}${refs.length > 50 ? ', …' : ''}`,
        '',
      );
  }
  for (const w of report.warnings.slice(0, 20)) tail.push(`> ${t(w)}`, '');
  // Room for the fixed parts and the two "…and N more" lines.
  let budget = MARKDOWN_BUDGET_CHARS - [...head, ...header, ...header, ...tail].join('\n').length - 400;
  const take = (list: readonly CompareRow[]): { lines: string[]; left: number } => {
    const lines: string[] = [];
    for (const r of list) {
      const l = line(r);
      if (l.length + 1 > budget) break;
      lines.push(l);
      budget -= l.length + 1;
    }
    return { lines, left: list.length - lines.length };
  };
  const body: string[] = [];
  if (notable.length === 0) body.push('Nothing changed significantly.', '');
  else {
    const shown = take(notable);
    body.push(
      ...header,
      ...shown.lines,
      ...(shown.left ? ['', `…and ${shown.left} more changed rows (see the HTML or JSON output).`] : []),
      '',
    );
  }
  const all = take(rows);
  body.push(`<details><summary>All ${rows.length} comparisons</summary>`, '', ...header, ...all.lines);
  if (all.left) body.push('', `…and ${all.left} more rows (see the HTML or JSON output).`);
  body.push('', '</details>', '');
  return `${[...head, ...body, ...tail].join('\n').trimEnd()}\n`;
}
