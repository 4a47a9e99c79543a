import { describe, expect, it } from 'vitest';
import type { ScenarioResult, TurnResult } from '../../results/index.js';
import { renderBenchReport, summarizeBench, type BenchRun } from './report.js';

const HEADER = { url: 'ws://127.0.0.1:7860', wire: 'pipecat-eval', repeat: 3, concurrency: 2, duration_ms: 4321.4 };

function turn(
  index: number,
  status: TurnResult['status'],
  metrics: TurnResult['metrics'] = {},
  started_at_ms = index * 1000,
): TurnResult {
  return {
    index,
    status,
    duration_ms: 100,
    started_at_ms,
    input: { user: `turn ${index}` },
    expectations: [],
    metrics,
  };
}

function result(
  status: ScenarioResult['status'],
  turns: TurnResult[],
  events: ScenarioResult['events'] = [],
): ScenarioResult {
  return {
    name: 'latency',
    file: '/s/latency.yaml',
    status,
    started_at: '2026-01-01T00:00:00Z',
    duration_ms: 3000,
    turns,
    failures: [],
    events,
  };
}

describe('summarizeBench', () => {
  const runs: BenchRun[] = [
    {
      run: 0,
      result: result('passed', [
        turn(0, 'passed', { voice_to_voice_ms: 800, llm_ttfb_ms: 300 }),
        turn(1, 'passed', { voice_to_voice_ms: 1200 }),
      ]),
    },
    {
      run: 1,
      result: result('failed', [
        turn(0, 'passed', { voice_to_voice_ms: 900, llm_ttfb_ms: 310 }),
        turn(1, 'failed', { voice_to_voice_ms: null }),
      ]),
    },
    { run: 2, result: result('error', [turn(0, 'not_run'), turn(1, 'not_run')]) },
  ];
  const report = summarizeBench(runs, HEADER);

  it('counts runs by outcome', () => {
    expect(report).toMatchObject({
      runs: 3,
      passed: 1,
      failed: 1,
      errors: 1,
      repeat: 3,
      concurrency: 2,
      duration_ms: 4321,
    });
    expect(report.scenario).toEqual({ name: 'latency', file: '/s/latency.yaml' });
  });

  it('summarizes each metric over every turn that measured it (nulls are not zeros)', () => {
    const v2v = report.metrics.voice_to_voice_ms;
    expect(v2v.stats).toMatchObject({ count: 3, p50: 900, p90: 1200, p95: 1200, p99: 1200, max: 1200, min: 800 });
    expect(v2v.histogram.reduce((n, b) => n + b.count, 0)).toBe(3);
    expect(report.metrics.llm_ttfb_ms.stats).toMatchObject({ count: 2, p50: 300, max: 310 });
    expect(report.metrics.interruption_ms).toEqual({ stats: null, histogram: [], per_turn: [] });
  });

  it('also breaks each metric down per turn', () => {
    expect(report.metrics.voice_to_voice_ms.per_turn.map((t) => [t.turn_index, t.stats.count, t.stats.max])).toEqual([
      [0, 2, 900],
      [1, 1, 1200],
    ]);
  });

  it('gives each turn its pass rate over all runs (a run that never reached it counts against it)', () => {
    expect(report.turns).toEqual([
      { turn_index: 0, runs: 3, passed: 2, failed: 0, inconclusive: 0, not_run: 1, pass_rate: 0.6667 },
      { turn_index: 1, runs: 3, passed: 1, failed: 1, inconclusive: 0, not_run: 1, pass_rate: 0.3333 },
    ]);
  });

  it('counts inconclusive runs apart and leaves them out of the turn pass rate, with a column when there are any', () => {
    const doubtful = summarizeBench(
      [
        { run: 0, result: result('passed', [turn(0, 'passed')]) },
        { run: 1, result: result('inconclusive', [turn(0, 'inconclusive')]) },
      ],
      HEADER,
    );
    expect(doubtful).toMatchObject({ runs: 2, passed: 1, inconclusive: 1, failed: 0 });
    expect(doubtful.turns[0]).toMatchObject({ passed: 1, inconclusive: 1, pass_rate: 1 });
    const text = renderBenchReport(doubtful);
    expect(text).toContain('1 passed, 0 failed, 0 errors, 1 inconclusive in 4.3 s');
    expect(text).toMatch(/turn\s+passed\s+failed\s+inconclusive\s+not_run\s+pass_rate\n\s+1\s+1\s+0\s+1\s+0\s+100\.0%/);
    expect(renderBenchReport(report)).not.toContain('inconclusive');
  });

  it('renders a metric table, histograms and the pass rates', () => {
    const text = renderBenchReport(report, { ascii: true });
    expect(text).toContain(
      'bench: latency × 3 (concurrency 2) against ws://127.0.0.1:7860 (pipecat-eval): 1 passed, 1 failed, 1 errors in 4.3 s',
    );
    expect(text).toMatch(/voice_to_voice_ms\s+3\s+900\.0\s+1200\.0\s+1200\.0\s+1200\.0\s+1200\.0/);
    expect(text).toMatch(/interruption_ms\s+0\s+-\s+-/);
    expect(text).toContain('voice_to_voice_ms:\n');
    expect(text).toMatch(/#+ 1/);
    expect(text).toMatch(/1\s+2\s+0\s+1\s+66\.7%/);
    expect(text).not.toContain('yield curve');
  });
});

describe('the yield curve', () => {
  const bargeIn = (
    run: number,
    offset: number,
    metrics: TurnResult['metrics'],
    interruptedAt: number | null,
  ): BenchRun => ({
    run,
    offset_ms: offset,
    result: result(
      'passed',
      [turn(0, 'passed', {}, 0), turn(1, 'passed', metrics, 2000), turn(2, 'passed', {}, 6000)],
      [
        { name: 'bot_interrupted', at_ms: 1500 }, // in turn 0: not this turn's
        ...(interruptedAt === null ? [] : [{ name: 'bot_interrupted' as const, at_ms: interruptedAt }]),
      ],
    ),
  });
  const runs = [
    bargeIn(0, 200, { yielded: true, interruption_ms: 150 }, 2300),
    bargeIn(1, 700, { yielded: true, interruption_ms: 260 }, 2500),
    bargeIn(2, 200, { yielded: true, interruption_ms: 170 }, 2400),
    bargeIn(3, 700, { yielded: false, interruption_ms: null }, null),
    bargeIn(4, 1200, { yielded: null, interruption_ms: null }, 6100), // after the turn: the next turn's
  ];
  const report = summarizeBench(runs, {
    ...HEADER,
    repeat: 2,
    sweep: { turn_index: 1, event: 'bot_audio_started', range: { from_ms: 200, to_ms: 1200, step_ms: 500 } },
  });

  it('has one point per offset, in order, with yields, barge-ins and interruption latency', () => {
    const sweep = report.sweep!;
    expect(sweep).toMatchObject({
      turn_index: 1,
      event: 'bot_audio_started',
      range: { from_ms: 200, to_ms: 1200, step_ms: 500 },
    });
    expect(sweep.points.map((p) => [p.offset_ms, p.runs, p.barge_ins, p.yielded, p.yield_rate, p.interrupted])).toEqual(
      [
        [200, 2, 2, 2, 1, 2],
        [700, 2, 2, 1, 0.5, 1],
        [1200, 1, 0, 0, null, 0],
      ],
    );
    expect(sweep.points[0].interruption_ms).toMatchObject({ count: 2, p50: 150, max: 170 });
    expect(sweep.points[2].interruption_ms).toBeNull();
    expect(sweep.points[1].points.map((p) => [p.run, p.yielded, p.interruption_ms])).toEqual([
      [1, true, 260],
      [3, false, null],
    ]);
  });

  it("counts a run interrupted when the turn's own matcher saw bot_interrupted, or the event fell within the rounded start", () => {
    const at = (turnIndex: number, expectations: TurnResult['expectations'], eventAtMs: number): BenchRun => {
      const t = { ...turn(turnIndex, 'passed', {}, 2000), expectations };
      return {
        run: 0,
        offset_ms: 0,
        result: result('passed', [turn(0, 'passed', {}, 0), t], [{ name: 'bot_interrupted', at_ms: eventAtMs }]),
      };
    };
    const sweepOf = (r: BenchRun) =>
      summarizeBench([r], {
        ...HEADER,
        repeat: 1,
        sweep: { turn_index: 1, event: 'llm_started', range: { from_ms: 0, to_ms: 0, step_ms: 100 } },
      }).sweep!.points[0].interrupted;
    const seen = [{ index: 0, event: 'bot_interrupted' as const, status: 'passed' as const, matched_after_ms: 1 }];
    // An event stamped before the turn's whole-ms start, which the matcher still counted.
    expect(sweepOf(at(1, seen, 1990))).toBe(1);
    // No expectation: the window alone, opened half a ms early for the rounding.
    expect(sweepOf(at(1, [], 1999.6))).toBe(1);
    expect(sweepOf(at(1, [], 1999.4))).toBe(0);
    expect(sweepOf(at(1, [{ ...seen[0], status: 'failed', matched_after_ms: undefined }], 1500))).toBe(0);
  });

  it('is printed as a table', () => {
    const text = renderBenchReport(report);
    expect(text).toContain('yield curve (turn 2: send_after bot_audio_started + offset):');
    expect(text).toMatch(/200\s+2\s+2\s+2\/2\s+2\/2\s+150\.0\s+170\.0/);
    expect(text).toMatch(/700\s+2\s+2\s+1\/2\s+1\/2\s+260\.0\s+260\.0/);
    expect(text).toMatch(/1200\s+1\s+0\s+-\s+0\/1\s+-\s+-/);
  });
});
