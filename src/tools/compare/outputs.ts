import { appendFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { workflowEscape, type TerminalStream } from '../../report/index.js';
import type { CompareReport } from './compare.js';
import { renderCompareHtml } from './html.js';
import { renderCompareList, renderCompareMarkdown } from './render.js';
import { compareRows, turnLabel } from './rows.js';

/**
 * Where `earshot compare` writes, by name (`--reporter list,markdown=PATH,…`);
 * a new output is a function and a line in COMPARE_OUTPUTS.
 *
 * - `list`: the terminal table (stdout).
 * - `markdown`: a pull-request comment; stdout, or `markdown=PATH`.
 * - `json`: the whole report; stdout, or `json=PATH`.
 * - `html`: a self-contained page; `html=PATH` (default `compare.html`).
 * - `github`: the markdown appended to `$GITHUB_STEP_SUMMARY` (or `github=PATH`),
 *   and under GitHub Actions an `::error` annotation per regressed row.
 */

export interface CompareOutputContext {
  stdout: TerminalStream;
  stderr: TerminalStream;
  env: NodeJS.ProcessEnv;
}

export type CompareOutput = (report: CompareReport, ctx: CompareOutputContext, file: string | undefined) => void;

const MAX_ANNOTATIONS = 50;

export const COMPARE_OUTPUTS: Readonly<Record<string, CompareOutput>> = Object.freeze({
  list: (report, ctx) => void ctx.stdout.write(renderCompareList(report)),
  markdown: (report, ctx, file) => emit(renderCompareMarkdown(report), ctx, file),
  json: (report, ctx, file) => emit(`${JSON.stringify(report, null, 2)}\n`, ctx, file),
  html: (report, _ctx, file) => writeAtomically(file ?? 'compare.html', renderCompareHtml(report)),
  github: (report, ctx, file) => {
    if (ctx.env.GITHUB_ACTIONS === 'true') {
      for (const row of compareRows(report)
        .filter((r) => r.verdict === 'regressed')
        .slice(0, MAX_ANNOTATIONS)) {
        const title = workflowEscape(`earshot compare: ${row.scenario.name} regressed`, true);
        const message = workflowEscape(
          `${turnLabel(row.turn)} ${row.what}: ${row.base} → ${row.new}, ` +
            `change ${row.change}${row.p ? `, p ${row.p}` : ''}`,
        );
        ctx.stdout.write(`::error file=${workflowEscape(row.scenario.file, true)},title=${title}::${message}\n`);
      }
    }
    const target = file ?? ctx.env.GITHUB_STEP_SUMMARY;
    if (!target) {
      ctx.stderr.write(
        'earshot: github output skipped: $GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions?)\n',
      );
      return;
    }
    appendFileSync(target, `${renderCompareMarkdown(report)}\n`);
  },
});

/** Outputs that print to the terminal when given no file; one of them is always chosen. */
const TERMINAL_WITHOUT_FILE = new Set(['list', 'markdown', 'json']);

export interface CompareOutputChoice {
  name: string;
  file?: string;
}

/** Parses `list,markdown=comment.md,html=compare.html`; unknown names are a usage error naming the known ones. */
export function parseCompareOutputs(spec: string): CompareOutputChoice[] {
  const chosen: CompareOutputChoice[] = [];
  for (const raw of spec.split(',')) {
    const item = raw.trim();
    if (item === '') continue;
    const eq = item.indexOf('=');
    const name = (eq < 0 ? item : item.slice(0, eq)).trim();
    if (!Object.hasOwn(COMPARE_OUTPUTS, name)) {
      throw new UsageError(
        `unknown compare output ${JSON.stringify(name)}; known: ${Object.keys(COMPARE_OUTPUTS).join(', ')}`,
      );
    }
    const file = eq < 0 ? undefined : item.slice(eq + 1).trim();
    if (file === '') throw new UsageError(`compare output ${name}: empty file after "=" (write ${name}=PATH)`);
    if (name === 'list' && file !== undefined)
      throw new UsageError('compare output list prints to the terminal and takes no file');
    if (!chosen.some((c) => c.name === name)) chosen.push({ name, ...(file === undefined ? {} : { file }) });
  }
  // Someone is watching the terminal: when every choice writes a file, the list is added.
  if (!chosen.some((c) => TERMINAL_WITHOUT_FILE.has(c.name) && c.file === undefined)) chosen.unshift({ name: 'list' });
  return chosen;
}

export function writeCompareOutputs(report: CompareReport, spec: string, ctx: CompareOutputContext): void {
  for (const choice of parseCompareOutputs(spec)) COMPARE_OUTPUTS[choice.name](report, ctx, choice.file);
}

function emit(text: string, ctx: CompareOutputContext, file: string | undefined): void {
  if (file === undefined) ctx.stdout.write(text);
  else writeAtomically(file, text);
}

function writeAtomically(file: string, text: string): void {
  const path = resolve(file);
  mkdirSync(dirname(path), { recursive: true });
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, text);
  renameSync(temp, path);
}
