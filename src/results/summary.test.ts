import { describe, expect, it } from 'vitest';
import { exitCodeOf, latestAttempts, summarize } from './summary.js';
import { makeResult } from './fixtures.testutil.js';
import { distribution } from './stats.js';

describe('summarize', () => {
  it('counts results by status and rates passes over results that ran', () => {
    const s = summarize([
      makeResult({ file: 'a.yaml' }),
      makeResult({ file: 'b.yaml', status: 'failed' }),
      makeResult({ file: 'c.yaml', status: 'error' }),
      makeResult({ file: 'd.yaml', status: 'skipped' }),
    ]);
    expect(s.counts).toEqual({ passed: 1, failed: 1, inconclusive: 0, error: 1, skipped: 1 });
    expect(s.results).toBe(4);
    expect(s.pass_rate).toBeCloseTo(1 / 3, 3);
    expect(s.ok).toBe(false);
    expect(s.failure_kinds).toEqual({ connect_failed: 1, text_mismatch: 1 });
    expect(s.turns).toEqual({ total: 8, passed: 3, failed: 1, inconclusive: 0, not_run: 4 });
  });

  it('classifies each scenario across repeats as passed, failed or flaky with its pass rate', () => {
    const runs = [
      ...[0, 1, 2].map((i) => makeResult({ file: 'steady.yaml', bot: 'x', repeat_index: i })),
      ...[0, 1].map((i) => makeResult({ file: 'broken.yaml', bot: 'x', repeat_index: i, status: 'failed' })),
      makeResult({ file: 'wobbly.yaml', bot: 'x', repeat_index: 0 }),
      makeResult({ file: 'wobbly.yaml', bot: 'x', repeat_index: 1, status: 'failed' }),
      makeResult({ file: 'wobbly.yaml', bot: 'x', repeat_index: 2 }),
      makeResult({ file: 'wobbly.yaml', bot: 'x', repeat_index: 3 }),
    ];
    const s = summarize(runs);
    const by = Object.fromEntries(s.scenarios.map((o) => [o.file, o]));
    expect(by['steady.yaml']).toMatchObject({ outcome: 'passed', ok: true, runs: 3, pass_rate: 1 });
    expect(by['broken.yaml']).toMatchObject({ outcome: 'failed', ok: false, runs: 2, pass_rate: 0 });
    expect(by['wobbly.yaml']).toMatchObject({ outcome: 'flaky', ok: false, runs: 4, passed: 3, pass_rate: 0.75 });
    expect(s.outcomes).toEqual({ passed: 1, failed: 1, flaky: 1, inconclusive: 0, skipped: 0 });
    expect(s.scenarios.map((o) => o.file)).toEqual(['broken.yaml', 'steady.yaml', 'wobbly.yaml']);
    // Each pass rate with its Wilson 95 % interval: what a few repeats can and cannot tell.
    expect(s.scenarios.map((o) => o.pass_rate_ci95)).toEqual([
      { low: 0, high: 0.658 },
      { low: 0.439, high: 1 },
      { low: 0.301, high: 0.954 },
    ]);
  });

  it('leaves inconclusive runs out of every pass rate, counts them apart, and exits 3 only when nothing failed', () => {
    const doubtful = (i: number) => makeResult({ file: 'heard.yaml', repeat_index: i, status: 'inconclusive' });
    const runs = [
      makeResult({ file: 'heard.yaml', repeat_index: 0 }),
      doubtful(1),
      doubtful(2),
      makeResult({ file: 'heard.yaml', repeat_index: 3 }),
    ];
    const s = summarize(runs);
    expect(s.counts).toMatchObject({ passed: 2, inconclusive: 2, failed: 0 });
    // 2 of 2 conclusive runs passed: neither 2/4 (a failure) nor 4/4 (a pass) of the inconclusive ones.
    expect(s.pass_rate).toBe(1);
    expect(s.scenarios[0]).toMatchObject({
      outcome: 'passed',
      ok: true,
      runs: 4,
      passed: 2,
      inconclusive: 2,
      pass_rate: 1,
    });
    expect(s.scenarios[0].turns[1]).toMatchObject({ runs: 4, passed: 2, inconclusive: 2, pass_rate: 1 });
    expect(s.turns.inconclusive).toBe(2);
    expect(s.ok).toBe(true);
    expect(exitCodeOf(s)).toBe(3);

    const only = summarize([doubtful(0), doubtful(1)]);
    expect(only.scenarios[0]).toMatchObject({ outcome: 'inconclusive', ok: true, pass_rate: null });
    expect(only.outcomes.inconclusive).toBe(1);
    expect(only.pass_rate).toBeNull();
    expect(exitCodeOf(only)).toBe(3);

    const mixed = summarize([...runs, makeResult({ file: 'other.yaml', status: 'failed' })]);
    expect(exitCodeOf(mixed)).toBe(1);
    expect(exitCodeOf(summarize([makeResult({ file: 'a.yaml' })]))).toBe(0);
  });

  it('lets a pass threshold accept a flaky scenario whose pass rate reaches it', () => {
    const runs = [0, 1, 2, 3].map((i) =>
      makeResult({ file: 'sim.yaml', repeat_index: i, status: i === 0 ? 'failed' : 'passed' }),
    );
    for (const r of runs) r.run = { ...r.run, pass_threshold: 0.75 };
    expect(summarize(runs).scenarios[0]).toMatchObject({ outcome: 'flaky', ok: true, pass_threshold: 0.75 });
    runs[1].status = 'failed';
    expect(summarize(runs).scenarios[0]).toMatchObject({ outcome: 'flaky', ok: false, pass_rate: 0.5 });
  });

  it('keeps the scenarios of one file apart: a scenarios: list is one outcome per scenario, no result superseding another', () => {
    const s = summarize([
      makeResult({ file: 'weather.yaml', name: 'weather/rain' }),
      makeResult({ file: 'weather.yaml', name: 'weather/sun', status: 'failed' }),
    ]);
    expect(s.results).toBe(2);
    expect(s.superseded).toBe(0);
    expect(s.scenarios.map((o) => [o.name, o.outcome])).toEqual([
      ['weather/rain', 'passed'],
      ['weather/sun', 'failed'],
    ]);
  });

  it('keeps the same scenario against different bots apart', () => {
    const s = summarize([
      makeResult({ file: 'capital.yaml', bot: 'voice-a.py' }),
      makeResult({ file: 'capital.yaml', bot: 'voice-b.py', status: 'failed' }),
    ]);
    expect(s.scenarios.map((o) => [o.bot, o.outcome])).toEqual([
      ['voice-a.py', 'passed'],
      ['voice-b.py', 'failed'],
    ]);
  });

  it('gives per-turn pass rates and latency percentiles across repeats', () => {
    const runs = [0, 1, 2].map((i) =>
      makeResult({ file: 'a.yaml', repeat_index: i, status: i === 2 ? 'failed' : 'passed' }),
    );
    runs[0].turns[0].metrics = { voice_to_voice_ms: 500, yielded: true };
    runs[1].turns[0].metrics = { voice_to_voice_ms: 900, yielded: false };
    runs[2].turns[0].metrics = { voice_to_voice_ms: null };
    const [turn0, turn1] = summarize(runs).scenarios[0].turns;
    expect(turn0.metrics.voice_to_voice_ms).toMatchObject({ count: 2, min: 500, p50: 500, max: 900 });
    expect(turn0.yielded).toEqual({ yes: 1, no: 1 });
    expect(turn1).toMatchObject({ runs: 3, passed: 2, failed: 1, pass_rate: 0.667 });
  });

  it('counts a retried run once, by its latest attempt', () => {
    const first = makeResult({ file: 'a.yaml', status: 'failed', attempt: 1 });
    const retry = makeResult({ file: 'a.yaml', status: 'passed', attempt: 2 });
    expect(latestAttempts([retry, first])).toEqual([retry]);
    const s = summarize([first, retry]);
    expect(s).toMatchObject({ results: 1, superseded: 1, ok: true, counts: { passed: 1, failed: 0 } });
  });

  it('is ok for an all-skipped scenario and reports no pass rate for it', () => {
    const s = summarize([makeResult({ file: 'a.yaml', status: 'skipped' })]);
    expect(s.scenarios[0]).toMatchObject({ outcome: 'skipped', ok: true, pass_rate: null });
    expect(s.scenarios[0].pass_rate_ci95).toBeUndefined();
    expect(s.pass_rate).toBeNull();
  });
});

describe('distribution', () => {
  it('uses nearest-rank percentiles, so every percentile is a measured value', () => {
    const d = distribution([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]);
    expect(d).toEqual({ count: 10, min: 10, mean: 55, p50: 50, p90: 90, p95: 100, p99: 100, max: 100 });
    expect(distribution([])).toBeNull();
    expect(distribution([Number.NaN, 5])).toMatchObject({ count: 1, p50: 5 });
  });
});
