import { describe, expect, it } from 'vitest';
import { GAIA_TURN_LINES, gaiaCallerPrompt } from '../../../src/simulate/gaia-prompts.js';
import { callerUtterance, gaiaLlm, holdsAnswer, numbersIn, saysItDoesNotKnow } from '../../support/gaia-llm.js';
import type { LoggedRequest } from '../../support/llm-server.js';

/** The stand-in judge and caller are what the e2e tests lean on: these pin what they read and decide. */

function request(user: string): LoggedRequest {
  return {
    index: 0,
    method: 'POST',
    path: '/v1/chat/completions',
    headers: {},
    body: {
      model: 'm',
      messages: [
        { role: 'system', content: 's' },
        { role: 'user', content: user },
      ],
    },
    rawBody: '',
  };
}

function judgePrompt(reply: string, expected: string | null | undefined, visible = true): string {
  const L = GAIA_TURN_LINES;
  return [
    L.turn + 1,
    `${L.objective}Ask about Q3 revenue`,
    `${L.caller}What is the third quarter revenue?`,
    L.bot + reply,
    ...(expected === null ? [L.unknown] : expected === undefined ? [] : [L.expected + expected]),
    `${L.fact}acme_q3_report/q3_revenue | Q: What was Q3 revenue? | A: $14.2 million`,
    `${L.criteria}States the revenue`,
    L.visible + (visible ? 'yes' : 'no'),
    `${L.calls}none`,
  ].join('\n');
}

describe('the GAIA stand-in', () => {
  it('says the quoted text of an objective, else a question made of it', () => {
    expect(callerUtterance("Ask 'How many employees does Acme Corp have?'")).toBe(
      'How many employees does Acme Corp have?',
    );
    expect(callerUtterance("Follow-up with pronoun: 'which one is better value for money?'")).toBe(
      'Which one is better value for money?',
    );
    expect(callerUtterance('Ask about Q3 revenue')).toBe('What is the third quarter revenue?');
    expect(callerUtterance('Ask about PTO policy with no documents indexed')).toBe('What is the PTO policy?');
    expect(callerUtterance('Ask agent to list what documents are available/indexed')).toBe(
      'Can you list what documents are available or indexed?',
    );
    expect(callerUtterance('Ask if a $75,000 expense needs CFO approval')).toBe(
      'Can you check whether a $75,000 expense needs CFO approval?',
    );
  });

  it('reads numbers in digits and in words', () => {
    expect(numbersIn('$14.2 million, 23%, 15-18% in Q4, $50,000')).toEqual([14.2, 23, 15, 18, 50000]);
    expect(numbersIn('fourteen point two million dollars and fifty thousand dollars or twenty three percent')).toEqual([
      14.2, 50000, 23,
    ]);
  });

  it('finds an answer by its numbers and most of its words', () => {
    expect(holdsAnswer('revenue was fourteen point two million dollars', '$14.2 million')).toBe(true);
    expect(holdsAnswer('Revenue was $14.3 million.', '$14.2 million')).toBe(false);
    expect(
      holdsAnswer(
        'StreamLine costs $49 per month and ProFlow costs $79 per month.',
        'StreamLine $49/month, ProFlow $79/month',
      ),
    ).toBe(true);
    expect(holdsAnswer('StreamLine costs $49 per month.', 'StreamLine $49/month, ProFlow $79/month')).toBe(false);
    expect(saysItDoesNotKnow("I don't know. The documents I have don't say.")).toBe(true);
    expect(saysItDoesNotKnow('Acme has about 500 employees.')).toBe(false);
  });

  it('scores a turn by the contract lines, and misjudges only when told', () => {
    const llm = gaiaLlm();
    const right = JSON.parse(String(llm(request(judgePrompt('It was $14.2 million.', '$14.2 million')))));
    expect(right.scores.correctness.score).toBe(10);
    expect(right.scores.personality.score).toBe(8);
    expect(right.success.verdict).toBe('yes');
    expect(right).toMatchObject({ auto_zero: null, reasked: false });
    const wrong = JSON.parse(String(llm(request(judgePrompt('It was $9 million.', '$14.2 million', false)))));
    expect(wrong.scores.correctness.score).toBe(2);
    expect(wrong.scores.tool_selection).toBeNull();
    expect(wrong.scores.efficiency).toBeNull();
    expect(wrong.success.verdict).toBe('no');
    const unknown = JSON.parse(String(llm(request(judgePrompt("I don't know.", null)))));
    expect(unknown.scores.correctness.score).toBe(10);
    const byFact = JSON.parse(String(llm(request(judgePrompt('It was $14.2 million.', undefined)))));
    expect(byFact.scores.correctness.score).toBe(10);
    const fooled = gaiaLlm({ misjudge: { correctness: 10, success: 'yes' } });
    const lie = JSON.parse(String(fooled(request(judgePrompt('It was $9 million.', '$14.2 million')))));
    expect(lie.scores.correctness.score).toBe(10);
  });

  it('answers a caller prompt with plain words, and refuses anything else', () => {
    const llm = gaiaLlm();
    const prompt = gaiaCallerPrompt('Ask about Q3 revenue', { name: 'power_user', description: 'terse' });
    expect(llm(request(prompt))).toBe('What is the third quarter revenue?');
    expect(llm(request('hello'))).toMatchObject({ status: 400 });
  });
});
