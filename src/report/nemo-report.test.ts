import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { failure } from '../results/failure.js';
import { summarize, type NemoOutcome, type ScenarioResult, type SimulationResult } from '../results/index.js';
import { SIMULATION_JS } from './html/client-simulation.js';
import { renderJUnit } from './junit.js';
import { ListReporter } from './list.js';
import { startOf } from './format.js';
import { VirtualTerminal } from './terminal.testutil.js';

const XSD = join(import.meta.dirname, 'testdata', 'junit.xsd');
const XMLLINT = '/usr/bin/xmllint';
const redactor = new Redactor({});

function nemo(over: Partial<NemoOutcome> = {}): NemoOutcome {
  return {
    is_successful: false,
    is_task_successful: true,
    success_breakdown: {
      passed: ['is_action_match'],
      failed: ['clean_exit'],
      not_applicable: [],
      excluded: ['db_state_match'],
    },
    signals: [
      { signal: 'is_action_match', value: true, reason: "all 1 reference item(s) matched the bot's actions" },
      { signal: 'db_state_match', value: false, reason: 'no db_hash: the bot reported none' },
      { signal: 'clean_exit', value: false, reason: 'the call ended by end_call (the caller hung up), not by the bot' },
    ],
    stop_reason: 'end_call',
    agent_turns: 4,
    below_min_agent_turns: false,
    min_agent_turns: 3,
    ...over,
  };
}

function result(n: NemoOutcome, status: ScenarioResult['status'], failures = [] as ScenarioResult['failures']) {
  const simulation: SimulationResult = {
    ended_by: 'end_call',
    end_detail: 'the caller hung up',
    persona_turns: 3,
    duration_s: 12,
    transcript: [{ kind: 'bot', at_ms: 100, text: 'Hello' }],
    success: { criterion: 'Take the order.', verdict: 'none', reason: 'no whitelisted signal produced a value' },
    metrics: [],
    passed: status === 'passed',
    simulator: 'sim',
    nemo: n,
  };
  return {
    name: 'restaurant__pizza',
    file: 'scenarios/restaurant.ts',
    status,
    started_at: '2026-01-01T00:00:00.000Z',
    duration_ms: 12000,
    turns: [],
    failures,
    events: [],
    simulation,
  } satisfies ScenarioResult;
}

const failed = () =>
  result(nemo(), 'failed', [
    failure('signal_failed', 'clean_exit: the call ended by end_call (the caller hung up), not by the bot'),
  ]);
const notApplicable = () =>
  result(
    nemo({
      is_successful: 'N/A',
      is_task_successful: 'N/A',
      success_breakdown: { passed: [], failed: [], not_applicable: ['judge_passed'], excluded: [] },
      signals: [{ signal: 'judge_passed', value: null, reason: 'no usable score from the judge: x' }],
    }),
    'inconclusive',
  );

describe('list reporter: NeMo signals', () => {
  it('prints the composite and one line per signal, excluded ones marked', () => {
    const term = new VirtualTerminal(false, 200);
    const list = new ListReporter({
      stdout: term,
      stderr: new VirtualTerminal(false),
      env: {},
      clock: new ManualClock(0),
      redactor,
    });
    const r = failed();
    list.onScenarioStart(startOf(r));
    list.onScenarioEnd(r);
    const screen = term.screen();
    expect(screen).toContain('    is_successful false · is_task_successful true · stop_reason end_call');
    expect(screen).toContain("      is_action_match true: all 1 reference item(s) matched the bot's actions");
    expect(screen).toContain('      db_state_match false [excluded]: no db_hash: the bot reported none');
    expect(screen).toContain('      clean_exit false: the call ended by end_call (the caller hung up), not by the bot');
  });
});

describe('list reporter: NeMo rates at the end', () => {
  it('prints the composite, task and per-signal rates', () => {
    const term = new VirtualTerminal(false, 200);
    const list = new ListReporter({
      stdout: term,
      stderr: new VirtualTerminal(false),
      env: {},
      clock: new ManualClock(0),
      redactor,
    });
    const passed = result(
      nemo({
        is_successful: true,
        success_breakdown: { passed: ['is_action_match', 'clean_exit'], failed: [], not_applicable: [], excluded: [] },
        signals: [
          { signal: 'is_action_match', value: true, reason: '' },
          { signal: 'clean_exit', value: true, reason: '' },
        ],
      }),
      'passed',
    );
    list.onEnd(summarize([failed(), { ...passed, name: 'b' }, { ...notApplicable(), name: 'c' }]));
    const screen = term.screen();
    expect(screen).toContain('NeMo success rates:');
    expect(screen).toContain('  composite 1/2 (50%), 1 N/A left out · task 100%');
    expect(screen).toContain(
      '  is_action_match 2/2 (100%) · db_state_match 0/1 (0%) · judge_passed 0/0 (–) N/A 1 · clean_exit 1/2 (50%)',
    );
  });
});

describe('JUnit: NeMo signals', () => {
  it('lists the failed signals in the failure message and skips an N/A scenario with its reason', () => {
    const xml = renderJUnit([failed(), { ...notApplicable(), name: 'qa__capital' }], redactor);
    expect(xml).toContain(
      '<failure message="failed signals: clean_exit: the call ended by end_call (the caller hung up), not by the bot"',
    );
    expect(xml).toContain('<skipped message="N/A: no whitelisted signal produced a value">');
    expect(xml).toContain('judge_passed N/A: no usable score from the judge: x');
    if (!existsSync(XMLLINT)) throw new Error('xmllint is missing: apt-get install libxml2-utils');
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-junit-nemo-')), 'junit.xml');
    writeFileSync(file, xml);
    expect(execFileSync(XMLLINT, ['--noout', '--schema', XSD, file], { encoding: 'utf8' })).toBe('');
  });
});

/** A node as the stand-in `el` builds it: enough to read the view's structure back. */
interface Node {
  tag: string;
  attrs: Record<string, string> | null;
  children: unknown[];
}

function htmlView(s: SimulationResult): Node {
  const el = (tag: string, attrs: Record<string, string> | null, kids?: unknown): Node => ({
    tag,
    attrs,
    children: kids === undefined ? [] : Array.isArray(kids) ? kids : [kids],
  });
  const add = (node: Node, kids: unknown): void => {
    node.children.push(kids);
  };
  const context = {
    el,
    add,
    badge: (status: string) => el('span', { class: `badge ${status}`, text: status }),
    fmtMs: (ms: number) => `${ms} ms`,
    pct: (x: number) => `${Math.round(x * 100)}%`,
    view: s,
    out: null as Node | null,
  };
  runInNewContext(`${SIMULATION_JS}\nout = simulationView(view);`, context);
  if (!context.out) throw new Error('no view');
  return context.out;
}

function find(node: unknown, pred: (n: Node) => boolean): Node[] {
  if (typeof node !== 'object' || node === null || !('tag' in node)) return [];
  const n = node as Node;
  return [...(pred(n) ? [n] : []), ...n.children.flatMap((c) => find(c, pred))];
}

describe('HTML simulation view: NeMo signals', () => {
  it('draws the breakdown table with excluded rows greyed and an N/A badge', () => {
    const view = htmlView(failed().simulation);
    const rows = find(view, (n) => n.tag === 'tr' && n.attrs !== null && 'class' in n.attrs);
    expect(rows.map((r) => r.attrs?.class)).toEqual(['', 'excluded', '']);
    const na = htmlView(notApplicable().simulation);
    const badges = find(na, (n) => n.tag === 'span' && (n.attrs?.class ?? '').includes('na'));
    expect(badges.map((b) => b.attrs?.text)).toEqual(['N/A', 'N/A', 'N/A']);
  });
});
