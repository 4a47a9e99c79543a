import { describe, expect, it } from 'vitest';
import type { ScenarioResult, SimulationEntry } from '../results/index.js';
import type { SimulationMetric } from '../scenario/index.js';
import { aggregateRuns, runsOf } from './runs.js';
import { callMatches, madeCalls, measureMetric, replyLatencies, scoreJudgedMetric, type RunFacts } from './score.js';

const TRANSCRIPT: SimulationEntry[] = [
  { kind: 'bot', at_ms: 100, text: 'Hello, how can I help?' },
  { kind: 'caller', at_ms: 1000, text: 'A table for two at 6 PM, please.', turn_index: 0 },
  { kind: 'call', at_ms: 1200, name: 'check_availability', args: { time: '6 PM', party_size: 2 } },
  { kind: 'call', at_ms: 1250, name: 'book_table', tool_call_id: 'c2', args: { time: '6 PM' }, cancelled: true },
  { kind: 'call', at_ms: 1300, name: 'book_table', tool_call_id: 'c3', args: { time: '6 PM', party_size: 2 } },
  {
    kind: 'bot',
    at_ms: 1500,
    text: 'You are booked for two at 6 PM tonight, see you then and thank you for calling us today.',
  },
  { kind: 'caller', at_ms: 2500, text: 'Thanks, bye.', turn_index: 1 },
  { kind: 'bot', at_ms: 2700, text: 'Goodbye.' },
];

const facts = (over: Partial<RunFacts> = {}): RunFacts => ({
  transcript: TRANSCRIPT,
  personaTurns: 2,
  durationS: 2.6,
  latency: { valuesS: [0.4, 1.25], timed: 'to the first token' },
  ...over,
});

const measured = (m: Partial<SimulationMetric> & Pick<SimulationMetric, 'measure'>): SimulationMetric => ({
  name: m.measure ?? 'm',
  weight: 1,
  ...m,
});

describe('measured metrics (Pipecat: no judge, 1 inside the range, 0 outside)', () => {
  it('turns, duration, words and latency against their bounds, with the value and what was timed', () => {
    expect(measureMetric(measured({ measure: 'turns', min_value: 2, max_value: 8 }), facts())).toMatchObject({
      score: 1,
      passed: true,
      value: 2,
      reason: '2 persona turn(s), between 2 and 8',
    });
    expect(measureMetric(measured({ measure: 'turns', max_value: 1 }), facts())).toMatchObject({
      score: 0,
      passed: false,
      failure_kind: 'out_of_range',
    });
    expect(measureMetric(measured({ measure: 'duration', max_value: 2 }), facts())).toMatchObject({
      passed: false,
      value: 2.6,
      reason: '2.6 s, at most 2',
    });
    const words = measureMetric(measured({ measure: 'words', max_value: 10 }), facts());
    expect(words).toMatchObject({ passed: false, value: 19, reason: 'longest reply 19 words, at most 10' });
    expect(measureMetric(measured({ measure: 'latency', max_value: 1 }), facts())).toMatchObject({
      passed: false,
      value: 1.25,
      reason: 'slowest reply 1.25 s to the first token, at most 1',
    });
    expect(measureMetric(measured({ measure: 'latency', min_value: 0.1 }), facts())).toMatchObject({
      passed: true,
      reason: 'slowest reply 1.25 s to the first token, at least 0.1',
    });
  });

  it('nothing to measure is unscored and passes', () => {
    const silent = facts({ transcript: [], latency: { valuesS: [], timed: 'to the first token' } });
    expect(measureMetric(measured({ measure: 'words', max_value: 1 }), silent)).toMatchObject({
      score: null,
      passed: true,
      value: null,
      reason: 'no reply to measure, at most 1',
    });
    expect(measureMetric(measured({ measure: 'latency', max_value: 1 }), silent)).toMatchObject({
      score: null,
      passed: true,
    });
  });

  it('function_calls: every listed call made, none unlisted, args a subset, cancelled calls did not happen', () => {
    expect(madeCalls(TRANSCRIPT).map((c) => c.name)).toEqual(['check_availability', 'book_table']);
    const ok = measureMetric(
      measured({
        measure: 'function_calls',
        calls: [{ name: 'check_availability' }, { name: 'book_table', args: { party_size: 2 } }],
      }),
      facts(),
    );
    expect(ok).toMatchObject({ score: 1, passed: true, value: 2 });
    const missing = measureMetric(
      measured({
        measure: 'function_calls',
        calls: [{ name: 'check_availability' }, { name: 'book_table', args: { party_size: 4 } }],
      }),
      facts(),
    );
    expect(missing).toMatchObject({ passed: false, failure_kind: 'function_calls' });
    expect(missing.reason).toContain('expected check_availability, book_table({"party_size":4})');
    const none = measureMetric(measured({ measure: 'function_calls', calls: [] }), facts());
    expect(none).toMatchObject({ passed: false, reason: expect.stringContaining('expected none') });
    expect(measureMetric(measured({ measure: 'function_calls', calls: [] }), facts({ transcript: [] }))).toMatchObject({
      passed: true,
      reason: 'no calls, expected none',
    });
    expect(
      callMatches(
        { name: 'book_table', args: { time: '6 PM' } },
        { name: 'book_table', args: { time: '6 PM', party_size: 2 } },
      ),
    ).toBe(true);
    expect(callMatches({ args: { time: '7 PM' } }, { name: 'book_table', args: { time: '6 PM' } })).toBe(false);
  });
});

describe('judged metrics (the share of replies the judge said yes to)', () => {
  const metric: SimulationMetric = { name: 'politeness', criterion: 'courteous', weight: 1, min_score: 0.75 };

  it('scores the share of yes; min_score gates it; a failure says judge_no, or judge_no_verdict when only unanswered', () => {
    const yes = { verdict: 'yes' as const, reason: 'ok' };
    expect(
      scoreJudgedMetric(
        metric,
        [1, 2, 3, 4].map((turn) => ({ turn, ...yes })),
      ),
    ).toMatchObject({ score: 1, passed: true, reason: 'all 4 replies' });
    const one = scoreJudgedMetric(metric, [
      { turn: 1, ...yes },
      { turn: 2, ...yes },
      { turn: 3, ...yes },
      { turn: 4, verdict: 'no', reason: 'curt' },
    ]);
    expect(one).toMatchObject({ score: 0.75, passed: true, reason: 'reply 4: curt' });
    const two = scoreJudgedMetric(metric, [
      { turn: 1, ...yes },
      { turn: 2, verdict: 'none', reason: 'left out' },
      { turn: 3, verdict: 'no', reason: 'curt' },
    ]);
    expect(two).toMatchObject({ passed: false, failure_kind: 'judge_no' });
    expect(two.score).toBeCloseTo(1 / 3);
    const unanswered = scoreJudgedMetric(metric, [{ turn: 1, verdict: 'none', reason: 'left out' }]);
    expect(unanswered).toMatchObject({ score: 0, passed: false, failure_kind: 'judge_no_verdict' });
  });

  it('no min_score: reported, never failing; no reply: unscored and passing', () => {
    const { min_score: _, ...ungated } = metric;
    expect(scoreJudgedMetric(ungated, [{ turn: 1, verdict: 'no', reason: 'curt' }])).toMatchObject({
      score: 0,
      passed: true,
    });
    expect(scoreJudgedMetric(metric, [])).toMatchObject({ score: null, passed: true, reason: 'no bot reply to judge' });
  });
});

describe('latency as Pipecat times it', () => {
  const transcript: SimulationEntry[] = [
    { kind: 'caller', at_ms: 1000, text: 'one', turn_index: 0 },
    { kind: 'caller', at_ms: 5000, text: 'two', turn_index: 1 },
  ];

  it("text: each caller turn's first_token_ms", () => {
    const result = {
      turns: [{ metrics: { first_token_ms: 420 } }, { metrics: { first_token_ms: null } }],
      events: [],
    } as unknown as ScenarioResult;
    expect(replyLatencies(result, transcript, false)).toEqual({ valuesS: [0.42], timed: 'to the first token' });
  });

  it('audio: from the bot noticing the caller stop to its first spoken sentence, per caller turn', () => {
    const result = {
      turns: [],
      events: [
        { name: 'user_stopped_speaking', at_ms: 2000 },
        { name: 'tts_response', at_ms: 2900, text: 'Sure.' },
        { name: 'tts_response', at_ms: 3500, text: 'More.' },
        { name: 'user_stopped_speaking', at_ms: 6000 },
      ],
    } as unknown as ScenarioResult;
    expect(replyLatencies(result, transcript, true)).toEqual({
      valuesS: [0.9],
      timed: 'from the persona stopping to the first spoken sentence',
    });
  });
});

describe('runs', () => {
  const r = (status: ScenarioResult['status']): Pick<ScenarioResult, 'status'> => ({ status });
  it('every run must pass; an errored run makes it an error and stays out of the rate; --repeat only measures', () => {
    expect(aggregateRuns({ pass_threshold: 1 }, [r('passed'), r('passed'), r('passed')])).toMatchObject({
      status: 'passed',
      pass_rate: 1,
    });
    expect(aggregateRuns({ pass_threshold: 1 }, [r('passed'), r('failed'), r('passed')])).toMatchObject({
      status: 'failed',
      failed_runs: 1,
    });
    expect(aggregateRuns({ pass_threshold: 0.5 }, [r('passed'), r('failed')])).toMatchObject({
      status: 'passed',
      pass_rate: 0.5,
    });
    expect(aggregateRuns({ pass_threshold: 1 }, [r('passed'), r('error')])).toMatchObject({
      status: 'error',
      pass_rate: 1,
      error_runs: 1,
    });
    expect(
      aggregateRuns({ pass_threshold: 1 }, [r('failed'), r('failed'), r('passed')], { measure: true }),
    ).toMatchObject({ status: 'measured' });
    expect(
      aggregateRuns({ pass_threshold: 1 }, [r('failed'), r('failed'), r('passed')], { measure: true }).pass_rate,
    ).toBeCloseTo(1 / 3);
    expect(runsOf({ runs: 3 })).toBe(3);
    expect(runsOf({ runs: 3 }, 10)).toBe(10);
  });
});
