import { appendFileSync } from 'node:fs';
import type { Redactor } from '../core/redact.js';
import {
  exitCodeOf,
  inconclusiveLine,
  inconclusiveOf,
  latestAttempts,
  type RunSummary,
  type ScenarioOutcome,
  type ScenarioResult,
} from '../results/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';
import { failureLine, formatDuration, scenarioLabel, startOf } from './format.js';
import { scenarioTag, summaryGroupsMarkdown } from './gaia-text.js';

const MAX_ROWS = 200;
const MAX_FAILURES = 100;
const MAX_ANNOTATIONS = 50;
const ICON: Record<ScenarioOutcome['outcome'], string> = {
  passed: '✅',
  failed: '❌',
  flaky: '⚠️',
  inconclusive: '❔',
  skipped: '⏭️',
};
/** The headline's mark by exit status: 0 passed, 1 failed, 3 nothing failed but something was inconclusive. */
const HEAD_ICON = { 0: '✅', 1: '❌', 3: '❔' } as const;

/**
 * Untrusted text inside GitHub-flavoured markdown: every ASCII punctuation mark
 * backslash-escaped (so no emphasis, link, table pipe, HTML tag or entity can
 * form), newlines flattened, length capped.
 */
export function markdownText(text: string, max = 300): string {
  const flat = text.replace(/[\r\n\t]+/g, ' ').replace(/[\u0000-\u001f\u007f]/g, '');
  const cut = flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
  return cut.replace(/[!-/:-@[-`{-~]/g, (c) => `\\${c}`);
}

/** The job summary: outcome counts, a table of scenarios (not passing first), then the failures. */
export function renderGithubSummary(
  results: readonly ScenarioResult[],
  summary: RunSummary,
  redactor: Redactor,
): string {
  const t = (s: string, max?: number): string => markdownText(redactor.text(s), max);
  const o = summary.outcomes;
  const head = [`${o.passed} passed`];
  if (o.failed) head.push(`${o.failed} failed`);
  if (o.flaky) head.push(`${o.flaky} flaky`);
  if (summary.counts.inconclusive) head.push(`${summary.counts.inconclusive} inconclusive`);
  if (o.skipped) head.push(`${o.skipped} skipped`);
  const wall = summary.wall_ms === undefined ? '' : ` in ${formatDuration(summary.wall_ms)}`;
  const lines = [
    `## ${HEAD_ICON[exitCodeOf(summary)]} earshot: ${head.join(' · ')}`,
    '',
    `${summary.results} scenario run${summary.results === 1 ? '' : 's'}${wall}` +
      (summary.shards?.length ? ` · shards ${summary.shards.join(', ')}` : ''),
    '',
    '| | scenario | bot | runs | pass rate | duration p50 | file |',
    '|---|---|---|---|---|---|---|',
  ];
  const rank = (s: ScenarioOutcome): number => (s.ok ? 1 : 0);
  const rows = [...summary.scenarios].sort((a, b) => rank(a) - rank(b));
  for (const s of rows.slice(0, MAX_ROWS)) {
    const rate = s.pass_rate === null ? '–' : `${Math.round(s.pass_rate * 100)}%`;
    const p50 = s.duration_ms ? formatDuration(s.duration_ms.p50) : '–';
    const tag = scenarioTag(s);
    lines.push(
      `| ${ICON[s.outcome]} | ${t(s.name, 80)}${tag ? ` ${t(tag, 80)}` : ''} | ${t(s.bot ?? '', 60)} | ` +
        `${s.runs} | ${rate} | ${p50} | ` +
        `${t(s.file, 120)} |`,
    );
  }
  if (rows.length > MAX_ROWS) lines.push('', `…and ${rows.length - MAX_ROWS} more scenarios (see the HTML report).`);
  // Per category, dimension and severity (GAIA's view of the run), when some scenario has them.
  lines.push(...summaryGroupsMarkdown(summary, (x) => t(x, 80)));
  const failing = latestAttempts(results).filter((r) => r.status === 'failed' || r.status === 'error');
  if (failing.length > 0) {
    lines.push('', `<details><summary>Failures (${failing.length})</summary>`, '');
    for (const r of failing.slice(0, MAX_FAILURES)) {
      const reasons = r.failures.length > 0 ? r.failures.map(failureLine) : [r.error ?? r.status];
      lines.push(`- **${t(scenarioLabel(startOf(r)), 120)}** — ${reasons.map((x) => t(x)).join('; ')}`);
    }
    if (failing.length > MAX_FAILURES) lines.push(`- …and ${failing.length - MAX_FAILURES} more`);
    lines.push('', '</details>');
  }
  const doubtful = latestAttempts(results).filter((r) => r.status === 'inconclusive');
  if (doubtful.length > 0) {
    lines.push('', `<details><summary>Inconclusive (${doubtful.length}): neither passed nor failed</summary>`, '');
    for (const r of doubtful.slice(0, MAX_FAILURES)) {
      lines.push(
        `- **${t(scenarioLabel(startOf(r)), 120)}** — ${inconclusiveOf(r)
          .map((x) => t(inconclusiveLine(x)))
          .join('; ')}`,
      );
    }
    if (doubtful.length > MAX_FAILURES) lines.push(`- …and ${doubtful.length - MAX_FAILURES} more`);
    lines.push('', '</details>');
  }
  return `${lines.join('\n')}\n\n`;
}

/** Escapes a workflow-command value (`::error …::message`) so it cannot end the command or start another. */
export function workflowEscape(text: string, property = false): string {
  let out = text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  if (property) out = out.replace(/:/g, '%3A').replace(/,/g, '%2C');
  return out;
}

/**
 * Appends the summary to `$GITHUB_STEP_SUMMARY` (or `github=PATH`); without
 * either it says it skipped. Under GitHub Actions it also annotates failures.
 */
export function createGithubReporter(options: ReporterOptions): Reporter {
  const file = options.file ?? options.env.GITHUB_STEP_SUMMARY;
  const annotate = options.env.GITHUB_ACTIONS === 'true';
  const results: ScenarioResult[] = [];
  return {
    name: 'github',
    // Annotations are workflow commands, not progress: `list` still gets added.
    printsToTerminal: false,
    onScenarioEnd(result) {
      results.push(result);
    },
    onEnd(summary) {
      if (annotate) {
        const failing = latestAttempts(results).filter((r) => r.status === 'failed' || r.status === 'error');
        for (const r of failing.slice(0, MAX_ANNOTATIONS)) {
          const title = workflowEscape(options.redactor.text(`earshot: ${scenarioLabel(startOf(r))}`), true);
          const message = workflowEscape(
            options.redactor.text(r.failures.map(failureLine).join('\n') || (r.error ?? r.status)),
          );
          options.stdout.write(`::error file=${workflowEscape(r.file, true)},title=${title}::${message}\n`);
        }
        // Not an error: a warning the run's exit status 3 goes with.
        for (const r of latestAttempts(results)
          .filter((x) => x.status === 'inconclusive')
          .slice(0, MAX_ANNOTATIONS)) {
          const title = workflowEscape(
            options.redactor.text(`earshot: inconclusive: ${scenarioLabel(startOf(r))}`),
            true,
          );
          const message = workflowEscape(options.redactor.text(inconclusiveOf(r).map(inconclusiveLine).join('\n')));
          options.stdout.write(`::warning file=${workflowEscape(r.file, true)},title=${title}::${message}\n`);
        }
      }
      if (!file) {
        options.stderr.write(
          'earshot: github reporter skipped: $GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions?)\n',
        );
        return;
      }
      appendFileSync(file, renderGithubSummary(results, summary, options.redactor));
    },
  };
}
