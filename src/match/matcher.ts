import { errorMessage } from '../core/errors.js';
import type { EarshotEvent } from '../results/events.js';
import type { FailureKind } from '../results/types.js';
import type { EventName } from '../scenario/events.js';
import { DeadlineError, QueueClosedError } from '../events/index.js';
import type { ExpectationSpec, Fail, MatchContext, MatchOutcome } from './match-types.js';
import { matchCalls } from './match-calls.js';
import { noJudge } from './match-checks.js';
import { CALL_EVENTS, eventText, excludedText, markerProblem, summarize } from './match-checks.js';
import { reconsiderHearing } from './match-hearing.js';
import { checkPositive, hasPositiveChecks, type TextCheckResult } from './match-text.js';

export { argsSubset, callView, deepEqual, eventText, summarize } from './match-checks.js';

/**
 * Matching semantics are Pipecat's (`matcher.py`), so a scenario behaves the
 * same under both harnesses: expectations are awaited in order with other
 * events allowed in between, a turn's expectations share one deadline
 * anchored at the send, a reply with a content check aggregates its segments
 * (and a `user_transcription` with `text_contains` the STT's pieces) until
 * satisfied, substring checks ignore spacing, and function calls match as a
 * set by name in any order with a subset check on `args`.
 */

/**
 * How long a judge's "no" waits for more of the reply once the bot has stopped speaking (Pipecat's `JUDGE_NO_GRACE_S`).
 */
export const JUDGE_NO_GRACE_MS = 2000;

export type {
  ExpectedCallSpec,
  ExpectationSpec,
  JudgeVerdict,
  JudgePort,
  MatcherState,
  MatchContext,
  MatchOutcome,
  Fail,
} from './match-types.js';

const TEXT_EVENTS = new Set<EventName>([
  'response',
  'llm_response',
  'tts_response',
  'user_transcription',
  'llm_marker',
]);
const REPLY_EVENTS = new Set<EventName>(['response', 'llm_response', 'tts_response']);

/** Whether the expectation accumulates text across events rather than matching one (Pipecat's `aggregates`). */
export function aggregates(exp: ExpectationSpec): boolean {
  if (REPLY_EVENTS.has(exp.event)) return hasPositiveChecks(exp) || exp.eval !== undefined;
  if (exp.event === 'user_transcription') return hasPositiveChecks(exp) && exp.eval === undefined;
  return false;
}

export async function matchExpectation(
  exp: ExpectationSpec,
  expIndex: number,
  ctx: MatchContext,
): Promise<MatchOutcome> {
  const budgetMs = exp.within_ms ?? ctx.defaultWithinMs;
  const deadline = ctx.anchorMs + budgetMs;
  const fail: Fail = (kind, reason, endsTurn = false, text) => ({
    ok: false,
    endsTurn,
    text,
    failure: { kind, turn_index: ctx.turnIndex, expectation_index: expIndex, event: exp.event, reason },
  });
  const lost = (err: QueueClosedError): MatchOutcome =>
    fail(
      err.kind,
      `${err.kind === 'protocol_error' ? 'the bot broke the protocol' : 'the bot closed the connection'} while ` +
        `waiting for '${exp.event}': ${err.why}`,
      true,
    );

  // The events a check read: their hearing decides whether its verdict stands (match-hearing.ts).
  const consumed: EarshotEvent[] = [];
  try {
    let outcome: MatchOutcome;
    if (exp.absent) outcome = await matchAbsent(exp, deadline, budgetMs, ctx, fail);
    else if (aggregates(exp)) outcome = await matchAggregate(exp, deadline, budgetMs, ctx, fail, consumed);
    else if (CALL_EVENTS.has(exp.event)) outcome = await matchCalls(exp, deadline, ctx, fail);
    else outcome = await matchOne(exp, deadline, ctx, fail, consumed);
    if (outcome.ok && !exp.absent && ctx.state) ctx.state.lastMatchAtMs = ctx.clock.now();
    const heard = reconsiderHearing(exp, consumed, outcome);
    if (heard !== outcome) ctx.trace(`hearing: inconclusive: ${heard.ok ? '' : heard.inconclusive?.reason}`);
    return heard;
  } catch (err) {
    if (err instanceof DeadlineError) {
      return fail('timeout', `no matching '${exp.event}' event arrived within ${budgetMs}ms`, true);
    }
    if (err instanceof QueueClosedError) return lost(err);
    if (ctx.signal?.aborted) throw err;
    return fail('harness_error', errorMessage(err), true);
  }
}

/** One event, its payload checks (text, markers), then the judge. */
async function matchOne(
  exp: ExpectationSpec,
  deadline: number,
  ctx: MatchContext,
  fail: Fail,
  consumed: EarshotEvent[],
): Promise<MatchOutcome> {
  ctx.trace(`match: waiting for '${exp.event}'`);
  const event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
  consumed.push(event);
  const text = eventText(event);
  // Every reply segment the turn consumes is context for later judgements, not only eval'd ones.
  if (REPLY_EVENTS.has(exp.event) && text && exp.eval === undefined) ctx.judge?.addAssistant(text);
  const checked = checkPositive(text, exp);
  if (!checked.ok) return fail(checked.kind, `text ${JSON.stringify(text)} ${checked.reason}`, false, text);
  const problem = excludedText(text, exp.text_excludes) ?? markerProblem(event, exp);
  if (problem) return fail(problem.kind, problem.reason, false, text);
  if (exp.eval !== undefined) {
    if (!ctx.judge) return fail('no_judge', noJudge(ctx), false, text);
    if (!text) return fail('no_content', `'${exp.event}' event has no text to judge`);
    ctx.judge.addAssistant(text);
    const verdict = await ctx.judge.evaluate(exp.eval, ctx.signal);
    ctx.trace(`judge: ${verdict.verdict}: ${verdict.reason}`);
    if (verdict.verdict !== 'yes')
      return fail(
        'judge_no',
        `eval ${JSON.stringify(exp.eval)}: judge said ${verdict.verdict} — ${verdict.reason}`,
        false,
        text,
      );
    return { ok: true, atMs: event.at_ms, text, judgeReason: verdict.reason, summary: text };
  }
  return {
    ok: true,
    atMs: event.at_ms,
    text: TEXT_EVENTS.has(exp.event) ? text : undefined,
    summary: summarize(event),
  };
}

/**
 * Passes when no event of the kind arrives before the deadline; an arriving
 * one fails at once. A `response` that continues the reply an earlier
 * expectation matched (no `llm_started` or `bot_started_speaking` since that
 * match) is not a new one and is passed over.
 */
async function matchAbsent(
  exp: ExpectationSpec,
  deadline: number,
  budgetMs: number,
  ctx: MatchContext,
  fail: Fail,
): Promise<MatchOutcome> {
  ctx.trace(`match: expecting NO '${exp.event}' for ${budgetMs}ms`);
  for (;;) {
    let event: EarshotEvent;
    try {
      event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
    } catch (err) {
      // A bot that hangs up cannot send the forbidden event either: absence holds.
      if (err instanceof DeadlineError || err instanceof QueueClosedError) {
        return { ok: true, summary: `no '${exp.event}' for ${budgetMs}ms` };
      }
      throw err;
    }
    if (exp.event === 'response' && !replyBeganAfterLastMatch(ctx)) {
      ctx.trace(`absent: the matched reply goes on, not a new one: ${JSON.stringify(summarize(event))}`);
      continue;
    }
    return fail(
      'unexpected_event',
      `expected no '${exp.event}' within ${budgetMs}ms, but one arrived: ${summarize(event)}`,
    );
  }
}

function replyBeganAfterLastMatch(ctx: MatchContext): boolean {
  const began = Math.max(
    ctx.queue.latest('llm_started') ?? -Infinity,
    ctx.queue.latest('bot_started_speaking') ?? -Infinity,
  );
  return ctx.t0Ms + began > (ctx.state?.lastMatchAtMs ?? -Infinity);
}

/**
 * Accumulates segments until the content check passes or fails. A missing
 * substring waits for more; an excluded one fails at once; only the judge can
 * fail a reply otherwise, and a "no" on a reply the bot is still speaking, or
 * whose last sentence may still be transcribed (`JUDGE_NO_GRACE_MS`), waits
 * for the rest and judges again.
 */
async function matchAggregate(
  exp: ExpectationSpec,
  deadline: number,
  budgetMs: number,
  ctx: MatchContext,
  fail: Fail,
  consumed: EarshotEvent[],
): Promise<MatchOutcome> {
  if (exp.eval !== undefined && !ctx.judge) return fail('no_judge', noJudge(ctx));
  const checks = (['text_contains', 'text_matches', 'number', 'eval'] as const).filter((k) => exp[k] !== undefined);
  ctx.trace(`match: waiting for '${exp.event}' (${checks.join('+')})`);
  let aggregate = '';
  let lastReason = '';
  let missKind: FailureKind = exp.eval !== undefined ? 'judge_continue' : 'text_mismatch';
  let seenAny = false;
  let pending: EarshotEvent | null = null;
  for (;;) {
    let event: EarshotEvent;
    if (pending) {
      event = pending;
      pending = null;
    } else {
      try {
        event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
      } catch (err) {
        if (!seenAny) throw err;
        if (err instanceof QueueClosedError) {
          return fail(
            err.kind,
            `the stream ended (${err.why}) before the reply satisfied the check: ${lastReason}`,
            true,
            aggregate.trim(),
          );
        }
        if (!(err instanceof DeadlineError)) throw err;
        ctx.trace(`check: timeout, not satisfied: ${lastReason}`);
        return fail(missKind, `not satisfied within ${budgetMs}ms: ${lastReason}`, false, aggregate.trim());
      }
    }
    seenAny = true;
    consumed.push(event);
    const delta = eventText(event);
    aggregate += delta;
    const excluded = excludedText(aggregate, exp.text_excludes);
    if (excluded) return fail(excluded.kind, excluded.reason, false, aggregate.trim());
    // Each segment is its own assistant message, so the judge reads the reply in the conversation's context.
    if (exp.event !== 'user_transcription') ctx.judge?.addAssistant(delta);
    const status = await checkAggregate(aggregate, exp, ctx);
    ctx.trace(`check: ${status.status} (aggregate=${JSON.stringify(aggregate.trim())}) ${status.reason}`);
    if (status.status === 'pass') {
      return {
        ok: true,
        atMs: event.at_ms,
        text: aggregate.trim(),
        ...(status.judgeReason !== undefined ? { judgeReason: status.judgeReason } : {}),
        summary: aggregate.trim(),
      };
    }
    if (status.status === 'error') return fail('error', status.reason, false, aggregate.trim());
    if (status.status === 'fail') {
      pending = await restOfReply(exp.event, deadline, ctx);
      if (!pending) return fail('judge_no', status.reason, false, aggregate.trim());
      ctx.trace('check: judge said no, but the reply goes on: judging the rest');
    }
    // Segments are separated by a space so sentences do not run together.
    aggregate += ' ';
    lastReason = status.reason;
    // With a judge the deadline is the judge's `judge_continue` (Pipecat's rule); without, the check's own kind.
    if (status.status === 'continue' && status.kind && exp.eval === undefined) missKind = status.kind;
  }
}

type AggregateStatus =
  | { status: 'pass'; reason: string; judgeReason?: string }
  | { status: 'fail' | 'error'; reason: string }
  /** `kind`: the failure a deadline turns it into, when not the judge's. */
  | { status: 'continue'; reason: string; kind?: FailureKind };

async function checkAggregate(aggregate: string, exp: ExpectationSpec, ctx: MatchContext): Promise<AggregateStatus> {
  const checked: TextCheckResult = checkPositive(aggregate, exp);
  if (!checked.ok)
    return checked.final
      ? { status: 'error', reason: checked.reason }
      : { status: 'continue', reason: checked.reason, kind: checked.kind };
  if (exp.eval === undefined || !ctx.judge) return { status: 'pass', reason: '' };
  if (!aggregate.trim()) return { status: 'continue', reason: 'no response text yet' };
  const verdict = await ctx.judge.evaluate(exp.eval, ctx.signal);
  if (verdict.verdict === 'no') return { status: 'fail', reason: `judge said no: ${verdict.reason}` };
  if (verdict.verdict === 'continue')
    return { status: 'continue', reason: `judge said continue: ${verdict.reason}`, kind: 'judge_continue' };
  return { status: 'pass', reason: `judge said yes: ${verdict.reason}`, judgeReason: verdict.reason };
}

/** The next segment of a reply the judge rejected, or null once the reply is over. */
async function restOfReply(name: EventName, deadline: number, ctx: MatchContext): Promise<EarshotEvent | null> {
  const until = ctx.botSpeaking?.() ? deadline : Math.min(deadline, ctx.clock.now() + JUDGE_NO_GRACE_MS);
  try {
    return await ctx.queue.next((e) => e.name === name, until, ctx.signal);
  } catch (err) {
    if (err instanceof DeadlineError || err instanceof QueueClosedError) return null;
    throw err;
  }
}
