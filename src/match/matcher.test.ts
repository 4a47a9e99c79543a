import { beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../core/clock.js';
import type { ManualTimerDriver } from '../core/timers.js';
import { manualTime, matchContext, runMatch } from './match.testutil.js';
import type { EarshotEvent } from '../results/events.js';
import type { EventQueue } from '../events/index.js';
import { argsSubset, type ExpectationSpec, type JudgePort, type MatchContext, type MatchOutcome } from './matcher.js';

/** Manual time: budgets of seconds pass as soon as nothing but a deadline is left to wait for. */
let clock: ManualClock;
let timers: ManualTimerDriver;
beforeEach(() => {
  ({ clock, timers } = manualTime());
});
const match = (exp: ExpectationSpec, index: number, ctx: MatchContext): Promise<MatchOutcome> =>
  runMatch({ clock, timers }, exp, index, ctx);
/** Runs `fn` `ms` from now on the manual clock. */
const later = (ms: number, fn: () => void): void => void timers.at(clock.now() + ms, fn);

function setup(judge: JudgePort | null = null): { queue: EventQueue; ctx: MatchContext; trace: string[] } {
  const trace: string[] = [];
  const { queue, ctx } = matchContext({ clock, timers }, { turnIndex: 3, judge, trace: (l) => trace.push(l) });
  return { queue, ctx, trace };
}

const at = (): number => clock.now();
const text = (name: 'llm_response' | 'response' | 'user_transcription', t: string): EarshotEvent => ({
  name,
  at_ms: at(),
  text: t,
});
const call = (function_name: string, args: Record<string, unknown> = {}): EarshotEvent => ({
  name: 'function_call',
  at_ms: at(),
  function_name,
  args,
});
const signal = (name: 'llm_started' | 'bot_interrupted' | 'user_started_speaking'): EarshotEvent => ({
  name,
  at_ms: at(),
});

/** A judge that answers from a script and records what it was shown. */
function scriptedJudge(answers: Array<'yes' | 'no' | 'continue'>): JudgePort & { shown: string[]; asked: number } {
  const j = {
    shown: [] as string[],
    asked: 0,
    addAssistant(t: string) {
      j.shown.push(t);
    },
    async evaluate() {
      const verdict = answers[Math.min(j.asked++, answers.length - 1)];
      return { verdict, reason: `scripted ${verdict}` };
    },
    async evaluateCall() {
      const verdict = answers[Math.min(j.asked++, answers.length - 1)];
      return { verdict, reason: `scripted ${verdict}` };
    },
  };
  return j;
}

describe('matcher (Pipecat matching rules)', () => {
  it('expectations match in order with other events allowed in between', async () => {
    const { queue, ctx } = setup();
    queue.push(signal('user_started_speaking'));
    queue.push(text('user_transcription', 'hi'));
    queue.push(signal('llm_started'));
    queue.push(text('llm_response', 'Hello'));
    const first = await match({ event: 'llm_started' }, 0, ctx);
    const second = await match({ event: 'llm_response' }, 1, ctx);
    expect(first.ok && second.ok).toBe(true);
  });

  it('an event passed over while waiting for a later expectation is gone (order matters)', async () => {
    const { queue, ctx } = setup();
    queue.push(text('llm_response', 'Hello'));
    queue.push(signal('llm_started'));
    ctx.defaultWithinMs = 80;
    await match({ event: 'llm_started' }, 0, ctx);
    const out = await match({ event: 'llm_response' }, 1, ctx);
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.failure?.kind).toBe('timeout');
  });

  it('all expectations of a turn share one deadline anchored at the send', async () => {
    const { queue, ctx } = setup();
    ctx.anchorMs = at() - 150; // the send happened 150 ms ago
    later(80, () => queue.push(signal('llm_started')));
    const out = await match({ event: 'llm_started', within_ms: 200 }, 0, ctx);
    expect(out.ok).toBe(false); // only 50 ms of the 200 ms budget were left
    if (!out.ok) {
      expect(out.failure).toMatchObject({ kind: 'timeout', turn_index: 3, expectation_index: 0, event: 'llm_started' });
      expect(out.endsTurn).toBe(true);
    }
  });

  it('within_ms defaults to the session default when the expectation has none', async () => {
    const { ctx } = setup();
    ctx.defaultWithinMs = 60;
    const t0 = at();
    const out = await match({ event: 'llm_started' }, 0, ctx);
    expect(out.ok).toBe(false);
    expect(at() - t0).toBeGreaterThanOrEqual(55);
    expect(at() - t0).toBeLessThan(1000);
  });

  it('text_contains aggregates successive segments: a missing substring means continue', async () => {
    const { queue, ctx } = setup();
    queue.push(text('llm_response', 'Let me check on that.'));
    queue.push(text('llm_response', 'It is 75 degrees in San Francisco.'));
    const out = await match({ event: 'llm_response', text_contains: '75 degrees' }, 0, ctx);
    expect(out).toMatchObject({ ok: true, text: 'Let me check on that. It is 75 degrees in San Francisco.' });
  });

  it('text_contains never satisfied within the budget fails as text_mismatch with the aggregate', async () => {
    const { queue, ctx } = setup();
    ctx.defaultWithinMs = 100;
    queue.push(text('llm_response', 'Berlin.'));
    const out = await match({ event: 'llm_response', text_contains: 'Paris' }, 0, ctx);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.failure?.kind).toBe('text_mismatch');
      expect(out.text).toBe('Berlin.');
    }
  });

  it('text_contains on user_transcription accumulates the STT pieces of the turn', async () => {
    const { queue, ctx } = setup();
    queue.push(text('user_transcription', 'DTMF: 1#'));
    const ok = await match({ event: 'user_transcription', text_contains: 'DTMF: 1#' }, 0, ctx);
    expect(ok.ok).toBe(true);
    queue.push(text('user_transcription', 'what is the capital'));
    queue.push(text('user_transcription', 'of Germany'));
    const spanning = await match({ event: 'user_transcription', text_contains: 'capital of Germany' }, 1, ctx);
    expect(spanning).toMatchObject({ ok: true, text: 'what is the capital of Germany' });
    ctx.anchorMs = at();
    ctx.defaultWithinMs = 100;
    queue.push(text('user_transcription', 'DTMF: 2'));
    const bad = await match({ event: 'user_transcription', text_contains: 'DTMF: 3' }, 2, ctx);
    expect(bad.ok === false && bad.failure?.kind).toBe('text_mismatch');
  });

  it('the judge is re-asked on each new segment while it answers continue, then yes passes', async () => {
    const judge = scriptedJudge(['continue', 'yes']);
    const { queue, ctx } = setup(judge);
    queue.push(text('llm_response', 'Let me look that up.'));
    later(30, () => queue.push(text('llm_response', 'Berlin is the capital.')));
    const out = await match({ event: 'llm_response', eval: 'says Berlin' }, 0, ctx);
    expect(out.ok).toBe(true);
    expect(judge.asked).toBe(2);
    expect(judge.shown).toEqual(['Let me look that up.', 'Berlin is the capital.']);
  });

  it('a judge that keeps answering continue until the deadline fails as judge_continue', async () => {
    const { queue, ctx } = setup(scriptedJudge(['continue']));
    ctx.defaultWithinMs = 100;
    queue.push(text('llm_response', 'One moment.'));
    const out = await match({ event: 'llm_response', eval: 'says Berlin' }, 0, ctx);
    expect(out.ok === false && out.failure?.kind).toBe('judge_continue');
  });

  it('a judge no fails the expectation as judge_no without ending the turn', async () => {
    const { queue, ctx } = setup(scriptedJudge(['no']));
    queue.push(text('llm_response', 'Madrid.'));
    const out = await match({ event: 'llm_response', eval: 'says Berlin' }, 0, ctx);
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.failure?.kind).toBe('judge_no');
      expect(out.endsTurn).toBe(false);
    }
  });

  it('eval: without a judge fails as no_judge', async () => {
    const { queue, ctx } = setup(null);
    queue.push(text('llm_response', 'Berlin.'));
    const out = await match({ event: 'llm_response', eval: 'says Berlin' }, 0, ctx);
    expect(out.ok === false && out.failure?.kind).toBe('no_judge');
  });

  it('eval: on an event with no text fails as no_content', async () => {
    const { queue, ctx } = setup(scriptedJudge(['yes']));
    queue.push(text('user_transcription', ''));
    const out = await match({ event: 'user_transcription', eval: 'anything' }, 0, ctx);
    expect(out.ok === false && out.failure?.kind).toBe('no_content');
  });

  it('function calls match as a set by name in any order', async () => {
    const { queue, ctx } = setup();
    queue.push(call('get_restaurant_recommendation', { location: 'San Francisco' }));
    queue.push(text('llm_response', 'checking'));
    queue.push(call('get_current_weather', { location: 'San Francisco' }));
    const exp: ExpectationSpec = {
      event: 'function_call',
      calls: [{ name: 'get_current_weather' }, { name: 'get_restaurant_recommendation' }],
    };
    const out = await match(exp, 0, ctx);
    expect(out).toMatchObject({ ok: true, summary: 'get_current_weather, get_restaurant_recommendation' });
  });

  it('calls that do not match are kept for later expectations of the same turn', async () => {
    const { queue, ctx } = setup();
    queue.push(call('b'));
    queue.push(call('a'));
    const first = await match({ event: 'function_call', calls: [{ name: 'a' }] }, 0, ctx);
    const second = await match({ event: 'function_call', calls: [{ name: 'b' }] }, 1, ctx);
    expect(first.ok && second.ok).toBe(true);
  });

  it('args are a subset check: listed keys must be equal, extra args are ignored', async () => {
    expect(argsSubset({ location: 'Paris', unit: 'c' }, { location: 'Paris' })).toBe(true);
    expect(argsSubset({ location: 'Paris' }, { location: 'Rome' })).toBe(false);
    expect(argsSubset({ size: 2 }, { size: '2' })).toBe(false);
    expect(argsSubset({ a: { b: [1, 2] } }, { a: { b: [1, 2] } })).toBe(true);
    const { queue, ctx } = setup();
    queue.push(call('collect_party_size', { size: 2, note: 'x' }));
    const out = await match(
      { event: 'function_call', calls: [{ name: 'collect_party_size', args: { size: 2 } }] },
      0,
      ctx,
    );
    expect(out.ok).toBe(true);
  });

  it('a call with the right name but wrong args fails as function_args_mismatch showing the args', async () => {
    const { queue, ctx } = setup();
    ctx.defaultWithinMs = 80;
    queue.push(call('get_current_weather', { location: 'Boston' }));
    const out = await match(
      { event: 'function_call', calls: [{ name: 'get_current_weather', args: { location: 'Paris' } }] },
      0,
      ctx,
    );
    expect(out.ok).toBe(false);
    if (!out.ok) {
      expect(out.failure?.kind).toBe('function_args_mismatch');
      expect(out.failure?.reason).toContain('Boston');
    }
  });

  it('a call never made fails as missing_function_call naming what did match', async () => {
    const { queue, ctx } = setup();
    ctx.defaultWithinMs = 80;
    queue.push(call('a'));
    const out = await match({ event: 'function_call', calls: [{ name: 'a' }, { name: 'b' }] }, 0, ctx);
    expect(out.ok === false && out.failure?.kind).toBe('missing_function_call');
    if (!out.ok) expect(out.failure?.reason).toContain('matched: a');
  });

  it('a call reported without a name fails as function_call_unnamed, saying how to raise the report level', async () => {
    const { queue, ctx } = setup();
    ctx.defaultWithinMs = 80;
    queue.push({ name: 'function_call', at_ms: at(), tool_call_id: 'call_1', args: {} });
    const named = await match({ event: 'function_call', calls: [{ name: 'get_current_weather' }] }, 0, ctx);
    expect(named.ok === false && named.failure?.kind).toBe('function_call_unnamed');
    if (!named.ok) expect(named.failure?.reason).toContain('RTVIFunctionCallReportLevel.NAME');
    const withArgs = await match({ event: 'function_call', calls: [{ args: { location: 'Paris' } }] }, 1, ctx);
    expect(withArgs.ok === false && withArgs.failure?.kind).toBe('function_call_unnamed');
    if (!withArgs.ok) expect(withArgs.failure?.reason).toContain('RTVIFunctionCallReportLevel.FULL');
    // A bare expectation needs no name: the unnamed call satisfies it.
    expect((await match({ event: 'function_call' }, 2, ctx)).ok).toBe(true);
  });

  it('a bare function_call expectation passes on any call', async () => {
    const { queue, ctx } = setup();
    queue.push(call('create_entities'));
    expect((await match({ event: 'function_call' }, 0, ctx)).ok).toBe(true);
  });

  it('function_call_stopped matches tool_call_id and cancelled through args', async () => {
    const { queue, ctx } = setup();
    queue.push({
      name: 'function_call_stopped',
      at_ms: at(),
      function_name: 'write_report',
      tool_call_id: 'call_2',
      cancelled: true,
    });
    const out = await match(
      { event: 'function_call_stopped', calls: [{ name: 'write_report', args: { cancelled: true } }] },
      0,
      ctx,
    );
    expect(out.ok).toBe(true);
  });

  it('absent: passes only if no such event arrives within the budget', async () => {
    const { queue, ctx } = setup();
    const t0 = at();
    queue.push(signal('llm_started'));
    const quiet = await match({ event: 'llm_response', absent: true, within_ms: 100 }, 0, ctx);
    expect(quiet.ok).toBe(true);
    expect(at() - t0).toBeGreaterThanOrEqual(95); // it holds the turn open for the whole window
    const { queue: q2, ctx: c2 } = setup();
    later(20, () => q2.push(text('llm_response', 'again!')));
    const loud = await match({ event: 'llm_response', absent: true, within_ms: 500 }, 0, c2);
    expect(loud.ok === false && loud.failure?.kind).toBe('unexpected_event');
    if (!loud.ok) expect(loud.failure?.reason).toContain('again!');
  });

  it('a bot that disconnects mid-wait fails at once as bot_disconnected', async () => {
    const { queue, ctx } = setup();
    later(20, () => queue.close('socket closed (1006)'));
    const t0 = at();
    const out = await match({ event: 'llm_response' }, 0, ctx);
    expect(out.ok === false && out.failure?.kind).toBe('bot_disconnected');
    expect(at() - t0).toBeLessThan(1000);
  });
});
