import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { capitalCallerLlm } from '../support/sim-llm.js';
import { earshot, readResults } from '../suite/cli.testutil.js';

/**
 * `earshot run` on Pipecat 1.11 scenario files, end to end: the built CLI in a
 * subprocess against the real reference bot in another. Every scenario of a
 * `scenarios:` list runs under its `<file>/<scenario>` name; the files'
 * warnings are printed before anything starts, and `--strict` and Python
 * factories refuse the run before it connects.
 */
const ROOT = resolve(import.meta.dirname, '..', '..');
const here = (p: string): string => join(ROOT, 'test', 'e2e', 'lists', p);
const outDir = (): string => mkdtempSync(join(tmpdir(), 'earshot-lists-'));

let bot: RefbotProcess;
let llm: LlmServer;
beforeAll(async () => {
  [bot, llm] = await Promise.all([startRefbotProcess(['-q']), startLlmServer(capitalCallerLlm())]);
});
afterAll(async () => {
  await Promise.all([bot?.stop(), llm?.close()]);
});

describe('earshot run on a file holding several scenarios', () => {
  it('runs every scenario of the list, named <file name>/<scenario name>, each with its own artifacts; the simulation its runs: times', async () => {
    const out = outDir();
    const llmFlags = ['--simulator', `openai:persona@${llm.url}`, '--judge', `openai:judge@${llm.url}`];
    const run = await earshot([
      'run',
      here('capitals.yaml'),
      '--url',
      bot.url,
      ...llmFlags,
      '--out',
      out,
      '--reporter',
      'list,junit',
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    const results = readResults(out);
    expect(results.map((r) => [r.name, r.status, r.run?.repeat_index])).toEqual([
      ['capitals/germany', 'passed', undefined],
      ['capitals/france', 'passed', undefined],
      ['capitals/caller', 'passed', 0],
      ['capitals/caller', 'passed', 1],
    ]);
    expect(results[2].simulation).toMatchObject({ ended_by: 'end_call', success: { verdict: 'yes' } });
    expect(results[1].turns[1].expectations[0].text).toContain('Paris');
    // Artifact stems are unique and filesystem-safe: the id's `/` is `__`.
    expect(results.slice(0, 2).map((r) => r.artifacts?.trace)).toEqual([
      '001-capitals__germany.trace.log',
      '002-capitals__france.trace.log',
    ]);
    expect(readdirSync(out)).toEqual(
      expect.arrayContaining(['001-capitals__germany.trace.log', '002-capitals__france.trace.log', 'junit.xml']),
    );
    expect(run.stdout).toMatch(/capitals\/germany/);
    expect(run.stdout).toMatch(/capitals\/france/);
  }, 60_000);
});

describe('earshot run prints the files’ warnings before it starts', () => {
  it('says where a misspelled key is and what was meant, before the first scenario, and still runs', async () => {
    const out = outDir();
    // -v: the session's trace goes to stderr as it happens, so the warning's place in stderr says when it was printed.
    const run = await earshot([
      'run',
      here('misspelled.yaml'),
      '--url',
      bot.url,
      '--out',
      out,
      '--reporter',
      'list',
      '-v',
    ]).done;
    const lines = run.stderr.split('\n');
    expect(lines[0]).toBe(
      "test/e2e/lists/misspelled.yaml:9:13: warning: turns[0].expect[0].text_contians: unknown key 'text_contians'; did you mean 'text_contains'?",
    );
    expect(lines.length).toBeGreaterThan(3); // the trace followed
    expect(run.stdout).toContain('misspelled/typo');
    expect(readResults(out).map((r) => r.name)).toEqual(['misspelled/typo']);
  }, 60_000);

  it('warns that the old top-level shape is deprecated', async () => {
    const run = await earshot([
      'run',
      join(ROOT, 'test', 'e2e', 'wrong', 'timeout.yaml'),
      '--url',
      bot.url,
      '--out',
      outDir(),
      '--reporter',
      'dot',
      '--timeout',
      '1',
    ]).done;
    expect(run.stderr).toMatch(
      /timeout\.yaml:\d+:1: warning: turns: a scenario's own keys at the top level \('turns:'\) are deprecated since Pipecat 1\.11\.0/,
    );
  }, 60_000);
});

describe('earshot run --strict', () => {
  it('turns every warning into a located error: exit 2, nothing runs', async () => {
    const out = outDir();
    const run = await earshot(['run', here('misspelled.yaml'), '--url', bot.url, '--out', out, '--strict']).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(
      "misspelled.yaml:9:13: error: turns[0].expect[0].text_contians: unknown key 'text_contians'; did you mean 'text_contains'?",
    );
    expect(run.stderr).not.toMatch(/internal error|at .*\.js:\d+/);
    expect(readResults(out)).toEqual([]);
  }, 30_000);

  it('passes on the bundled scenarios: they use the newest format and warn about nothing', async () => {
    const run = await earshot(['validate', '--strict', 'scenarios', 'bench/suite']).done;
    expect(run.stdout).not.toMatch(/warning|error/);
    expect(run.code).toBe(0);
  }, 30_000);
});

describe('earshot run with a Python factory judge', () => {
  it('refuses in one located line that names --judge, before connecting: exit 2', async () => {
    const out = outDir();
    const run = await earshot(['run', here('python_judge.yaml'), '--url', bot.url, '--out', out]).done;
    expect(run.code).toBe(2);
    const lines = run.stderr.trim().split('\n');
    expect(lines).toEqual([
      'earshot: cannot run in Node:',
      "test/e2e/lists/python_judge.yaml:6:14: error: judge.eval.factory: evals.judges.typesafe_classifier is a Python callable (Pipecat's factory:), which earshot cannot run in Node; judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL",
    ]);
    expect(readResults(out)).toEqual([]);
  }, 30_000);
});
