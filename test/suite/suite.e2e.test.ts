import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary, ScenarioResult } from '../../src/results/index.js';
import { earshot, essence, FIXTURES, livePids, readResults, waitFor, type CliRun } from './cli.testutil.js';

/**
 * `earshot suite` end to end: the built CLI spawns real reference bots (one per
 * run, each on its own port) from a Pipecat-format manifest, twice each, and
 * its results are checked as a user would read them; then the same suite in
 * three shards, merged, must equal the unsharded run.
 */
const tmp = mkdtempSync(join(tmpdir(), 'earshot-suite-e2e-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const MANIFEST = join(FIXTURES, 'e2e.yaml');
const PYTHON = ['--python', process.execPath];

describe('earshot suite: several reference bots, repeat 2', () => {
  const out = join(tmp, 'full');
  const pids = join(tmp, 'pids-full');
  let run: CliRun;
  let results: ScenarioResult[];
  let summary: RunSummary;

  beforeAll(async () => {
    run = await earshot(['suite', MANIFEST, ...PYTHON, '--out', out, '--reporter', 'dot,junit'], {
      EARSHOT_TEST_PID_DIR: pids,
    }).done;
    results = readResults(out);
    summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
  }, 180_000);

  const find = (bot: string, scenario: string, repeat: number): ScenarioResult => {
    const r = results.find(
      (x) => x.run?.bot === bot && x.file.endsWith(`/${scenario}.yaml`) && x.run?.repeat_index === repeat,
    );
    if (!r)
      throw new Error(
        `no result for ${bot} ${scenario} #${repeat} in ${results.map((x) => `${x.run?.bot} ${x.file} #${x.run?.repeat_index}`).join(', ')}`,
      );
    return r;
  };

  it('exits 1 because a bot never started and another is flaky, after running every run', () => {
    expect(run.stderr).not.toMatch(/internal error|Error:/);
    expect(run.code).toBe(1);
    expect(results).toHaveLength(8);
  });

  it('passes every scenario of the healthy bot, in both repeats', () => {
    for (const scenario of ['capital_question', 'weather_function_call']) {
      for (const repeat of [0, 1]) {
        const r = find('good.mjs', scenario, repeat);
        expect({ status: r.status, failures: r.failures }).toEqual({ status: 'passed', failures: [] });
        expect(r.turns.every((t) => t.status === 'passed')).toBe(true);
      }
    }
  });

  it('reports a bot that fails to start for its scenarios: connect_failed with its exit code and log tail', () => {
    for (const repeat of [0, 1]) {
      const r = find('broken.mjs', 'capital_question', repeat);
      expect(r.status).toBe('failed');
      expect(r.failures).toHaveLength(1);
      expect(r.failures[0]).toMatchObject({ kind: 'connect_failed', turn_index: null });
      expect(r.failures[0].reason).toMatch(
        /bot broken\.mjs exited with code 2 before accepting connections on port \d+/,
      );
      expect(r.failures[0].reason).toMatch(/last lines of its log:[\s\S]*no-such-fault/);
      expect(r.turns.every((t) => t.status === 'not_run')).toBe(true);
      expect(readFileSync(join(out, r.artifacts!.bot_log!), 'utf8')).toMatch(/unknown fault/);
    }
  });

  it('classifies a scenario that passes in one repeat and fails in the other as flaky, with its pass rate', () => {
    expect(find('flaky.mjs', 'capital_question', 0).status).toBe('passed');
    const crashed = find('flaky.mjs', 'capital_question', 1);
    expect(crashed.status).toBe('failed');
    expect(crashed.failures.map((f) => f.kind)).toEqual(['bot_disconnected']);
    expect(crashed.failures[0].reason).toMatch(/bot flaky\.mjs exited with code 70/);
    const outcome = (bot: string, scenario: string) =>
      summary.scenarios.find((s) => s.bot === bot && s.file.endsWith(`/${scenario}.yaml`));
    expect(outcome('flaky.mjs', 'capital_question')).toMatchObject({
      outcome: 'flaky',
      ok: false,
      runs: 2,
      passed: 1,
      pass_rate: 0.5,
    });
    expect(outcome('broken.mjs', 'capital_question')).toMatchObject({ outcome: 'failed', ok: false, pass_rate: 0 });
    expect(outcome('good.mjs', 'weather_function_call')).toMatchObject({ outcome: 'passed', ok: true, pass_rate: 1 });
    expect(summary.outcomes).toEqual({ passed: 2, failed: 1, flaky: 1, inconclusive: 0, skipped: 0 });
    expect(summary.ok).toBe(false);
  });

  it('keeps each bot’s own log and the session trace beside the results, one set per run', () => {
    const good = find('good.mjs', 'capital_question', 1);
    expect(good.artifacts).toMatchObject({
      bot_log: expect.stringMatching(/__r1\.bot\.log$/),
      trace: expect.stringMatching(/__r1\.trace\.log$/),
    });
    expect(readFileSync(join(out, good.artifacts!.bot_log!), 'utf8')).toMatch(/refbot listening on ws:\/\//);
    expect(readFileSync(join(out, good.artifacts!.trace!), 'utf8')).toMatch(
      /send: eval-cancel[\s\S]*bot: exited with code 0/,
    );
    const logs = new Set(results.map((r) => r.artifacts?.bot_log));
    expect(logs.size).toBe(results.length);
    expect(good.run).toMatchObject({
      bot: 'good.mjs',
      repeat_index: 1,
      attempt: 1,
      url: expect.stringMatching(/^ws:\/\/localhost:\d+$/),
    });
    expect(existsSync(join(out, 'junit.xml'))).toBe(true);
  });

  it('uses one port per run and leaves no bot running', () => {
    const urls = results.flatMap((r) => (r.run?.url ? [r.run.url] : []));
    expect(urls).toHaveLength(6); // the broken bot's runs never connected
    expect(new Set(urls).size).toBe(urls.length);
    expect(livePids(pids)).toEqual([]);
  });

  it('merges shards 1/3, 2/3 and 3/3 into the same result set as the unsharded run', async () => {
    const shardOuts = [1, 2, 3].map((i) => join(tmp, `shard-${i}`));
    const shards = await Promise.all(
      shardOuts.map(
        (dir, i) =>
          earshot(['suite', MANIFEST, ...PYTHON, '-c', '2', '--shard', `${i + 1}/3`, '--out', dir, '--reporter', 'dot'])
            .done,
      ),
    );
    const shardOk = shardOuts.map((d) => (JSON.parse(readFileSync(join(d, 'summary.json'), 'utf8')) as RunSummary).ok);
    expect(shards.map((s) => s.code)).toEqual(shardOk.map((ok) => (ok ? 0 : 1)));
    const sizes = shardOuts.map((d) => readResults(d).length);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(8);
    expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(2);
    expect(readResults(shardOuts[1]).every((r) => r.run?.shard === '2/3')).toBe(true);

    const merged = join(tmp, 'merged');
    const merge = await earshot(['merge', ...shardOuts, '--out', merged, '--reporter', 'dot,junit']).done;
    expect(merge.stderr).not.toMatch(/warning|error/);
    expect(merge.code).toBe(1);
    expect(essence(readResults(merged))).toEqual(essence(results));
    const mergedSummary = JSON.parse(readFileSync(join(merged, 'summary.json'), 'utf8')) as RunSummary;
    expect(mergedSummary.shards).toEqual(['1/3', '2/3', '3/3']);
    expect(mergedSummary.outcomes).toEqual(summary.outcomes);
    expect(mergedSummary.scenarios.map((s) => [s.file, s.bot, s.outcome, s.pass_rate])).toEqual(
      summary.scenarios.map((s) => [s.file, s.bot, s.outcome, s.pass_rate]),
    );
    // Artifacts still open from the merged dir.
    const first = readResults(merged)[0];
    expect(readFileSync(join(merged, first.artifacts!.bot_log!), 'utf8').length).toBeGreaterThan(0);
  }, 180_000);
});

describe('scenarios/suite.yaml, the example manifest', () => {
  it('spawns `earshot refbot` per run and passes every bundled text scenario', async () => {
    const out = join(tmp, 'example');
    const run = await earshot(['suite', 'scenarios/suite.yaml', '--out', out, '--reporter', 'dot']).done;
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const results = readResults(out);
    expect(results.map((r) => r.file).sort()).toEqual([
      'text/barge_in.yaml',
      'text/capital_question.yaml',
      'text/context_seeding.yaml',
      'text/dtmf_menu.yaml',
      'text/multi_turn_memory.yaml',
      'text/no_duplicate_answer.yaml',
      'text/weather_and_restaurant.yaml',
      'text/weather_function_call.yaml',
    ]);
    expect(results.every((r) => r.status === 'passed')).toBe(true);
  }, 120_000);
});

describe('earshot suite under a signal', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const)(
    '%s: keeps the finished scenario, stops every bot, exits %i',
    async (signal, code) => {
      const out = join(tmp, `signal-${signal}`);
      const pids = join(tmp, `pids-${signal}`);
      const started = earshot(['suite', join(FIXTURES, 'signal.yaml'), ...PYTHON, '--out', out, '--reporter', 'dot'], {
        EARSHOT_TEST_PID_DIR: pids,
      });
      await waitFor(() => readResults(out).length === 1, 60_000, 'the quick scenario to finish');
      expect(livePids(pids)).toHaveLength(1); // long_wait's bot, mid-scenario
      const t0 = performance.now();
      started.child.kill(signal);
      const run = await started.done;
      expect(performance.now() - t0).toBeLessThan(10_000);
      expect(run.code).toBe(code);
      expect(run.stderr).toContain(`${signal}: stopping`);
      const results = readResults(out);
      expect(results.map((r) => [r.name, r.status])).toEqual([['capital_question/text', 'passed']]);
      const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
      expect(summary.results).toBe(1);
      // Runs were left unrun: the summary says so and is not ok, though the finished one passed.
      expect(summary).toMatchObject({ ok: false, interrupted: true });
      expect(summary.planned).toBeGreaterThan(1);
      expect(livePids(pids)).toEqual([]);
    },
    90_000,
  );
});
