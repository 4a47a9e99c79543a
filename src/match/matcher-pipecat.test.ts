import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../core/clock.js';
import type { ManualTimerDriver } from '../core/timers.js';
import { manualTime, matchContext, runMatch } from './match.testutil.js';
import type { EarshotEvent } from '../results/events.js';
import type { EventQueue } from '../events/index.js';
import { markerFormatProblem, textContains } from './match-checks.js';
import {
  JUDGE_NO_GRACE_MS,
  type ExpectationSpec,
  type JudgePort,
  type MatchContext,
  type MatchOutcome,
} from './matcher.js';

/**
 * The rules of Pipecat's newest matcher (`matcher.py`, `script.py`) beyond
 * the basics in matcher.test.ts, one test per rule, on manual time.
 */
let clock: ManualClock;
let timers: ManualTimerDriver;
beforeEach(() => {
  ({ clock, timers } = manualTime());
});
const match = (exp: ExpectationSpec, index: number, ctx: MatchContext): Promise<MatchOutcome> =>
  runMatch({ clock, timers }, exp, index, ctx);
const later = (ms: number, fn: () => void): void => void timers.at(clock.now() + ms, fn);
const at = (): number => clock.now();
const text = (name: 'llm_response' | 'response' | 'tts_response', t: string): EarshotEvent => ({
  name,
  at_ms: at(),
  text: t,
});
const signal = (name: 'llm_started' | 'bot_started_speaking'): EarshotEvent => ({ name, at_ms: at() });
const marker = (kind: string | undefined, raw: string, found = '●'): EarshotEvent => ({
  name: 'llm_marker',
  at_ms: at(),
  text: found,
  ...(kind ? { kind } : {}),
  raw,
  markers: ['●', '◐', '○'],
});

interface Scripted extends JudgePort {
  asked: string[];
}
function judge(answers: Array<'yes' | 'no' | 'continue'>): Scripted {
  let n = 0;
  const next = (): { verdict: 'yes' | 'no' | 'continue'; reason: string } => {
    const verdict = answers[Math.min(n++, answers.length - 1)];
    return { verdict, reason: `scripted ${verdict}` };
  };
  const j: Scripted = {
    asked: [],
    addAssistant: () => undefined,
    evaluate: async (criterion) => {
      j.asked.push(`reply: ${criterion}`);
      return next();
    },
    evaluateCall: async (name, args, criterion) => {
      j.asked.push(`call ${name}(${JSON.stringify(args)}): ${criterion}`);
      return next();
    },
  };
  return j;
}

function setup(j: JudgePort | null = null, speaking = false): { queue: EventQueue; ctx: MatchContext } {
  const state = { lastMatchAtMs: -Infinity };
  return matchContext({ clock, timers }, { judge: j, botSpeaking: () => speaking, state });
}
const kindOf = (out: MatchOutcome): string | true => (out.ok ? true : (out.failure?.kind ?? 'inconclusive'));

describe("Pipecat's newest matching rules", () => {
  it('text_contains ignores spacing differences', async () => {
    expect(textContains('It is  75\ndegrees ', '75 degrees')).toBe(true);
    expect(textContains('It is 75 degrees', '  75   degrees\n')).toBe(true);
    expect(textContains('It is 7 5 degrees', '75 degrees')).toBe(false);
    const { queue, ctx } = setup();
    queue.push(text('llm_response', 'San\n  Francisco is foggy.'));
    expect(kindOf(await match({ event: 'llm_response', text_contains: 'San Francisco' }, 0, ctx))).toBe(true);
  });

  it('text_excludes: the event text must not hold the string (text_present)', async () => {
    const { queue, ctx } = setup();
    queue.push(text('llm_response', '● The capital of Germany is Berlin.'));
    const out = await match({ event: 'llm_response', text_excludes: '●' }, 0, ctx);
    expect(kindOf(out)).toBe('text_present');
    if (!out.ok) expect(out.failure?.reason).toBe('text "● The capital of Germany is Berlin." contains "●"');
    queue.push(text('llm_response', 'Berlin.'));
    expect(kindOf(await match({ event: 'llm_response', text_excludes: '●' }, 1, ctx))).toBe(true);
  });

  it('text_excludes with text_contains is checked on the reply accumulated up to the match', async () => {
    // The excluded string in a segment before the match fails at once...
    const a = setup();
    a.queue.push(text('llm_response', 'Let me think ●'));
    later(50, () => a.queue.push(text('llm_response', 'Berlin.')));
    const early = await match({ event: 'llm_response', text_contains: 'Berlin', text_excludes: '●' }, 0, a.ctx);
    expect(kindOf(early)).toBe('text_present');
    expect(early.ok === false && early.text).toBe('Let me think ●');
    // ...one that arrives after the reply already matched is not part of it.
    const b = setup();
    b.queue.push(text('llm_response', 'Berlin.'));
    b.queue.push(text('llm_response', '●'));
    expect(await match({ event: 'llm_response', text_contains: 'Berlin', text_excludes: '●' }, 0, b.ctx)).toMatchObject(
      { ok: true, text: 'Berlin.' },
    );
  });

  it('llm_marker marker: complete, short, long; incomplete accepts short or long (marker_mismatch)', async () => {
    const { queue, ctx } = setup();
    queue.push(marker('complete', '● Sure.'));
    expect(kindOf(await match({ event: 'llm_marker', marker: 'complete' }, 0, ctx))).toBe(true);
    queue.push(marker('long', '○', '○'));
    expect(kindOf(await match({ event: 'llm_marker', marker: 'incomplete' }, 1, ctx))).toBe(true);
    queue.push(marker('short', '◐', '◐'));
    expect(kindOf(await match({ event: 'llm_marker', marker: 'incomplete' }, 2, ctx))).toBe(true);
    queue.push(marker('complete', '● Japan!'));
    const out = await match({ event: 'llm_marker', marker: 'incomplete' }, 3, ctx);
    expect(kindOf(out)).toBe('marker_mismatch');
    if (!out.ok) expect(out.failure?.reason).toBe('marker "●" is complete, expected incomplete');
    queue.push(marker(undefined, 'Hello there', ''));
    const none = await match({ event: 'llm_marker', marker: 'complete' }, 4, ctx);
    expect(!none.ok && none.failure?.reason).toBe('marker "" is of no known kind, expected complete');
  });

  it('a bare llm_marker asserts only that the bot reported a response', async () => {
    const { queue, ctx } = setup();
    queue.push(marker(undefined, 'no marker at all', ''));
    expect(kindOf(await match({ event: 'llm_marker' }, 0, ctx))).toBe(true);
  });

  it('marker_first, markers and text_after check the raw response (marker_format)', async () => {
    const known = ['●', '◐', '○'];
    expect(markerFormatProblem('◐', known, { marker_first: true, markers: 1, text_after: false })).toBeNull();
    expect(markerFormatProblem('  ● Japan is lovely.', known, { marker_first: true, text_after: true })).toBeNull();
    expect(markerFormatProblem('Well ● Japan', known, { marker_first: true })).toBe(
      'raw text does not start with a marker, expected it to: "Well ● Japan"',
    );
    expect(markerFormatProblem('● ● hi', known, { markers: 1 })).toBe(
      'raw text holds 2 marker(s), expected 1: "● ● hi"',
    );
    expect(markerFormatProblem('◐ and more', known, { text_after: false })).toBe(
      'raw text has text after the marker, expected nothing: "◐ and more"',
    );
    expect(markerFormatProblem('plain', known, { text_after: true })).toBe(
      'raw text holds no marker to check text after: "plain"',
    );
    expect(markerFormatProblem('plain', known, { marker_first: false, markers: 0 })).toBeNull();
    const { queue, ctx } = setup();
    queue.push(marker('short', 'Hmm ◐', '◐'));
    const out = await match({ event: 'llm_marker', marker: 'short', marker_first: true }, 0, ctx);
    expect(kindOf(out)).toBe('marker_format');
  });

  it('absent response: the rest of the reply an expectation matched is not a new response', async () => {
    const { queue, ctx } = setup();
    queue.push(signal('llm_started'));
    queue.push(text('response', 'The capital is Berlin.'));
    expect(kindOf(await match({ event: 'response' }, 0, ctx))).toBe(true);
    // The same reply's next sentence, transcribed after the match: not a duplicate.
    later(100, () => queue.push(text('response', 'It is a big city.')));
    expect(
      kindOf(await match({ event: 'response', absent: true, within_ms: 1000 }, 1, { ...ctx, anchorMs: at() })),
    ).toBe(true);
    // A reply the bot began after the match is.
    later(100, () => queue.push(signal('bot_started_speaking')));
    later(200, () => queue.push(text('response', 'The capital is Berlin.')));
    const dup = await match({ event: 'response', absent: true, within_ms: 1000 }, 2, { ...ctx, anchorMs: at() });
    expect(kindOf(dup)).toBe('unexpected_event');
  });

  it('eval: on function_call puts each matched call to the judge by name and arguments', async () => {
    const j = judge(['yes', 'yes']);
    const { queue, ctx } = setup(j);
    queue.push({ name: 'function_call', at_ms: at(), function_name: 'submit', args: { who: 'Jennifer Smith' } });
    queue.push({ name: 'function_call', at_ms: at(), function_name: 'notify', args: {} });
    const out = await match(
      { event: 'function_call', calls: [{ name: 'submit' }, { name: 'notify' }], eval: 'submitted for Jennifer Smith' },
      0,
      ctx,
    );
    expect(out.ok).toBe(true);
    expect(j.asked).toEqual([
      'call submit({"who":"Jennifer Smith"}): submitted for Jennifer Smith',
      'call notify({}): submitted for Jennifer Smith',
    ]);
  });

  it('eval: on function_call: a no or a continue fails judge_no naming the call; no judge fails no_judge', async () => {
    for (const verdict of ['no', 'continue'] as const) {
      const { queue, ctx } = setup(judge([verdict]));
      queue.push({ name: 'function_call', at_ms: at(), function_name: 'submit', args: { who: 'Bob' } });
      const out = await match({ event: 'function_call', calls: [{ name: 'submit' }], eval: 'for Jennifer' }, 0, ctx);
      expect(kindOf(out)).toBe('judge_no');
      if (!out.ok)
        expect(out.failure?.reason).toBe(
          `eval "for Jennifer" on submit(who="Bob"): judge said ${verdict} — scripted ${verdict}`,
        );
    }
    const { queue, ctx } = setup(null);
    queue.push({ name: 'function_call', at_ms: at(), function_name: 'submit', args: {} });
    expect(kindOf(await match({ event: 'function_call', eval: 'anything' }, 0, ctx))).toBe('no_judge');
  });

  it('a judge no on a reply the bot is still speaking waits for the rest and judges again', async () => {
    const j = judge(['no', 'yes']);
    const { queue, ctx } = setup(j, true);
    queue.push(text('response', 'Let me see.'));
    later(5000, () => queue.push(text('response', 'It is Berlin.'))); // long after the grace: the bot is still speaking
    const out = await match({ event: 'response', eval: 'says Berlin' }, 0, ctx);
    expect(out).toMatchObject({ ok: true, text: 'Let me see. It is Berlin.' });
    expect(j.asked).toHaveLength(2);
  });

  it('a judge no once the bot is quiet waits JUDGE_NO_GRACE_MS for a last segment, then fails judge_no', async () => {
    expect(JUDGE_NO_GRACE_MS).toBe(2000);
    const late = setup(judge(['no', 'yes']));
    late.queue.push(text('response', 'Let me see.'));
    later(1500, () => late.queue.push(text('response', 'It is Berlin.')));
    expect(kindOf(await match({ event: 'response', eval: 'says Berlin' }, 0, late.ctx))).toBe(true);
    const quiet = setup(judge(['no']));
    quiet.queue.push(text('response', 'Madrid.'));
    const t0 = at();
    const out = await match({ event: 'response', eval: 'says Berlin' }, 0, quiet.ctx);
    expect(kindOf(out)).toBe('judge_no');
    expect(at() - t0).toBe(JUDGE_NO_GRACE_MS);
  });
});
