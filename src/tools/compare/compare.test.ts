import { describe, expect, it } from 'vitest';
import { groupSamples, type RunSamples } from './samples.js';
import { compareMetric, compareRates, compareRuns, DEFAULT_COMPARE_SETTINGS } from './compare.js';
import { parseThreshold } from './threshold.js';
import { around, runResult, v2vRuns } from './compare.testutil.js';
import type { ScenarioResult } from '../../results/index.js';

const samples = (results: ScenarioResult[], source = 'dir'): RunSamples => ({
  source,
  path: `${source}/results.jsonl`,
  results: results.length,
  scenarios: groupSamples(results),
  warnings: [],
});
const S = DEFAULT_COMPARE_SETTINGS;

describe('compareMetric: a regression is significant AND beyond both thresholds', () => {
  it('flags +300 ms on a 1 s median (8 vs 8 runs) as regressed, with the shift, its interval and an exact p', () => {
    const m = compareMetric('voice_to_voice_ms', around(1000, 8), around(1300, 8), S);
    expect(m).toMatchObject({
      base: { n: 8, median: 1000 },
      new: { n: 8, median: 1300 },
      shift_ms: 300,
      shift_pct: 30,
      test: 'exact',
      verdict: 'regressed',
    });
    // Fully separated 8 vs 8: p = 2 / C(16, 8).
    expect(m.p_value).toBeCloseTo(2 / 12870, 12);
    expect(m.ci95!.low).toBeGreaterThan(250);
    expect(m.ci95!.high).toBeLessThan(350);
  });

  it('calls the same shift downwards improved', () => {
    expect(compareMetric('voice_to_voice_ms', around(1300, 8), around(1000, 8), S).verdict).toBe('improved');
  });

  it('leaves a significant shift under either threshold unchanged: +40 ms of 200 ms (20 %), +80 ms of 2 s (4 %)', () => {
    const small = compareMetric('llm_ttfb_ms', around(200, 10, 5), around(240, 10, 5), S);
    expect(small.p_value!).toBeLessThan(0.001);
    expect(small.verdict).toBe('unchanged');
    const relative = compareMetric('voice_to_voice_ms', around(2000, 10, 5), around(2080, 10, 5), S);
    expect(relative.p_value!).toBeLessThan(0.001);
    expect(relative.verdict).toBe('unchanged');
    // The same shifts with thresholds of their own size or below count.
    expect(
      compareMetric('llm_ttfb_ms', around(200, 10, 5), around(240, 10, 5), { ...S, threshold_ms: 30 }).verdict,
    ).toBe('regressed');
    expect(
      compareMetric('voice_to_voice_ms', around(2000, 10, 5), around(2080, 10, 5), { ...S, threshold_pct: 3 }).verdict,
    ).toBe('regressed');
  });

  it('leaves a large but insignificant shift unchanged (noisy samples that overlap)', () => {
    const m = compareMetric('voice_to_voice_ms', [900, 1500, 1100, 2000, 1000], [1700, 1050, 2100, 950, 1400], S);
    expect(m.shift_ms).toBe(300);
    expect(m.p_value!).toBeGreaterThan(0.05);
    expect(m.verdict).toBe('unchanged');
  });

  it('says too few when a side is empty or no shift could reach significance (3 vs 3 runs), and 4 vs 4 is enough', () => {
    expect(compareMetric('voice_to_voice_ms', [], [1000], S)).toMatchObject({
      verdict: 'too_few',
      shift_ms: null,
      p_value: null,
    });
    const three = compareMetric('voice_to_voice_ms', [1000, 1001, 1002], [2000, 2001, 2002], S);
    expect(three).toMatchObject({ verdict: 'too_few', p_value: 0.1, shift_ms: 1000 });
    expect(compareMetric('voice_to_voice_ms', [1000, 1001, 1002, 1003], [2000, 2001, 2002, 2003], S).verdict).toBe(
      'regressed',
    );
  });

  it('calls a significant shift of bot_speech_ms changed: talking longer is no regression', () => {
    expect(compareMetric('bot_speech_ms', around(1000, 8), around(1500, 8), S).verdict).toBe('changed');
  });

  it('is reproducible, and the seed moves only the interval', () => {
    const a = [981, 1043, 1002, 955, 1090, 1011, 968, 1037, 999, 1024, 1071, 1016];
    const b = a.map((v, i) => v + 90 + ((i * 37) % 11) * 9);
    expect(compareMetric('voice_to_voice_ms', a, b, S)).toEqual(compareMetric('voice_to_voice_ms', a, b, S));
    const other = compareMetric('voice_to_voice_ms', a, b, { ...S, seed: 3 });
    expect(other.ci95).not.toEqual(compareMetric('voice_to_voice_ms', a, b, S).ci95);
    expect(other.p_value).toBe(compareMetric('voice_to_voice_ms', a, b, S).p_value);
  });
});

describe('compareRates', () => {
  it('flags 10/10 → 3/10 as regressed, 10/10 → 9/10 not, and a rise as improved', () => {
    const drop = compareRates({ passed: 10, trials: 10 }, { passed: 3, trials: 10 });
    expect(drop.verdict).toBe('regressed');
    expect(drop.base).toMatchObject({ passed: 10, trials: 10, rate: 1, high: 1 });
    expect(drop.difference!.difference).toBeCloseTo(-0.7, 12);
    expect(drop.difference!.high).toBeLessThan(0);
    expect(compareRates({ passed: 10, trials: 10 }, { passed: 9, trials: 10 }).verdict).toBe('unchanged');
    expect(compareRates({ passed: 2, trials: 10 }, { passed: 10, trials: 10 }).verdict).toBe('improved');
    expect(compareRates({ passed: 0, trials: 0 }, { passed: 1, trials: 1 })).toMatchObject({
      verdict: 'too_few',
      difference: null,
      base: { rate: null },
    });
  });
});

describe('compareRuns', () => {
  it('compares per scenario and turn, and a regression anywhere makes the scenario and the report regress', () => {
    const base = samples(v2vRuns(around(1000, 6)), 'base');
    const next = samples(v2vRuns(around(1400, 6)), 'new');
    const report = compareRuns(base, next);
    expect(report.ok).toBe(false);
    expect(report.counts).toEqual({ regressed: 1, improved: 0, changed: 0, unchanged: 0, too_few: 0 });
    const [s] = report.scenarios;
    expect(s).toMatchObject({ name: 'capital', matched_by: 'file', base_runs: 6, new_runs: 6, verdict: 'regressed' });
    expect(s.pass_rate.verdict).toBe('unchanged');
    expect(s.turns.map((t) => [t.index, t.verdict, t.metrics.map((m) => `${m.metric}:${m.verdict}`)])).toEqual([
      [0, 'unchanged', []],
      [1, 'regressed', ['voice_to_voice_ms:regressed', 'llm_ttfb_ms:unchanged']],
    ]);
  });

  it('does not flag two samples of the same distribution', () => {
    const report = compareRuns(samples(v2vRuns(around(1000, 8, 60))), samples(v2vRuns(around(1010, 8, 60).reverse())));
    expect(report.ok).toBe(true);
    expect(report.scenarios[0].verdict).toBe('unchanged');
  });

  it('counts errored runs as not passed and leaves skipped runs out of the pass rate', () => {
    const base = samples([0, 1, 2, 3].map((i) => runResult({ turns: [{}] }, i)));
    const next = samples([
      runResult({ status: 'error', turns: [{ status: 'not_run' }] }, 0),
      runResult({ status: 'skipped', turns: [] }, 1),
      runResult({ turns: [{}] }, 2),
    ]);
    const s = compareRuns(base, next).scenarios[0];
    expect(s.pass_rate.new).toMatchObject({ passed: 1, trials: 2 });
    expect(s.new_runs).toBe(3);
    // A turn that did not run is neither a pass nor a failure of that turn.
    expect(s.turns[0].pass_rate.new).toMatchObject({ passed: 1, trials: 1 });
  });

  it('leaves inconclusive runs and turns out of the pass rate: neither a pass nor a failure', () => {
    const base = samples([0, 1, 2, 3].map((i) => runResult({ turns: [{}] }, i)));
    const next = samples([
      ...[0, 1, 2].map((i) => runResult({ status: 'inconclusive', turns: [{ status: 'inconclusive' }] }, i)),
      runResult({ turns: [{}] }, 3),
    ]);
    const s = compareRuns(base, next).scenarios[0];
    expect(s.pass_rate.new).toMatchObject({ passed: 1, trials: 1 });
    expect(s.turns[0].pass_rate.new).toMatchObject({ passed: 1, trials: 1 });
    expect(s.new_runs).toBe(4);
    // 3 of 4 inconclusive is no regression of a 4/4 pass rate: too few conclusive runs to say.
    expect(s.pass_rate.verdict).not.toBe('regressed');
  });

  it('pairs by file and bot, then by name for files that moved (another checkout), and lists the rest', () => {
    const base = samples([
      ...v2vRuns([1000], { file: '/a/scenarios/x.yaml', name: 'x' }),
      ...v2vRuns([1000], { file: '/a/scenarios/y.yaml', name: 'y' }),
      ...v2vRuns([1000], { file: '/a/scenarios/gone.yaml', name: 'gone' }),
      ...v2vRuns([1000], { file: '/a/scenarios/x.yaml', name: 'x', bot: 'b2' }),
    ]);
    const next = samples([
      ...v2vRuns([1000], { file: '/a/scenarios/x.yaml', name: 'x' }),
      ...v2vRuns([1000], { file: '/b/scenarios/y.yaml', name: 'y' }),
      ...v2vRuns([1000], { file: '/b/scenarios/fresh.yaml', name: 'fresh' }),
    ]);
    const report = compareRuns(base, next);
    expect(report.scenarios.map((s) => [s.name, s.bot ?? '', s.matched_by])).toEqual([
      ['x', '', 'file'],
      ['y', '', 'name'],
    ]);
    expect(report.only_in_base.map((s) => [s.name, s.bot ?? ''])).toEqual([
      ['gone', ''],
      ['x', 'b2'],
    ]);
    expect(report.only_in_new.map((s) => s.name)).toEqual(['fresh']);
  });
});

describe('parseThreshold', () => {
  it('reads a relative and an absolute part; a part left out is 0', () => {
    expect(parseThreshold('10%,50ms')).toEqual({ threshold_pct: 10, threshold_ms: 50 });
    expect(parseThreshold(' 50 ms , 12.5% ')).toEqual({ threshold_pct: 12.5, threshold_ms: 50 });
    expect(parseThreshold('20%')).toEqual({ threshold_pct: 20, threshold_ms: 0 });
    expect(() => parseThreshold('10')).toThrow('--threshold "10": cannot read "10" (expected e.g. 10%,50ms');
    expect(() => parseThreshold('10%,5%')).toThrow('% given twice');
    expect(() => parseThreshold(',')).toThrow('empty');
  });
});
