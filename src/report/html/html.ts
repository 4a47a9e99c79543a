import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../../core/errors.js';
import type { RunSummary, ScenarioResult } from '../../results/index.js';
import type { Reporter, ReporterOptions, RunStart } from '../reporter.js';
import { buildReportModel, type ModelOptions, type ReportModel } from './model.js';
import { CLIENT_JS } from './client.js';
import { STYLE_CSS } from './style.js';

export const HTML_FILE = 'report.html';

/**
 * JSON inside <script type="application/json">: the HTML parser ends the
 * element at the first `</script`, so `<`, `>` and `&` are written as JSON
 * escapes (the parsed value is unchanged); U+2028/9 likewise, for old parsers.
 */
export function jsonForScript(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The policy forbids every load except the page's own inline script and style
 * (by hash) and audio from the report's own origin: no remote fetches, no
 * injected script even if escaping ever failed.
 */
export function contentSecurityPolicy(): string {
  return inlineOnlyPolicy(CLIENT_JS, STYLE_CSS, ["media-src 'self'"]);
}

/** A page that may run only this inline script and use only this inline style (by hash), plus `extra` directives. */
export function inlineOnlyPolicy(script: string, style: string, extra: readonly string[] = []): string {
  return [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    `style-src ${sha256(style)}`,
    ...extra,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** What a self-contained earshot page is made of: its policy, style, script and one JSON data island. */
export interface SelfContainedPage {
  title: string;
  /** The Content-Security-Policy (`inlineOnlyPolicy` of exactly this script and style). */
  policy: string;
  style: string;
  script: string;
  /** The data island's element id, which the script reads. */
  islandId: string;
  data: unknown;
  /** Said when scripts are off: where the same data is without the page. */
  noscript: string;
}

/**
 * One self-contained HTML file: markup shell, inline style and script, and the
 * data island (escaped by `jsonForScript`, read by the script with
 * `textContent`). Every earshot page is built here, so every page carries the
 * same policy meta tags and nothing but the island carries data.
 */
export function renderPage(page: SelfContainedPage): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${page.policy}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<style>${page.style}</style>
</head>
<body>
<div id="app"></div>
<noscript>${page.noscript}</noscript>
<script type="application/json" id="${page.islandId}">${jsonForScript(page.data)}</script>
<script>${page.script}</script>
</body>
</html>
`;
}

/** The run report's page. */
export function renderHtml(model: ReportModel): string {
  return renderPage({
    title: 'earshot report',
    policy: contentSecurityPolicy(),
    style: STYLE_CSS,
    script: CLIENT_JS,
    islandId: 'earshot-data',
    data: model,
    noscript: 'This report draws itself with JavaScript; the raw results are in results.jsonl beside it.',
  });
}

export interface HtmlReportOptions extends Omit<ModelOptions, 'reportDir'> {
  /** The report file to write. */
  file: string;
}

/** Builds the model (reading recordings for their waveforms) and writes the report atomically; returns its path. */
export function writeHtmlReport(
  results: readonly ScenarioResult[],
  summary: RunSummary,
  options: HtmlReportOptions,
): string {
  const file = resolve(options.file);
  const model = buildReportModel(results, summary, { ...options, reportDir: dirname(file) });
  mkdirSync(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, renderHtml(model));
  renameSync(temp, file);
  return file;
}

/** Writes `<out>/report.html` (or `html=PATH`) at the end of the run; WAVs stay where the run put them. */
export function createHtmlReporter(options: ReporterOptions): Reporter {
  const file = options.file ?? (options.outDir !== undefined ? join(options.outDir, HTML_FILE) : undefined);
  if (file === undefined) throw new UsageError('reporter html needs an output dir (--out DIR) or a file (html=PATH)');
  const resultsDir = options.outDir ?? dirname(file);
  const results: ScenarioResult[] = [];
  let title: string | undefined;
  return {
    name: 'html',
    printsToTerminal: false,
    onBegin(run: RunStart) {
      title = run.title ? `earshot: ${run.title}` : undefined;
    },
    onScenarioEnd(result) {
      results.push(result);
    },
    onEnd(summary) {
      writeHtmlReport(results, summary, { file, resultsDir, redactor: options.redactor, ...(title ? { title } : {}) });
    },
  };
}
