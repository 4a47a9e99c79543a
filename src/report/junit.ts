import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import {
  compareStrings,
  inconclusiveLine,
  inconclusiveOf,
  latestAttempts,
  type Failure,
  type ScenarioResult,
  type TurnResult,
} from '../results/index.js';
import type { Reporter, ReporterOptions } from './reporter.js';
import { failureLine, turnInput } from './format.js';
import { nemoFailedSignals, nemoHeadline, nemoSignalLines } from './nemo-text.js';
import { xmlAttr, xmlText } from './xml.js';
import { gaiaTurnLine, turnReasons } from './gaia-text.js';

export const JUNIT_FILE = 'junit.xml';

/** Failure kinds that mean the harness could not run the scenario, not that the bot got it wrong. */
const ERROR_KINDS = new Set<string>(['connect_failed', 'handshake_timeout', 'harness_error']);

interface Case {
  name: string;
  classname: string;
  seconds: number;
  failures: Array<{ kind: string; message: string; body: string }>;
  errors: Array<{ kind: string; message: string; body: string }>;
  skipped?: string;
  /** The skipped element's text: an inconclusive turn's evidence. */
  skippedBody?: string;
  /** `<system-out>`: a GAIA turn's scores, one row. */
  systemOut?: string;
}

/**
 * JUnit XML: one <testsuite> per scenario file, one <testcase> per turn of each
 * run (bot and repeat in the case name), failures typed by their kind. Failures
 * not tied to a turn (connect, handshake) get a `setup` case, so CI sees them.
 * An inconclusive turn is `<skipped message="inconclusive: …">` with the
 * evidence (both transcripts, the segment's span and WAV) as its text: JUnit
 * has no third verdict, and a skip is what neither passes nor fails in every
 * CI that reads it.
 */
export function renderJUnit(results: readonly ScenarioResult[], redactor: Redactor, title = 'earshot'): string {
  const byFile = new Map<string, ScenarioResult[]>();
  for (const r of latestAttempts(results)) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const suites: string[] = [];
  const totals = { tests: 0, failures: 0, errors: 0, skipped: 0, seconds: 0 };
  for (const file of [...byFile.keys()].sort(compareStrings)) {
    const runs = byFile.get(file) ?? [];
    const cases = runs.flatMap((r) => casesOf(r));
    const count = {
      tests: cases.length,
      failures: cases.filter((c) => c.failures.length > 0).length,
      errors: cases.filter((c) => c.errors.length > 0).length,
      skipped: cases.filter((c) => c.skipped !== undefined).length,
    };
    const seconds = runs.reduce((s, r) => s + r.duration_ms / 1000, 0);
    for (const k of ['tests', 'failures', 'errors', 'skipped'] as const) totals[k] += count[k];
    totals.seconds += seconds;
    const stamp = timestamp(runs.map((r) => r.started_at).sort()[0]);
    const attrs =
      `name="${xmlAttr(redactor.text(file))}" tests="${count.tests}" failures="${count.failures}" ` +
      `errors="${count.errors}" skipped="${count.skipped}" ` +
      `time="${secs(seconds)}"${stamp ? ` timestamp="${stamp}"` : ''}`;
    suites.push(
      `  <testsuite ${attrs}>\n${renderProperties(runs, redactor)}` +
        `${cases.map((c) => renderCase(c, redactor)).join('')}  </testsuite>\n`,
    );
  }
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<testsuites name="${xmlAttr(title)}" tests="${totals.tests}" failures="${totals.failures}" ` +
    `errors="${totals.errors}" skipped="${totals.skipped}" time="${secs(totals.seconds)}">\n` +
    suites.join('') +
    '</testsuites>\n'
  );
}

function casesOf(r: ScenarioResult): Case[] {
  const suffix =
    `${r.run?.bot ? ` [${r.run.bot}]` : ''}` +
    `${r.run?.repeat_index !== undefined ? ` #${r.run.repeat_index + 1}` : ''}`;
  const cases: Case[] = [];
  const general = r.failures.filter((f) => f.turn_index === null || !r.turns.some((t) => t.index === f.turn_index));
  const nemo = r.status !== 'error' ? r.simulation?.nemo : undefined;
  if (general.length > 0 || nemo || (r.status === 'error' && r.turns.every((t) => t.status !== 'failed'))) {
    // A simulation's verdict is over the whole call (goal, metrics, signals): its case is the conversation.
    const setup: Case = {
      name: `${r.simulation ? 'conversation' : 'setup'}${suffix}`,
      classname: r.name,
      seconds: 0,
      failures: [],
      errors: [],
    };
    for (const f of general)
      (ERROR_KINDS.has(f.kind) || r.status === 'error' ? setup.errors : setup.failures).push(problem(f, ''));
    if (nemo) {
      // A NeMo verdict: each signal's value and reason; an N/A composite is neither a pass nor a failure.
      setup.systemOut = [nemoHeadline(nemo), ...nemoSignalLines(nemo)].join('\n');
      if (nemo.is_successful === 'N/A' && general.length === 0) {
        setup.skipped = `N/A: ${r.simulation?.success.reason ?? 'no whitelisted signal produced a value'}`;
        setup.skippedBody = setup.systemOut;
      }
      const failed = nemoFailedSignals(nemo);
      if (failed.length > 0 && setup.failures.length > 0)
        setup.failures[0] = { ...setup.failures[0], message: `failed signals: ${failed.join('; ')}` };
    } else if (general.length === 0)
      setup.errors.push({ kind: 'harness_error', message: r.error ?? 'error', body: r.error ?? '' });
    cases.push(setup);
  }
  for (const turn of r.turns) {
    const c: Case = {
      name: `turn ${turn.index + 1}: ${turnInput(turn)}${suffix}`,
      classname: r.name,
      seconds: turn.duration_ms / 1000,
      failures: [],
      errors: [],
    };
    const scored = r.gaia?.turns.find((g) => g.turn === turn.index + 1);
    if (r.gaia && scored) {
      c.systemOut = [
        gaiaTurnLine(r.gaia, scored),
        ...turnReasons(scored),
        `caller: ${JSON.stringify(scored.user_message)}`,
        `bot: ${JSON.stringify(scored.reply)}`,
      ].join('\n');
    }
    const mine = r.failures.filter((f) => f.turn_index === turn.index);
    if (turn.status === 'failed') {
      const detail = turnDetail(turn);
      for (const f of mine) (ERROR_KINDS.has(f.kind) ? c.errors : c.failures).push(problem(f, detail));
      if (mine.length === 0) c.failures.push({ kind: 'failed', message: 'turn failed', body: detail });
    } else if (turn.status === 'inconclusive') {
      const doubts = inconclusiveOf({ turns: [turn] });
      c.skipped = `inconclusive: ${doubts.map((d) => `${d.kinds.join(', ')}: ${d.reason}`).join('; ')}`;
      c.skippedBody = [
        ...doubts.map(inconclusiveLine),
        ...doubts.flatMap((d) => d.segments.map(segmentLine)),
        '',
        turnDetail(turn),
      ].join('\n');
    } else if (turn.status === 'not_run') {
      c.skipped = r.status === 'skipped' ? 'scenario skipped' : 'not run: an earlier turn failed or the run stopped';
    }
    cases.push(c);
  }
  return cases;
}

function problem(f: Failure, detail: string): { kind: string; message: string; body: string } {
  return { kind: f.kind, message: `${f.kind}: ${f.reason}`, body: `${failureLine(f)}${detail ? `\n\n${detail}` : ''}` };
}

/** Expectations and what the bot said, so a CI page shows why without opening the HTML report. */
function turnDetail(turn: TurnResult): string {
  const lines = [`sent: ${turnInput(turn)}`];
  for (const e of turn.expectations) {
    const at = e.matched_after_ms === undefined ? '' : ` after ${Math.round(e.matched_after_ms)} ms`;
    lines.push(`  [${e.status}] ${e.event}${at}${e.text !== undefined ? `: ${JSON.stringify(e.text)}` : ''}`);
    if (e.judge_reason) lines.push(`      judge: ${e.judge_reason}`);
  }
  return lines.join('\n');
}

function segmentLine(s: ReturnType<typeof inconclusiveOf>[number]['segments'][number]): string {
  const check =
    s.check_transcript !== undefined
      ? `, check ${JSON.stringify(s.check_transcript)}${s.wer !== undefined ? ` (WER ${s.wer.toFixed(2)})` : ''}`
      : '';
  return (
    `  segment ${Math.round(s.start_ms)}–${Math.round(s.end_ms)} ms (${Math.round(s.speech_ms)} ms speech): ` +
    `heard ${JSON.stringify(s.transcript)}${check}${s.snippet ? `; audio ${s.snippet}` : ''}`
  );
}

function renderCase(c: Case, redactor: Redactor): string {
  const head =
    `    <testcase name="${xmlAttr(redactor.text(c.name))}" classname="${xmlAttr(redactor.text(c.classname))}" ` +
    `time="${secs(c.seconds)}"`;
  const body: string[] = [];
  if (c.skipped !== undefined && c.skippedBody !== undefined) {
    body.push(
      `      <skipped message="${xmlAttr(redactor.text(c.skipped))}">` +
        `${xmlText(redactor.text(c.skippedBody))}</skipped>\n`,
    );
  } else if (c.skipped !== undefined) body.push(`      <skipped message="${xmlAttr(c.skipped)}"/>\n`);
  for (const [tag, list] of [
    ['error', c.errors],
    ['failure', c.failures],
  ] as const) {
    for (const p of list) {
      body.push(
        `      <${tag} message="${xmlAttr(redactor.text(p.message))}" type="${xmlAttr(p.kind)}">` +
          `${xmlText(redactor.text(p.body))}</${tag}>\n`,
      );
    }
  }
  if (c.systemOut !== undefined) body.push(`      <system-out>${xmlText(redactor.text(c.systemOut))}</system-out>\n`);
  return body.length === 0 ? `${head}/>\n` : `${head}>\n${body.join('')}    </testcase>\n`;
}

/**
 * A suite's `<properties>` (the schema allows them on testsuite, not testcase): the file's `category` and `severity`
 * and, for GAIA scenarios, `gaia.total` (the mean over the file's runs when there are several, with `gaia.runs`) and
 * `gaia.pass_threshold`. Values that differ between the file's scenarios are listed, comma-separated.
 */
function renderProperties(runs: readonly ScenarioResult[], redactor: Redactor): string {
  const distinct = (values: Array<string | undefined>): string =>
    [...new Set(values.filter((v): v is string => v !== undefined))].join(', ');
  const props: Array<[string, string]> = [
    ['category', distinct(runs.map((r) => r.category))],
    ['severity', distinct(runs.map((r) => r.severity))],
  ];
  const gaia = runs.flatMap((r) => (r.gaia ? [r.gaia] : []));
  if (gaia.length > 0) {
    props.push(['gaia.total', (gaia.reduce((s, g) => s + g.total, 0) / gaia.length).toFixed(2)]);
    if (gaia.length > 1) props.push(['gaia.runs', String(gaia.length)]);
    props.push(['gaia.pass_threshold', distinct(gaia.map((g) => String(g.pass_threshold)))]);
  }
  const kept = props.filter(([, value]) => value !== '');
  if (kept.length === 0) return '';
  const lines = kept.map(
    ([name, value]) => `      <property name="${xmlAttr(name)}" value="${xmlAttr(redactor.text(value))}"/>\n`,
  );
  return `    <properties>\n${lines.join('')}    </properties>\n`;
}

function secs(s: number): string {
  return Math.max(0, s).toFixed(3);
}

/** ISO 8601 without fraction or zone, as Ant writes it; undefined when unparseable. */
function timestamp(iso: string | undefined): string | undefined {
  if (!iso) return undefined;
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? undefined : d.toISOString().slice(0, 19);
}

/** Writes `<out>/junit.xml` (or `junit=PATH`) at the end of the run. */
export function createJUnitReporter(options: ReporterOptions): Reporter {
  const file = options.file ?? (options.outDir !== undefined ? join(options.outDir, JUNIT_FILE) : undefined);
  if (file === undefined) throw new UsageError('reporter junit needs an output dir (--out DIR) or a file (junit=PATH)');
  const results: ScenarioResult[] = [];
  return {
    name: 'junit',
    printsToTerminal: false,
    onScenarioEnd(result) {
      results.push(result);
    },
    onEnd() {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, renderJUnit(results, options.redactor));
    },
  };
}
