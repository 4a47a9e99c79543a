import { describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mergeResults } from './merge.js';
import { readResultsDir } from './reader.js';
import { ResultsWriter } from './writer.js';
import { compareResults } from './identity.js';
import { summarize } from './summary.js';
import { MergeConflictError } from './errors.js';
import { makeResult, type ResultSpec } from './fixtures.testutil.js';
import { formatShard, selectShard } from '../runner/shard.js';
import type { ScenarioResult } from './types.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'earshot-merge-'));

function writeRun(dir: string, results: ScenarioResult[]): string {
  const w = new ResultsWriter(dir, { sync: false });
  for (const r of results) w.append(r);
  w.close();
  return dir;
}

/** A suite's runs as the suite would enumerate them: bots × scenarios × repeats, in manifest order. */
function suiteRuns(): ResultSpec[] {
  const runs: ResultSpec[] = [];
  for (const bot of ['voice/cartesia.py', 'voice/deepgram.py'])
    for (const file of ['capital.yaml', 'multi_turn.yaml', 'interrupt.yaml', 'dtmf.yaml', 'weather.yaml'])
      for (const repeat_index of [0, 1]) runs.push({ file: `scenarios/${file}`, bot, repeat_index });
  return runs;
}

/** Runs a spec deterministically: what a bot does does not depend on which shard ran it. */
function execute(spec: ResultSpec, shard?: string): ScenarioResult {
  const status = spec.file.includes('interrupt') && spec.repeat_index === 1 ? 'failed' : 'passed';
  const r = makeResult({ ...spec, status });
  if (shard) r.run = { ...r.run, shard };
  return r;
}

const withoutShard = (r: ScenarioResult): ScenarioResult => ({ ...r, run: { ...r.run, shard: undefined } });

describe('mergeResults', () => {
  it('merges shards 1/3, 2/3, 3/3 into exactly the result set of the unsharded run', () => {
    const specs = suiteRuns();
    const unsharded = writeRun(
      tmp(),
      specs.map((s) => execute(s)),
    );
    const shardDirs = [1, 2, 3].map((i) => {
      const mine = selectShard(specs, i, 3, { key: (s) => `${s.bot}|${s.file}|${s.repeat_index}` });
      expect(mine.length).toBeGreaterThan(0);
      return writeRun(
        tmp(),
        mine.map((s) => execute(s, formatShard({ index: i, total: 3 }))),
      );
    });
    const merged = mergeResults(shardDirs);
    const expected = readResultsDir(unsharded).results.sort(compareResults);
    expect(merged.results.map(withoutShard)).toEqual(expected.map(withoutShard));
    expect(merged.shards).toEqual(['1/3', '2/3', '3/3']);
    expect(merged.warnings).toEqual([]);
    const { wall_ms: _w, shards: _s, ...mergedSummary } = summarize(merged.results, { shards: merged.shards });
    expect(mergedSummary).toEqual(summarize(expected));
  });

  it('gives the same order whatever order the shard dirs are passed in', () => {
    const a = writeRun(tmp(), [makeResult({ file: 'z.yaml' }), makeResult({ file: 'b.yaml', bot: 'y' })]);
    const b = writeRun(tmp(), [
      makeResult({ file: 'b.yaml', bot: 'x' }),
      makeResult({ file: 'b.yaml', bot: 'x', repeat_index: 1 }),
    ]);
    const order = (dirs: string[]): string[] =>
      mergeResults(dirs).results.map((r) => `${r.file} ${r.run?.bot ?? ''} ${r.run?.repeat_index ?? 0}`);
    expect(order([a, b])).toEqual(['b.yaml x 0', 'b.yaml x 1', 'b.yaml y 0', 'z.yaml  0']);
    expect(order([b, a])).toEqual(order([a, b]));
  });

  it('refuses overlapping shards: the same run with the same attempt in two inputs', () => {
    const a = writeRun(tmp(), [makeResult({ file: 'a.yaml', bot: 'x' })]);
    const b = writeRun(tmp(), [makeResult({ file: 'a.yaml', bot: 'x', status: 'failed' })]);
    expect(() => mergeResults([a, b])).toThrow(MergeConflictError);
    expect(() => mergeResults([a, b])).toThrow(`the same run a.yaml a [x] #0 appears in ${a} and ${b}`);
    expect(() => mergeResults([a, a])).toThrow(MergeConflictError);
  });

  it('lets a later attempt of a run replace an earlier one', () => {
    const first = writeRun(tmp(), [makeResult({ file: 'a.yaml', status: 'failed', attempt: 1 })]);
    const retry = writeRun(tmp(), [makeResult({ file: 'a.yaml', status: 'passed', attempt: 2 })]);
    for (const dirs of [
      [first, retry],
      [retry, first],
    ]) {
      const merged = mergeResults(dirs);
      expect(merged.results.map((r) => r.status)).toEqual(['passed']);
      expect(merged.superseded).toBe(1);
    }
  });

  it('keeps finished results of a shard whose writer was killed mid-line, and says so', () => {
    const dir = writeRun(tmp(), [makeResult({ file: 'a.yaml' })]);
    writeFileSync(join(dir, 'results.jsonl'), `${readFileSync(join(dir, 'results.jsonl'), 'utf8')}{"name":"cut`);
    const merged = mergeResults([dir]);
    expect(merged.results).toHaveLength(1);
    expect(merged.sources[0]).toMatchObject({ results: 1, truncated: true });
    expect(merged.warnings[0]).toMatch(/incomplete line/);
  });

  it('warns when inputs come from shardings of different sizes', () => {
    const a = writeRun(tmp(), [makeResult({ file: 'a.yaml', shard: '1/2' })]);
    const b = writeRun(tmp(), [makeResult({ file: 'b.yaml', shard: '2/3' })]);
    expect(mergeResults([a, b]).warnings).toEqual(['the inputs come from shardings of different sizes: 1/2, 2/3']);
  });

  it('rebases artifact paths onto the merged output dir, or copies the files there', () => {
    const root = tmp();
    const shard = join(root, 'shard-1');
    mkdirSync(join(shard, 'recordings'), { recursive: true });
    writeFileSync(join(shard, 'recordings', 'a.wav'), 'RIFF');
    writeRun(shard, [makeResult({ file: 'a.yaml', recording: 'recordings/a.wav' })]);
    const out = join(root, 'merged');
    const rebased = mergeResults([shard], { outDir: out });
    expect(rebased.results[0].artifacts?.recording).toBe('../shard-1/recordings/a.wav');
    const copied = mergeResults([shard], { outDir: out, artifacts: 'copy' });
    expect(copied.results[0].artifacts?.recording).toBe('recordings/a.wav');
    expect(readFileSync(join(out, 'recordings', 'a.wav'), 'utf8')).toBe('RIFF');
  });

  it("moves an inconclusive expectation's segment WAV with the recording, and keeps the status and its count", () => {
    const root = tmp();
    const shard = join(root, 'shard-1');
    mkdirSync(join(shard, 'recordings'), { recursive: true });
    writeFileSync(join(shard, 'run.seg1.wav'), 'RIFF-segment');
    writeRun(shard, [makeResult({ file: 'heard.yaml', status: 'inconclusive', recording: 'recordings/a.wav' })]);
    const out = join(root, 'merged');
    const snippet = (r: ScenarioResult): string | undefined =>
      r.turns[1].expectations[0].inconclusive?.segments[0].snippet;
    const rebased = mergeResults([shard], { outDir: out });
    expect(snippet(rebased.results[0])).toBe('../shard-1/run.seg1.wav');
    const copied = mergeResults([shard], { outDir: out, artifacts: 'copy' });
    expect(snippet(copied.results[0])).toBe('run.seg1.wav');
    expect(readFileSync(join(out, 'run.seg1.wav'), 'utf8')).toBe('RIFF-segment');
    expect(copied.results[0].status).toBe('inconclusive');
    expect(summarize(copied.results).counts.inconclusive).toBe(1);
  });

  it('copies clashing artifact names from different inputs to separate places', () => {
    const root = tmp();
    const dirs = [1, 2].map((i) => {
      const d = join(root, `s${i}`);
      mkdirSync(join(d, 'rec'), { recursive: true });
      writeFileSync(join(d, 'rec', 'x.wav'), `from ${i}`);
      return writeRun(d, [makeResult({ file: `f${i}.yaml`, recording: 'rec/x.wav' })]);
    });
    const out = join(root, 'out');
    const merged = mergeResults(dirs, { outDir: out, artifacts: 'copy' });
    const paths = merged.results.map((r) => r.artifacts?.recording ?? '');
    expect(paths).toEqual(['rec/x.wav', 'input-2/rec/x.wav']);
    expect(paths.map((p) => readFileSync(join(out, p), 'utf8'))).toEqual(['from 1', 'from 2']);
  });

  it('never copies an artifact path that leaves its input dir', () => {
    const root = tmp();
    const shard = join(root, 's');
    writeRun(shard, [makeResult({ file: 'a.yaml', recording: '../outside.wav' })]);
    writeFileSync(join(root, 'outside.wav'), 'x');
    const out = join(root, 'deep', 'out');
    const merged = mergeResults([shard], { outDir: out, artifacts: 'copy' });
    expect(merged.results[0].artifacts?.recording).toBe('../../outside.wav');
    expect(existsSync(join(root, 'deep', 'outside.wav'))).toBe(false);
  });
});
