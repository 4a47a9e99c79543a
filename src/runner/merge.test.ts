import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { readResultsDir, ResultsWriter, summarize, type RunSummary, type ScenarioResult } from '../results/index.js';
import { mergeRuns, missingShards } from './merge.js';
import { VirtualTerminal } from '../report/terminal.testutil.js';

const root = mkdtempSync(join(tmpdir(), 'earshot-merge-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a terminal reporter wrote (not a TTY), for asserting on and keeping the test output clean. */
const sink = (): VirtualTerminal => new VirtualTerminal(false);

function result(
  file: string,
  bot: string,
  repeat: number,
  status: 'passed' | 'failed',
  shard?: string,
): ScenarioResult {
  const failed = status === 'failed';
  return {
    name: file.replace(/\.yaml$/, ''),
    file,
    status,
    started_at: `2026-11-30T10:00:0${repeat}.000Z`,
    duration_ms: 1000 + repeat,
    turns: [
      {
        index: 0,
        status,
        duration_ms: 900,
        input: { user: 'hi' },
        expectations: [{ index: 0, event: 'response', status }],
      },
    ],
    failures: failed
      ? [
          {
            kind: 'timeout',
            turn_index: 0,
            expectation_index: 0,
            event: 'response',
            reason: 'no response within 1000ms',
          },
        ]
      : [],
    artifacts: { trace: `${file}-${repeat}.trace.log`, bot_log: `${file}-${repeat}.bot.log` },
    run: { bot, repeat_index: repeat, attempt: 1, ...(shard ? { shard } : {}) },
  };
}

/** A shard's output dir as `earshot suite --shard` leaves it: results.jsonl, summary.json, artifacts. */
function shardDir(name: string, results: ScenarioResult[], shard?: string): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  const writer = new ResultsWriter(dir, { sync: false });
  for (const r of results) {
    writer.append(r);
    writeFileSync(join(dir, r.artifacts!.trace!), `trace of ${r.file}`);
  }
  writer.writeSummary(summarize(results, shard ? { shards: [shard] } : {}));
  writer.close();
  return dir;
}

describe('mergeRuns', () => {
  it('combines shard outputs into one results.jsonl and summary.json, classifying across repeats', async () => {
    const a = shardDir(
      'm1/s1',
      [result('greet.yaml', 'bot', 0, 'passed', '1/2'), result('flaky.yaml', 'bot', 1, 'failed', '1/2')],
      '1/2',
    );
    const b = shardDir(
      'm1/s2',
      [result('flaky.yaml', 'bot', 0, 'passed', '2/2'), result('greet.yaml', 'bot', 1, 'passed', '2/2')],
      '2/2',
    );
    const out = join(root, 'm1/merged');
    const stdout = sink();
    const merged = await mergeRuns({
      dirs: [a, b],
      outDir: out,
      reporter: 'dot',
      stdout,
      stderr: sink(),
      clock: new ManualClock(),
    });
    expect(merged.missing).toEqual([]);
    expect(merged.warnings).toEqual([]);
    const back = readResultsDir(out).results;
    expect(back.map((r) => `${r.file}#${r.run?.repeat_index}`)).toEqual([
      'flaky.yaml#0',
      'flaky.yaml#1',
      'greet.yaml#0',
      'greet.yaml#1',
    ]);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.shards).toEqual(['1/2', '2/2']);
    expect(summary.ok).toBe(false);
    expect(summary.scenarios.map((s) => [s.file, s.outcome, s.pass_rate])).toEqual([
      ['flaky.yaml', 'flaky', 0.5],
      ['greet.yaml', 'passed', 1],
    ]);
    expect(merged.summary.outcomes).toEqual({ passed: 1, failed: 0, flaky: 1, skipped: 0, inconclusive: 0 });
    // Artifacts point back into the shard dirs, from the merged dir.
    const trace = back.find((r) => r.file === 'flaky.yaml' && r.run?.repeat_index === 1)!.artifacts!.trace!;
    expect(readFileSync(resolve(out, trace), 'utf8')).toBe('trace of flaky.yaml');
    expect(stdout.raw).toContain('F');
  });

  it('renders the chosen reports again from the merged set', async () => {
    const a = shardDir('m2/s1', [result('greet.yaml', 'bot', 0, 'passed', '1/1')], '1/1');
    const out = join(root, 'm2/merged');
    await mergeRuns({
      dirs: [a],
      outDir: out,
      reporter: `dot,junit,json=${join(out, 'sum.json')}`,
      stdout: sink(),
      stderr: sink(),
    });
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toContain('greet.yaml');
    expect(JSON.parse(readFileSync(join(out, 'sum.json'), 'utf8'))).toMatchObject({ results: 1, ok: true });
  });

  it('copies artifacts into the output when asked, so it stands alone', async () => {
    const a = shardDir('m3/s1', [result('greet.yaml', 'bot', 0, 'passed')]);
    const out = join(root, 'm3/merged');
    await mergeRuns({ dirs: [a], outDir: out, reporter: 'dot', artifacts: 'copy', stdout: sink(), stderr: sink() });
    const [r] = readResultsDir(out).results;
    expect(r.artifacts!.trace).toBe('greet.yaml-0.trace.log');
    expect(existsSync(join(out, 'greet.yaml-0.trace.log'))).toBe(true);
  });

  it('says which shards are missing, counting a shard that ran nothing as present', async () => {
    const a = shardDir('m4/s1', [result('greet.yaml', 'bot', 0, 'passed', '1/3')], '1/3');
    const empty = shardDir('m4/s3', [], '3/3');
    const merged = await mergeRuns({
      dirs: [a, empty],
      outDir: join(root, 'm4/merged'),
      reporter: 'dot',
      stdout: sink(),
      stderr: sink(),
    });
    expect(merged.missing).toEqual(['2/3']);
    expect(merged.warnings.join('\n')).toMatch(/shard 2\/3 missing from the inputs/);
  });

  it('refuses overlapping shards instead of picking one', async () => {
    const a = shardDir('m5/s1', [result('greet.yaml', 'bot', 0, 'passed', '1/2')], '1/2');
    const b = shardDir('m5/s2', [result('greet.yaml', 'bot', 0, 'failed', '2/2')], '2/2');
    await expect(
      mergeRuns({ dirs: [a, b], outDir: join(root, 'm5/merged'), reporter: 'dot', stdout: sink(), stderr: sink() }),
    ).rejects.toThrow(/appears in .* and .*shards must not overlap/);
  });

  it('needs at least one input, and an input that is a run output dir', async () => {
    await expect(mergeRuns({ dirs: [], outDir: join(root, 'x') })).rejects.toThrow(/at least one/);
    await expect(mergeRuns({ dirs: [join(root, 'nope'), root], outDir: join(root, 'x') })).rejects.toMatchObject({
      exitCode: 2,
      message: `not a run output dir (no results.jsonl): ${join(root, 'nope')}, ${root}; pass the folders given to --out of each shard`,
    });
  });
});

describe('missingShards', () => {
  it('lists the indices of N that no input holds', () => {
    expect(missingShards(['1/4', '3/4'])).toEqual(['2/4', '4/4']);
    expect(missingShards(['1/2', '2/2'])).toEqual([]);
  });

  it('says nothing for inputs that were not shards or disagree on N', () => {
    expect(missingShards([])).toEqual([]);
    expect(missingShards(['1/2', '1/3'])).toEqual([]);
  });
});
