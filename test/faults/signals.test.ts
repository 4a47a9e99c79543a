import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/results/index.js';
import { earshot, readResults, waitFor } from '../suite/cli.testutil.js';
import { faultyBots, fixture, harnessTrouble, startRun } from './faults.testutil.js';

/**
 * SIGINT / SIGTERM during `earshot run`: the scenario in flight is abandoned,
 * every finished one stays in results.jsonl, summary.json is written for what
 * finished, and the process exits 130 / 143 promptly, even while the bot
 * hangs or the connection is still being retried.
 */
const startBot = faultyBots();

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Live (non-zombie) processes whose parent is `pid`, with their command lines. */
function childrenOf(pid: number): Array<{ pid: number; cmd: string }> {
  const out: Array<{ pid: number; cmd: string }> = [];
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z' && Number(fields[1]) === pid)
        out.push({ pid: Number(name), cmd: readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ') });
    } catch {
      // gone while we looked
    }
  }
  return out;
}

function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

function summaryOf(out: string): RunSummary {
  return JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
}

describe.each([
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const)('%s during earshot run', (signal, code) => {
  it(`mid-scenario, while the bot hangs: exits ${code} within 3 s, keeping the finished scenario and writing summary.json`, async () => {
    const bot = await startBot('hang-after-turn=1');
    // Scenario 1 passes; scenario 2 hangs in its second question with 60 s left on the clock.
    const run = startRun(
      bot.url,
      [fixture('one_question'), fixture('two_questions'), fixture('another_question')],
      ['--timeout', '60'],
    );
    await waitFor(() => readResults(run.out).length === 1, 15_000, 'the first scenario to finish');
    await sleep(1500);
    const t0 = performance.now();
    run.child.kill(signal);
    const done = await run.measured;
    expect(performance.now() - t0).toBeLessThan(3000);
    expect(done.code).toBe(code);
    expect(harnessTrouble(done)).toEqual([]);
    expect(done.stderr).toContain(`earshot: ${signal}: stopping; finished results are kept`);
    expect(done.results.map((r) => [r.name, r.status])).toEqual([['fault_one_question', 'passed']]);
    const summary = summaryOf(done.out);
    expect(summary.results).toBe(1);
    expect(summary.counts.passed).toBe(1);
    // Two scenarios never finished: the run is not ok, though the one that did passed.
    expect(summary).toMatchObject({ ok: false, interrupted: true, planned: 3 });
    // The bot was left as found: earshot run does not own it.
    expect(bot.child.exitCode).toBeNull();
  }, 30_000);
});

describe('a signal before anything finished', () => {
  it('SIGTERM while connect attempts are still being retried (a 30 s connect timeout) exits 143 at once with an empty results file', async () => {
    const bot = await startBot('refuse');
    const run = startRun(bot.url, [fixture('greeting'), fixture('one_question')], ['--connect-timeout', '30']);
    await sleep(1500);
    const t0 = performance.now();
    run.child.kill('SIGTERM');
    const done = await run.measured;
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(done.code).toBe(143);
    expect(harnessTrouble(done)).toEqual([]);
    expect(done.results).toEqual([]);
    expect(existsSync(join(done.out, 'summary.json'))).toBe(true);
    expect(summaryOf(done.out)).toMatchObject({ results: 0, ok: false });
  }, 30_000);
});

describe('SIGINT during earshot demo', () => {
  it('mid-scenario: exits 130 within a few seconds and stops the reference bot it started', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-demo-signal-'));
    const demo = earshot(['demo', '--out', out, '--reporter', 'dot']);
    let bot: { pid: number; cmd: string } | undefined;
    await waitFor(
      () => {
        bot = childrenOf(demo.child.pid!).find((c) => / refbot --port \d+/.test(c.cmd));
        return bot !== undefined;
      },
      20_000,
      'the demo to start its bot',
    );
    await waitFor(
      () =>
        existsSync(join(out, 'refbot.log')) && readFileSync(join(out, 'refbot.log'), 'utf8').includes('listening on'),
      20_000,
      'the bot to listen',
    );
    // Well into the first audio scenario.
    await sleep(3000);
    expect(alive(bot!.pid)).toBe(true);
    const t0 = performance.now();
    demo.child.kill('SIGINT');
    const done = await demo.done;
    expect(performance.now() - t0).toBeLessThan(8000);
    expect(done.code).toBe(130);
    expect(done.stderr).toContain('earshot: SIGINT: stopping');
    expect(done.stderr).not.toMatch(/internal error|\n\s+at /);
    await waitFor(() => !alive(bot!.pid), 2000, `the bot (pid ${bot!.pid}) to be gone`);
    expect(existsSync(join(out, 'summary.json'))).toBe(true);
  }, 60_000);
});
