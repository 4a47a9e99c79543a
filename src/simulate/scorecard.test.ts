import { describe, expect, it } from 'vitest';
import type { SimulationEntry } from '../results/index.js';
import { DEFAULT_SCORECARD_WEIGHTS, type ScorecardSpec } from '../scenario/index.js';
import { deviation, numbersIn, toleranceCap } from './numbers.js';
import { numericCap, readScores, scoreCard, scorecardPrompt } from './scorecard.js';

const spec = (over: Partial<ScorecardSpec> = {}): ScorecardSpec => ({
  weights: { ...DEFAULT_SCORECARD_WEIGHTS },
  pass_threshold: 7,
  ...over,
});
const said = (...replies: string[]): SimulationEntry[] =>
  replies.map((text, i) => ({ kind: 'bot', at_ms: i * 1000, text }));
const allScores = (n: number): ReturnType<typeof readScores> =>
  Object.fromEntries(Object.keys(DEFAULT_SCORECARD_WEIGHTS).map((d) => [d, { score: n, reason: `scored ${n}` }]));

describe('numbers as people and speech-to-text say them', () => {
  it('digits, grouping, decimals, currency, percent and scale words', () => {
    expect(numbersIn('Q3 revenue was $14.2 million, up 23% on 1,250 units')).toEqual([14.2e6, 23, 1250]);
    expect(numbersIn('about 3.5k calls, 2 bn dollars, -4 degrees')).toEqual([3500, 2e9, -4]);
    expect(numbersIn('mp3 and a1b are not numbers; 555-0142 is a phone number')).toEqual([555, 142]);
  });

  it('spelled out, as a recognizer writes them', () => {
    expect(numbersIn('fourteen point two million dollars')).toEqual([14.2e6]);
    expect(numbersIn('twenty three percent growth')).toEqual([23]);
    expect(numbersIn('two hundred and five people, then one thousand two hundred')).toEqual([205, 1200]);
    expect(numbersIn('no numbers here')).toEqual([]);
  });

  it("GAIA's precision table: <=1 % 10, <=5 % 8, <=15 % 4, <=50 % 1, else 0", () => {
    expect([0, 0.01, 0.0101, 0.05, 0.15, 0.5, 0.51].map(toleranceCap)).toEqual([10, 10, 8, 8, 4, 1, 0]);
    expect(deviation(14.5e6, 14.2e6)).toBeCloseTo(0.0211, 4);
    expect(deviation(0, 0)).toBe(0);
    expect(deviation(1, 0)).toBe(Infinity);
  });
});

describe('the numeric cap on correctness (deterministic, not the judge)', () => {
  it('the closest number the bot said sets the cap; every expected number must be met', () => {
    expect(numericCap('$14.2 million', ['Revenue was 14.2 million dollars.'])).toMatchObject({ max: 10 });
    expect(numericCap('$14.2 million', ['It was $14.5 million.'])).toMatchObject({ max: 8 });
    expect(numericCap('$14.2 million', ['It was $16 million.'])).toMatchObject({ max: 4 });
    expect(numericCap('$14.2 million', ['It was $20 million.'])).toMatchObject({ max: 1 });
    expect(numericCap('$14.2 million', ['Around 14 dollars, in 2025.'])).toMatchObject({ max: 0 });
    expect(numericCap('$14.2 million', ['I could not find that.'])).toEqual({
      max: 0,
      reason: 'the bot said no number; expected $14.2 million',
    });
    expect(numericCap('StreamLine $49/month, ProFlow $79/month', ['StreamLine is $49 and ProFlow $79.'])).toMatchObject(
      { max: 10 },
    );
    expect(numericCap('StreamLine $49/month, ProFlow $79/month', ['StreamLine is $49 and ProFlow $99.'])).toMatchObject(
      { max: 1 },
    );
    expect(numericCap('the Berlin office', ['It is Berlin.'])).toBeUndefined();
  });

  it("caps the judge's correctness and weighs the dimensions into a total against the threshold", () => {
    const card = scoreCard(spec({ expected_answer: '$14.2 million' }), allScores(9), said('Revenue was $16 million.'));
    const correctness = card.dimensions.find((d) => d.dimension === 'correctness');
    expect(correctness).toMatchObject({ judge_score: 9, score: 4, weight: 0.25, cap: { max: 4 } });
    // 0.25 * 4 + 0.75 * 9
    expect(card.total).toBe(7.75);
    expect(card.passed).toBe(true);
    expect(
      scoreCard(
        spec({ expected_answer: '$14.2 million', pass_threshold: 8 }),
        allScores(9),
        said('Revenue was $16 million.'),
      ).passed,
    ).toBe(false);
    expect(
      scoreCard(spec({ expected_answer: '$14.2 million' }), allScores(9), said('It was $14.2 million.')).total,
    ).toBe(9);
  });

  it('weights are normalized and a 0 weight leaves a dimension out; a missing score counts 0', () => {
    const weights = { ...DEFAULT_SCORECARD_WEIGHTS, correctness: 50, personality: 0 };
    const scores = {
      ...allScores(10),
      tool_selection: { score: null, reason: 'the judge gave no score' },
      personality: { score: 0, reason: 'rude' },
    };
    const card = scoreCard(spec({ weights }), scores, said('ok'));
    const sum = 50 + 20 + 20 + 15 + 10 + 0 + 5;
    expect(card.dimensions.find((d) => d.dimension === 'correctness')?.weight).toBeCloseTo(50 / sum);
    expect(card.total).toBeCloseTo(Math.round(((sum - 20) / sum) * 10 * 100) / 100);
    expect(card.dimensions.every((d) => d.cap === undefined)).toBe(true);
  });
});

describe("reading the judge's scores", () => {
  it('clamps to 0..10, takes numbers as text, marks what is missing', () => {
    const scores = readScores(
      '```json\n{"scores": {"correctness": {"score": 12, "reason": "exact"}, "tool_selection": {"score": "7"}, "personality": 3}}\n```',
    );
    expect(scores.correctness).toEqual({ score: 10, reason: 'exact' });
    expect(scores.tool_selection).toEqual({ score: 7, reason: '(no reason given)' });
    expect(scores.personality).toEqual({ score: 3, reason: '(no reason given)' });
    expect(scores.efficiency).toEqual({ score: null, reason: 'the judge gave no score' });
    expect(readScores('no json at all').correctness?.score).toBeNull();
  });

  it('the prompt carries the expected answer, or says the bot must not know', () => {
    const t = said('I do not know.');
    expect(scorecardPrompt(t, 'text', 'Ask the head count', spec({ expected_answer: '42 people' }))).toContain(
      'Expected answer: "42 people"',
    );
    expect(scorecardPrompt(t, 'text', 'Ask the head count', spec({ expected_answer: null }))).toContain(
      'it must say it does not know',
    );
    expect(scorecardPrompt(t, 'text', 'Ask the head count', spec())).not.toContain('Expected answer');
  });
});
