import { describe, expect, it } from 'vitest';
import { parseVerdict } from './parse.js';

describe('parseVerdict', () => {
  describe('strict JSON', () => {
    it('reads the verdict and the reason of a one-line JSON answer', () => {
      expect(parseVerdict('{"verdict": "yes", "reason": "It names Berlin."}')).toEqual({
        ok: true,
        verdict: 'yes',
        reason: 'It names Berlin.',
        via: 'json',
      });
    });

    it('reads each of yes, no and continue, whatever their case', () => {
      expect(parseVerdict('{"verdict":"NO","reason":"wrong city"}')).toMatchObject({ ok: true, verdict: 'no' });
      expect(parseVerdict('{"verdict":"Continue","reason":"still checking"}')).toMatchObject({
        ok: true,
        verdict: 'continue',
      });
      expect(parseVerdict('  {"Verdict":"yes."}  ')).toMatchObject({ ok: true, verdict: 'yes' });
    });

    it('gives a placeholder reason when the model gives none', () => {
      expect(parseVerdict('{"verdict":"yes"}')).toMatchObject({ ok: true, reason: '(no reason given)' });
      expect(parseVerdict('{"verdict":"yes","reason":"   "}')).toMatchObject({ ok: true, reason: '(no reason given)' });
    });

    it('takes booleans as yes and no', () => {
      expect(parseVerdict('{"verdict": true}')).toMatchObject({ ok: true, verdict: 'yes' });
      expect(parseVerdict('{"verdict": false}')).toMatchObject({ ok: true, verdict: 'no' });
    });

    it('refuses a verdict outside yes/no/continue rather than guessing', () => {
      const parsed = parseVerdict('{"verdict": "maybe", "reason": "unclear"}');
      expect(parsed).toEqual({ ok: false, problem: 'verdict "maybe" is not "yes", "no" or "continue"' });
    });

    it('clips a very long reason', () => {
      const parsed = parseVerdict(JSON.stringify({ verdict: 'no', reason: 'x'.repeat(1000) }));
      expect(parsed.ok && parsed.reason.length).toBe(303);
    });
  });

  describe('JSON embedded in prose or code fences', () => {
    it('reads a fenced JSON block', () => {
      const answer = '```json\n{"verdict": "no", "reason": "It says Munich."}\n```';
      expect(parseVerdict(answer)).toEqual({
        ok: true,
        verdict: 'no',
        reason: 'It says Munich.',
        via: 'embedded_json',
      });
    });

    it('reads the object out of surrounding prose, braces inside strings included', () => {
      const answer =
        'Sure! Here is my verdict:\n{"verdict": "yes", "reason": "uses {curly} words"}\nLet me know if you need more.';
      expect(parseVerdict(answer)).toMatchObject({
        ok: true,
        verdict: 'yes',
        reason: 'uses {curly} words',
        via: 'embedded_json',
      });
    });

    it('skips objects that carry no verdict', () => {
      const answer = 'Context {"city": "Paris"} then {"verdict": "continue", "reason": "checking"}';
      expect(parseVerdict(answer)).toMatchObject({ ok: true, verdict: 'continue', reason: 'checking' });
    });

    it("ignores a reasoning model's think block", () => {
      const answer =
        '<think>The user wants yes or no... {"verdict": "no"}?</think>\n{"verdict": "yes", "reason": "ok"}';
      expect(parseVerdict(answer)).toMatchObject({ ok: true, verdict: 'yes', via: 'json' });
    });
  });

  describe('keyword fallback for models that answer in prose', () => {
    it('reads a leading keyword and keeps the rest as the reason', () => {
      expect(parseVerdict('Yes, the bot says the capital is Berlin.')).toEqual({
        ok: true,
        verdict: 'yes',
        reason: 'the bot says the capital is Berlin.',
        via: 'keyword',
      });
      expect(parseVerdict('**No.** It names the wrong city.')).toMatchObject({
        ok: true,
        verdict: 'no',
        reason: 'It names the wrong city.',
      });
    });

    it('reads a labelled verdict anywhere in the answer', () => {
      expect(parseVerdict('The bot is still looking it up.\nVERDICT: continue')).toMatchObject({
        ok: true,
        verdict: 'continue',
      });
      expect(parseVerdict('After review, my answer is no - it never mentions Berlin.')).toMatchObject({
        ok: true,
        verdict: 'no',
        reason: 'it never mentions Berlin.',
      });
      expect(parseVerdict('**Verdict:** yes')).toMatchObject({ ok: true, verdict: 'yes', reason: '(no reason given)' });
    });

    it('reads the verdict of JSON cut off by the token limit', () => {
      expect(parseVerdict('{"verdict": "yes", "reason": "The bot names Ber')).toMatchObject({
        ok: true,
        verdict: 'yes',
        via: 'keyword',
      });
    });

    it('does not take a word that merely starts with a keyword', () => {
      expect(parseVerdict('Nothing to say.').ok).toBe(false);
      expect(parseVerdict('Yesterday the bot...').ok).toBe(false);
    });

    it('does not take a stray "no" in the middle of prose as a verdict', () => {
      expect(parseVerdict('The bot gives no answer yet and says it is checking.')).toMatchObject({ ok: false });
    });
  });

  describe('garbage', () => {
    it('reports an empty answer', () => {
      expect(parseVerdict('   ')).toEqual({ ok: false, problem: 'the answer is empty' });
    });

    it('reports an answer with no verdict in it', () => {
      const parsed = parseVerdict('I am a large language model and cannot evaluate conversations.');
      expect(parsed.ok).toBe(false);
      expect(!parsed.ok && parsed.problem).toMatch(/no JSON verdict/);
    });

    it('reports broken JSON that has no keyword either', () => {
      expect(parseVerdict('{"verdict": ').ok).toBe(false);
    });
  });
});
