import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../core/clock.js';
import type { ManualTimerDriver } from '../core/timers.js';
import { manualTime, matchContext, runMatch } from './match.testutil.js';
import type { EarshotEvent, HearingEvidence } from '../results/index.js';
import { parseTextPattern, type TextPattern } from '../scenario/index.js';
import type { EventQueue } from '../events/index.js';
import type { ExpectationSpec, JudgePort, MatchContext, MatchOutcome } from './matcher.js';
import { matchPattern, PATTERN_TIME_LIMIT_MS } from './match-text.js';

/**
 * The matcher's deterministic text checks (text_matches, number) and its
 * hearing rule (match-hearing.ts): a verdict over bot speech earshot could not
 * hear reliably is inconclusive unless every reading of it agrees.
 */
let clock: ManualClock;
let timers: ManualTimerDriver;
beforeEach(() => {
  ({ clock, timers } = manualTime());
});
const match = (exp: ExpectationSpec, ctx: MatchContext): Promise<MatchOutcome> =>
  runMatch({ clock, timers }, exp, 0, ctx);

function setup(judge: JudgePort | null = null): { queue: EventQueue; ctx: MatchContext } {
  return matchContext({ clock, timers }, { judge, defaultWithinMs: 5000 });
}
const pattern = (p: string): TextPattern => parseTextPattern(p) as TextPattern;
const reply = (text: string, hearing?: HearingEvidence): EarshotEvent => ({
  name: 'response',
  at_ms: clock.now(),
  text,
  ...(hearing ? { hearing } : {}),
});
const disagree = (transcript: string, check: string): HearingEvidence => ({
  doubt: 'transcribers_disagree',
  transcript,
  check_transcript: check,
  wer: 0.5,
  max_wer: 0.3,
  transcribers: ['sphinx:en-us', 'sphinx:en-us'],
  speech_ms: 1600,
  start_ms: 700,
  end_ms: 2400,
});
const unheard: HearingEvidence = {
  doubt: 'empty_transcript',
  transcript: '',
  transcribers: ['sphinx:en-us'],
  speech_ms: 900,
  start_ms: 100,
  end_ms: 1100,
};
const verdict = (o: MatchOutcome): string => (o.ok ? 'passed' : o.inconclusive ? 'inconclusive' : o.failure.kind);
const judge = (answer: 'yes' | 'no'): JudgePort => ({
  addAssistant: () => undefined,
  evaluate: async () => ({ verdict: answer, reason: `scripted ${answer}` }),
  evaluateCall: async () => ({ verdict: answer, reason: `scripted ${answer}` }),
});

describe('text_matches and number on a reply', () => {
  it('text_matches searches the whitespace-collapsed aggregate of the reply; a miss waits for more, then text_mismatch', async () => {
    const { queue, ctx } = setup();
    queue.push({ name: 'llm_response', at_ms: 1, text: 'The capital\n of' });
    queue.push({ name: 'llm_response', at_ms: 2, text: 'France is Paris.' });
    expect(
      verdict(await match({ event: 'llm_response', text_matches: pattern('(?i)capital of france is paris') }, ctx)),
    ).toBe('passed');
    queue.push({ name: 'llm_response', at_ms: 3, text: 'Berlin.' });
    const miss = await match({ event: 'llm_response', text_matches: pattern('^Paris') }, ctx);
    expect(miss.ok ? null : miss.failure?.reason).toBe('not satisfied within 5000ms: does not match "^Paris"');
  });

  it('number: a spoken or written number within the tolerance; number_mismatch names the numbers it found', async () => {
    const { queue, ctx } = setup();
    queue.push({ name: 'llm_response', at_ms: 1, text: 'It is seventy-two degrees.' });
    expect(verdict(await match({ event: 'llm_response', number: { value: 75, tolerance_pct: 5 } }, ctx))).toBe(
      'passed',
    );
    queue.push({ name: 'llm_response', at_ms: 2, text: 'It is 72 degrees, 3 days running.' });
    const out = await match({ event: 'llm_response', number: { value: 75, tolerance_pct: 2 } }, ctx);
    expect(verdict(out)).toBe('number_mismatch');
    expect(out.ok ? null : out.failure?.reason).toBe(
      'not satisfied within 5000ms: holds no number 75 ± 2% (found "72" = 72, "3" = 3)',
    );
  });

  it('a pattern that runs past its time limit is an error of the check, at once, never a hang', async () => {
    const evil: TextPattern = { source: '^(a|aa)+$', pattern: '^(a|aa)+$', flags: 'u' };
    const started = performance.now();
    expect(matchPattern(evil, `${'a'.repeat(60)}b`)).toBe('timeout');
    expect(performance.now() - started).toBeLessThan(PATTERN_TIME_LIMIT_MS + 1000);
    const { queue, ctx } = setup();
    queue.push({ name: 'llm_response', at_ms: 1, text: `${'a'.repeat(60)}b` });
    const out = await match({ event: 'llm_response', text_matches: evil }, ctx);
    expect(verdict(out)).toBe('error');
    expect(out.ok ? '' : out.failure?.reason).toMatch(
      /ran past 250 ms on 61 characters \(catastrophic backtracking\?\)/,
    );
  });
});

describe('inconclusive, not failed: verdicts over speech earshot could not hear reliably', () => {
  it('two transcribers disagree and the check holds on one reading only: inconclusive, either way round', async () => {
    const { queue, ctx } = setup();
    queue.push(
      reply(
        'the capital of france is paris',
        disagree('the capital of france is paris', 'the capital of three and is yes'),
      ),
    );
    const passOnFirst = await match({ event: 'response', text_contains: 'paris' }, ctx);
    expect(verdict(passOnFirst)).toBe('inconclusive');
    if (!passOnFirst.ok) {
      expect(passOnFirst.inconclusive?.kinds).toEqual(['transcribers_disagree']);
      expect(passOnFirst.inconclusive?.reason).toBe(
        'the check passes on the first transcript and fails on the second (at 700–2400 ms the transcribers heard "the capital of france is paris" and "the capital of three and is yes" (WER 0.50 > 0.3))',
      );
      expect(passOnFirst.text).toBe('the capital of france is paris');
    }
    queue.push(
      reply(
        'the capital of three and is yes',
        disagree('the capital of three and is yes', 'the capital of france is paris'),
      ),
    );
    expect(verdict(await match({ event: 'response', text_contains: 'paris' }, ctx))).toBe('inconclusive');
  });

  it('two transcribers disagree but the check gives the same verdict on both readings: that verdict stands', async () => {
    const { queue, ctx } = setup();
    queue.push(
      reply(
        'the capital of france is paris',
        disagree('the capital of france is paris', 'a capital of prance is paris'),
      ),
    );
    expect(verdict(await match({ event: 'response', text_contains: 'paris' }, ctx))).toBe('passed');
    queue.push(
      reply(
        'the capital of germany is berlin',
        disagree('the capital of germany is berlin', 'the capital of jersey is berlin'),
      ),
    );
    expect(verdict(await match({ event: 'response', text_contains: 'paris', within_ms: 500 }, ctx))).toBe(
      'text_mismatch',
    );
    queue.push(reply('sorry i cannot help', disagree('sorry i cannot help', 'sorry i can help')));
    expect(verdict(await match({ event: 'response', text_excludes: 'sorry' }, ctx))).toBe('text_present');
  });

  it('an empty transcript over speech: a miss is inconclusive; a hit found in what was heard stands', async () => {
    const { queue, ctx } = setup();
    queue.push(reply('', unheard));
    const out = await match({ event: 'response', text_contains: 'paris', within_ms: 500 }, ctx);
    expect(verdict(out)).toBe('inconclusive');
    if (!out.ok)
      expect(out.inconclusive?.reason).toBe(
        'the check depends on words the transcriber did not hear (900 ms of speech at 100–1100 ms transcribed as nothing)',
      );
    queue.push(reply('', unheard));
    queue.push(reply('it is paris'));
    expect(verdict(await match({ event: 'response', text_contains: 'paris' }, ctx))).toBe('passed');
    // Excluded words may hide in what nobody heard.
    queue.push(reply('', unheard));
    expect(verdict(await match({ event: 'response', text_excludes: 'sorry' }, ctx))).toBe('inconclusive');
  });

  it('the judge reads the first transcript: its yes stands, its no over doubtful speech is inconclusive', async () => {
    const yes = setup(judge('yes'));
    yes.queue.push(reply('the capital is paris', disagree('the capital is paris', 'a cap it all is pa')));
    expect(verdict(await match({ event: 'response', eval: 'names Paris' }, yes.ctx))).toBe('passed');
    const no = setup(judge('no'));
    no.queue.push(reply('the capital is pairs', disagree('the capital is pairs', 'the capital is paris')));
    const out = await match({ event: 'response', eval: 'names Paris' }, no.ctx);
    expect(verdict(out)).toBe('inconclusive');
    if (!out.ok)
      expect(out.inconclusive?.reason).toMatch(
        /^the judge read a transcript earshot could not trust \(judge_no: judge said no: scripted no\)/,
      );
  });

  it('a bare response stands (the bot did speak), and so do failures that are not about the words', async () => {
    const { queue, ctx } = setup();
    queue.push(reply('', unheard));
    expect(verdict(await match({ event: 'response' }, ctx))).toBe('passed');
    // A new reply (the bot started speaking again) that nobody could transcribe is still a reply.
    queue.push({ name: 'bot_started_speaking', at_ms: clock.now() });
    queue.push(reply('', unheard));
    expect(verdict(await match({ event: 'response', absent: true, within_ms: 100 }, ctx))).toBe('unexpected_event');
    expect(verdict(await match({ event: 'response', text_contains: 'x', within_ms: 100 }, ctx))).toBe('timeout');
  });

  it('without doubts nothing changes: the same reply with a clean transcript fails as before', async () => {
    const { queue, ctx } = setup();
    queue.push(reply('the capital of three and is yes'));
    expect(verdict(await match({ event: 'response', text_contains: 'paris', within_ms: 500 }, ctx))).toBe(
      'text_mismatch',
    );
  });
});
