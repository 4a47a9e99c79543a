import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/results/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, FIXTURES, readResults } from './cli.testutil.js';

/**
 * `earshot run` and `earshot suite` finish through one runner, so their
 * summary.json files carry the same fields: the same scenario, once against a
 * running reference bot, once against a reference bot the suite spawns.
 */
const tmp = mkdtempSync(join(tmpdir(), 'earshot-summary-e2e-'));
let bot: RefbotProcess;
beforeAll(async () => {
  bot = await startRefbotProcess();
});
afterAll(async () => {
  await bot?.stop();
  rmSync(tmp, { recursive: true, force: true });
});

function summaryOf(out: string): RunSummary {
  return JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
}

describe('summary.json of earshot run and earshot suite', () => {
  it('has the same fields, wall time and start included', async () => {
    const runOut = join(tmp, 'run');
    const suiteOut = join(tmp, 'suite');
    const [run, suite] = await Promise.all([
      earshot(['run', 'scenarios/text/capital_question.yaml', '--url', bot.url, '--out', runOut, '--reporter', 'dot'])
        .done,
      earshot([
        'suite',
        join(FIXTURES, 'one-run.yaml'),
        '--python',
        process.execPath,
        '--out',
        suiteOut,
        '--reporter',
        'dot',
      ]).done,
    ]);
    expect({ code: run.code, stderr: run.stderr }).toEqual({ code: 0, stderr: '' });
    expect({ code: suite.code, stderr: suite.stderr }).toEqual({ code: 0, stderr: '' });
    expect(readResults(runOut).map((r) => r.status)).toEqual(['passed']);
    expect(readResults(suiteOut).map((r) => r.status)).toEqual(['passed']);

    const fromRun = summaryOf(runOut);
    const fromSuite = summaryOf(suiteOut);
    expect(Object.keys(fromRun).sort()).toEqual(Object.keys(fromSuite).sort());
    for (const summary of [fromRun, fromSuite]) {
      expect(summary).toMatchObject({ ok: true, results: 1, planned: 1 });
      expect(summary.wall_ms).toBeGreaterThan(0);
      // The run's wall time covers its one scenario.
      expect(summary.wall_ms).toBeGreaterThanOrEqual(summary.duration_ms!.max);
      expect(Date.parse(summary.started_at!)).not.toBeNaN();
      expect(summary.interrupted).toBeUndefined();
    }
  }, 120_000);
});
