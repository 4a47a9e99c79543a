import { describe, expect, it } from 'vitest';
import { Redactor } from '../core/redact.js';
import { JudgeError, retryPolicy, type JudgeBackend } from '../judge/index.js';
import { DEFAULT_SCORECARD_WEIGHTS, type GaiaScoring, type GaiaTurn } from '../scenario/index.js';
import { admitsNotKnowing, expectedNumberCheck, factNumberCheck } from './gaia-checks.js';
import { GAIA_TURN_LINES, gaiaTurnPrompt } from './gaia-prompts.js';
import {
  gaiaTotals,
  gaiaTurnFailures,
  isNoVerdict,
  judgeGaiaTurn,
  readGaiaAnswer,
  scoreGaiaTurn,
  type GaiaJudgeAnswer,
  type GaiaTurnPlay,
} from './gaia-score.js';

const scoring: GaiaScoring = { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 };
const REVENUE = { doc_id: 'acme_q3_report', id: 'q3_revenue', question: 'Q3 revenue?', answer: '$14.2 million' };

function turn(over: Partial<GaiaTurn> = {}): GaiaTurn {
  return { turn: 1, objective: 'Ask for Q3 revenue', within_ms: 60_000, ...over };
}
function answer(n: number, over: Partial<GaiaJudgeAnswer> = {}): GaiaJudgeAnswer {
  const scores = Object.fromEntries(Object.keys(DEFAULT_SCORECARD_WEIGHTS).map((d) => [d, { score: n, reason: 'ok' }]));
  return { scores, success: null, autoZero: null, reasked: false, raw: '{}', ...over };
}
function play(reply: string, over: Partial<GaiaTurnPlay> = {}): GaiaTurnPlay {
  return {
    turn: turn({ ground_truth: { doc_id: 'acme_q3_report', expected_answer: '$14.2 million', facts: [REVENUE] } }),
    userMessage: 'What was Q3 revenue?',
    source: 'written',
    reply,
    calls: [{ name: 'query_documents', args: { query: 'Q3 revenue' } }],
    callsVisible: true,
    ...over,
  };
}
const correctness = (s: ReturnType<typeof scoreGaiaTurn>) => s.dimensions.find((d) => d.dimension === 'correctness');

describe('numbers against an expected answer: 10 within 1 %, 8 within 5 %, else an automatic zero', () => {
  it('$14.2 million: 14.3 keeps 10, 14.9 is capped at 8, 15 is a wrong number', () => {
    const near = scoreGaiaTurn(play('Q3 revenue was $14.3 million.'), answer(10), scoring);
    expect(correctness(near)?.score).toBe(10);
    expect(near.auto_zero).toBeUndefined();
    expect(near.passed).toBe(true);

    const off = scoreGaiaTurn(play('Q3 revenue was $14.9 million.'), answer(10), scoring);
    expect(correctness(off)).toMatchObject({ score: 8, judge_score: 10, cap: { max: 8 } });
    expect(off.total).toBe(9.5);
    expect(off.passed).toBe(true);

    const wrong = scoreGaiaTurn(play('Q3 revenue was $15 million.'), answer(10), scoring);
    expect(correctness(wrong)?.score).toBe(0);
    expect(wrong.auto_zero).toMatchObject({ rule: 'wrong_number', by: 'earshot' });
    expect(wrong.total).toBe(7.5);
    expect(wrong.passed).toBe(false);
    expect(gaiaTurnFailures(wrong, 0, 7).map((f) => [f.kind, f.turn_index])).toEqual([['correctness_zero', 0]]);
  });

  it('the check alone: each expected number against the closest said', () => {
    expect(expectedNumberCheck('$14.2 million', 'fourteen point two million dollars')).toMatchObject({ max: 10 });
    expect(expectedNumberCheck('$14.2 million', 'I could not say')).toMatchObject({ max: 0, wrong: false });
    expect(expectedNumberCheck('StreamLine', 'StreamLine')).toBeUndefined();
  });

  it('a number far from every expected one is another quantity: the answer not stated, no automatic zero', () => {
    expect(expectedNumberCheck('$14.2 million', 'That was in 2025.')).toMatchObject({ max: 0, wrong: false });
    // Two of three stated, the third not: partly answered (4), and a year beside them is no wrong number.
    const partly = expectedNumberCheck('StreamLine $49/month, ProFlow $79/month, 23%', 'In 2025: $49 and $79.');
    expect(partly).toMatchObject({ max: 4, wrong: false });
    expect(partly?.reason).toMatch(/23: not stated/);
    // Within 50 % it is the quantity stated wrong.
    expect(expectedNumberCheck('$14.2 million', 'It was $20 million in 2025.')).toMatchObject({ max: 0, wrong: true });
  });

  it('facts alone (no expected answer) take the full table: 10 % off caps at 4, no automatic zero', () => {
    const truth = { doc_id: 'acme_q3_report', facts: [REVENUE] };
    expect(factNumberCheck(truth.facts, 'It was $15.62 million.')).toMatchObject({ max: 4, wrong: false });
    const s = scoreGaiaTurn(
      play('It was $15.62 million.', { turn: turn({ ground_truth: truth }) }),
      answer(9),
      scoring,
    );
    expect(correctness(s)?.score).toBe(4);
    expect(s.auto_zero).toBeUndefined();
    expect(s.total).toBe(7.75);
  });
});

describe('expected_answer: null: only an admission passes', () => {
  const unknown = turn({ ground_truth: { doc_id: 'acme_q3_report', expected_answer: null, facts: [] } });
  it('"I don\'t know" passes; "about 500" is a guess, correctness 0', () => {
    const honest = scoreGaiaTurn(
      play("I don't know. The documents I have don't say.", { turn: unknown }),
      answer(9),
      scoring,
    );
    expect(honest.auto_zero).toBeUndefined();
    expect(honest.passed).toBe(true);
    const guess = scoreGaiaTurn(play('About 500 employees.', { turn: unknown }), answer(9), scoring);
    expect(correctness(guess)?.score).toBe(0);
    expect(guess.auto_zero).toMatchObject({ rule: 'guessed', by: 'earshot' });
    expect(guess.passed).toBe(false);
  });
  it('admissions as speech-to-text writes them', () => {
    for (const t of ['i dont know', 'I could not find that in the report', 'The report does not say', "I'm not sure"])
      expect(admitsNotKnowing(t)).toBe(true);
    expect(admitsNotKnowing('About 500 employees')).toBe(false);
  });
});

describe('lazy refusal, re-asking, and calls that cannot be seen', () => {
  it('a refusal without a call is a zero only where calls are visible', () => {
    const lazy = scoreGaiaTurn(play("I can't find that.", { calls: [] }), answer(8), scoring);
    expect(lazy.auto_zero).toMatchObject({ rule: 'lazy_refusal', by: 'earshot' });
    const blind = scoreGaiaTurn(play("I can't find that.", { calls: [], callsVisible: false }), answer(8), scoring);
    expect(blind.auto_zero?.rule).not.toBe('lazy_refusal');
    // The judge's own lazy_refusal is dropped where earshot cannot see the calls.
    const judged = answer(8, { autoZero: { rule: 'lazy_refusal', reason: 'no call' } });
    expect(
      scoreGaiaTurn(play('$14.2 million', { calls: [], callsVisible: false }), judged, scoring).auto_zero,
    ).toBeUndefined();
    const named = answer(8, { autoZero: { rule: 'wrong_name', reason: 'named Globex' } });
    expect(scoreGaiaTurn(play('Globex made $14.2 million'), named, scoring).auto_zero).toMatchObject({
      rule: 'wrong_name',
      by: 'judge',
    });
  });

  it('re-asking caps context retention at 4', () => {
    const s = scoreGaiaTurn(play('$14.2 million'), answer(9, { reasked: true }), scoring);
    expect(s.dimensions.find((d) => d.dimension === 'context_retention')).toMatchObject({ score: 4, judge_score: 9 });
  });

  it('without visible calls, tool selection and efficiency are n/a and the other weights sum to 1', () => {
    const s = scoreGaiaTurn(play('$14.2 million', { callsVisible: false }), answer(8), scoring);
    const na = s.dimensions.filter((d) => !d.applicable).map((d) => [d.dimension, d.score, d.weight]);
    expect(na).toEqual([
      ['tool_selection', null, 0],
      ['efficiency', null, 0],
    ]);
    expect(s.dimensions.reduce((t, d) => t + d.weight, 0)).toBeCloseTo(1, 10);
    expect(s.dimensions.find((d) => d.dimension === 'correctness')?.weight).toBeCloseTo(25 / 70, 10);
    expect(s.total).toBe(8);
  });
});

describe('the verdict and the judge answer', () => {
  it('success criteria: a no fails the turn (judge_no), whatever the total', () => {
    const t = turn({ success_criteria: 'States $14.2 million' });
    const no = answer(9, { success: { verdict: 'no', reason: 'wrong figure' } });
    const s = scoreGaiaTurn(play('$14.2 million', { turn: t }), no, scoring);
    expect(s.passed).toBe(false);
    expect(gaiaTurnFailures(s, 2, 7).map((f) => f.kind)).toEqual(['judge_no']);
    const low = scoreGaiaTurn(play('$14.2 million'), answer(5), scoring);
    expect(gaiaTurnFailures(low, 0, 7).map((f) => f.kind)).toEqual(['scorecard_below_threshold']);
    expect(gaiaTotals([s, low])).toEqual({ total: 7, passed: false });
  });

  it('a garbled answer, or no yes/no on the criteria, is no verdict', () => {
    expect(isNoVerdict(readGaiaAnswer('I think it went well', false))).toBe(true);
    expect(readGaiaAnswer('{"scores": {"personality": 7}}', false)).toMatchObject({
      noVerdict: 'the judge gave no correctness score',
    });
    expect(readGaiaAnswer('{"scores": {"correctness": {"score": 9}}, "success": null}', true)).toMatchObject({
      noVerdict: 'the judge gave no yes/no on the success criteria',
    });
    const ok = readGaiaAnswer(
      '```json\n{"scores": {"correctness": {"score": 9, "reason": "r"}}, "success": {"verdict": "yes", ' +
        '"reason": "s"}, "auto_zero": {"rule": "wrong_name", "reason": "x"}, "reasked": true}\n```',
      true,
    );
    expect(ok).toMatchObject({ success: { verdict: 'yes' }, autoZero: { rule: 'wrong_name' }, reasked: true });
  });

  it('asks the judge once with the contract lines, and reads its answer', async () => {
    const seen: string[] = [];
    const backend: JudgeBackend = {
      service: 'fake',
      model: 'm',
      endpoint: 'e',
      secrets: [],
      identity: {},
      complete: async (messages) => {
        seen.push(messages.at(-1)?.content ?? '');
        return { content: 'not json', attempts: 1 };
      },
    };
    const t = turn({ ground_truth: { doc_id: 'acme_q3_report', expected_answer: null, facts: [REVENUE] } });
    const view = { turn: t, earlier: [], userMessage: 'How many employees?', reply: 'No idea.', calls: [] };
    const got = await judgeGaiaTurn(
      { backend, ctx: { policy: retryPolicy(), redactor: new Redactor({}), trace: () => undefined, random: () => 0 } },
      { ...view, callsVisible: false, modality: 'text' },
    );
    expect(got).toMatchObject({ noVerdict: 'the judge answered no JSON object' });
    expect(seen[0].split('\n').filter((l) => Object.values(GAIA_TURN_LINES).some((p) => l.startsWith(p)))).toEqual([
      'Turn: 1',
      'Objective: Ask for Q3 revenue',
      'Caller said: How many employees?',
      'Bot replied: No idea.',
      GAIA_TURN_LINES.unknown,
      'Fact: acme_q3_report/q3_revenue | Q: Q3 revenue? | A: $14.2 million',
      'Function calls visible: no',
      'Function calls: none',
    ]);
    expect(gaiaTurnPrompt({ ...view, callsVisible: true, modality: 'audio' })).toContain('Function calls visible: yes');
    expect(new JudgeError({ code: 'network', message: 'x', service: 's', model: 'm', attempts: 1 }).code).toBe(
      'network',
    );
  });
});
