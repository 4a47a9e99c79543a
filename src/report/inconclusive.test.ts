import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { readResultsDir, summarize, type ScenarioResult } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { createDotReporter } from './dot.js';
import { startOf } from './format.js';
import { createGithubReporter, renderGithubSummary } from './github.js';
import { writeHtmlReport } from './html/html.js';
import { createJsonReporter } from './json.js';
import { createJsonlReporter } from './jsonl.js';
import { renderJUnit } from './junit.js';
import { ListReporter } from './list.js';
import { VirtualTerminal } from './terminal.testutil.js';

/**
 * `inconclusive` in every reporter: a run where nothing failed but one reply
 * was heard differently by two transcribers (the fixture's turn 2).
 */
const redactor = new Redactor({});
const doubtful = makeResult({ file: 'scenarios/heard.yaml', status: 'inconclusive' });
const results: ScenarioResult[] = [makeResult({ file: 'scenarios/fine.yaml' }), doubtful];
const options = (stdout: VirtualTerminal, env: NodeJS.ProcessEnv = {}) => ({
  stdout,
  stderr: new VirtualTerminal(false),
  env,
  clock: new ManualClock(),
  redactor,
});

describe('inconclusive in the terminal reporters', () => {
  it('list: a ? per inconclusive turn and scenario, the reason under it, a section and a count at the end', () => {
    const term = new VirtualTerminal(false);
    const list = new ListReporter(options(term));
    const info = startOf(doubtful);
    list.onScenarioStart(info);
    for (const t of doubtful.turns) list.onTurnEnd(info, t, []);
    list.onScenarioEnd(doubtful);
    list.onEnd(summarize(results, { wall_ms: 1000 }));
    const screen = term.screen();
    expect(screen).toContain('  ? turn 2 "What is the capital of France?" 1.4 s · voice-to-voice 690 ms');
    expect(screen).toContain(
      '      ? response inconclusive (transcribers_disagree): the check passes on the first transcript and fails on the second',
    );
    expect(screen).toContain('? heard (4.0 s)');
    expect(screen).toContain(
      '    inconclusive turn 2.1 response: transcribers_disagree: the check passes on the first transcript and fails on the second',
    );
    expect(screen).toContain(
      'Inconclusive (neither passed nor failed: earshot could not hear the bot reliably, or no NeMo signal had a value):',
    );
    expect(screen).toContain('  ? heard 1/1 run scenarios/heard.yaml');
    expect(screen.at(-1)).toBe('1 passed · 1 inconclusive (2 runs in 1.0 s)');
    expect(screen.join('\n')).not.toContain('Not passing');
  });

  it('dot: a ? mark, the reason among the problems, a count in the tally', () => {
    const term = new VirtualTerminal(false);
    const dot = createDotReporter(options(term));
    for (const r of results) dot.onScenarioEnd?.(r);
    dot.onEnd?.(summarize(results, { wall_ms: 2000 }));
    expect(term.screen()).toEqual([
      '·?',
      '',
      '1) heard scenarios/heard.yaml',
      '   inconclusive turn 2.1 response: transcribers_disagree: the check passes on the first transcript and fails on the second',
      '',
      '1 passed, 0 failed, 1 inconclusive, 0 errored, 0 skipped in 2.0 s',
    ]);
  });
});

describe('inconclusive in the file reporters', () => {
  it('junit: the turn is <skipped> with the evidence as its text, valid against the schema', () => {
    const xml = renderJUnit(results, redactor);
    expect(xml).toContain('tests="4" failures="0" errors="0" skipped="1"');
    const skipped = /<skipped message="([^"]*)">([^<]*)<\/skipped>/.exec(xml);
    expect(skipped?.[1]).toBe(
      'inconclusive: transcribers_disagree: the check passes on the first transcript and fails on the second',
    );
    expect(skipped?.[2]).toContain(
      'segment 2700–4400 ms (1632 ms speech): heard "the capital of france is paris", check "the capital of three and is yes" (WER 0.50); audio run.seg1.wav',
    );
    expect(skipped?.[2]).toContain('[inconclusive] response: "the capital of france is paris"');
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-junit-inc-')), 'junit.xml');
    writeFileSync(file, xml);
    // The schema is earshot's rendition of the Jenkins/Ant format (src/report/testdata/junit.xsd).
    execFileSync(
      '/usr/bin/xmllint',
      ['--noout', '--schema', join(import.meta.dirname, 'testdata', 'junit.xsd'), file],
      { stdio: 'pipe' },
    );
  });

  it('github: a ❔ headline, the scenario row, a section of reasons, and ::warning (not ::error) annotations', () => {
    const md = renderGithubSummary(results, summarize(results), redactor);
    expect(md.startsWith('## ❔ earshot: 1 passed · 1 inconclusive\n')).toBe(true);
    expect(md).toContain('| ❔ | heard |');
    expect(md).toContain('<details><summary>Inconclusive (1): neither passed nor failed</summary>');
    expect(md).toContain('transcribers\\_disagree\\: the check passes on the first transcript');
    const term = new VirtualTerminal(false);
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-gh-inc-')), 'summary.md');
    const gh = createGithubReporter(options(term, { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file }));
    for (const r of results) gh.onScenarioEnd?.(r);
    gh.onEnd?.(summarize(results));
    expect(term.raw).toMatch(
      /^::warning file=scenarios\/heard\.yaml,title=earshot%3A inconclusive%3A heard::inconclusive turn 2\.1 response/m,
    );
    expect(term.raw).not.toContain('::error');
    expect(readFileSync(file, 'utf8')).toContain('❔');
  });

  it('json and jsonl: the status, the counts and the evidence as they are', () => {
    const term = new VirtualTerminal(false);
    const json = createJsonReporter(options(term));
    json.onEnd?.(summarize(results));
    const summary = JSON.parse(term.raw) as ReturnType<typeof summarize>;
    expect(summary.counts.inconclusive).toBe(1);
    expect(summary.outcomes.inconclusive).toBe(1);
    expect(summary.ok).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'earshot-jsonl-inc-'));
    const jsonl = createJsonlReporter({ ...options(term), outDir: dir });
    for (const r of results) jsonl.onScenarioEnd?.(r);
    jsonl.onEnd?.(summarize(results));
    const back = readResultsDir(dir).results[1];
    expect(back.status).toBe('inconclusive');
    expect(back.passed).toBeUndefined();
    expect(back.turns[1].expectations[0].inconclusive?.segments[0]).toMatchObject({
      transcript: 'the capital of france is paris',
      check_transcript: 'the capital of three and is yes',
      snippet: 'run.seg1.wav',
    });
  });

  it('html: the status in the data island and its filter, the snippet linked from the report', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-html-inc-'));
    const file = writeHtmlReport(results, summarize(results), {
      file: join(dir, 'reports', 'report.html'),
      resultsDir: dir,
      redactor,
    });
    const html = readFileSync(file, 'utf8');
    const data = JSON.parse(
      /<script type="application\/json" id="earshot-data">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '{}',
    ) as {
      summary: { counts: Record<string, number> };
      results: Array<{ status: string; outcome: string; turns: ScenarioResult['turns'] }>;
    };
    expect(data.summary.counts.inconclusive).toBe(1);
    expect(data.results[1]).toMatchObject({ status: 'inconclusive', outcome: 'inconclusive' });
    // Relative to the report in reports/, not to the results folder.
    expect(data.results[1].turns[1].expectations[0].inconclusive?.segments[0].snippet).toBe('../run.seg1.wav');
    expect(html).toContain("['inconclusive', 'Inconclusive', s.counts.inconclusive || 0]");
    expect(html).toContain('.badge.inconclusive');
  });
});
