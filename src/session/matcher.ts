import type { Clock } from '../core/clock.js';
import { argsSubset } from '../core/equal.js';
import { errorMessage } from '../core/errors.js';
import type { EarshotEvent } from '../results/events.js';
import type { Failure, FailureKind } from '../results/types.js';
import type { EventName } from '../scenario/events.js';
import { DeadlineError, QueueClosedError, type EventQueue } from './event-queue.js';

/**
 * Matching semantics are Pipecat's, so a scenario behaves the same under both
 * harnesses: expectations are awaited in order with other events allowed in
 * between, a turn's expectations share one deadline anchored at the send, text
 * checks aggregate successive reply segments until satisfied, and function
 * calls match as a set by name in any order with a subset check on `args`.
 */

export interface ExpectedCallSpec {
  name?: string;
  args?: Record<string, unknown>;
}

/** The part of a scenario expectation the matcher reads. */
export interface ExpectationSpec {
  event: EventName;
  within_ms?: number;
  text_contains?: string;
  eval?: string;
  calls?: ExpectedCallSpec[];
  absent?: boolean;
}

export interface JudgeVerdict {
  verdict: 'yes' | 'no' | 'continue';
  reason: string;
}

/** What the matcher needs from the judge: the session keeps the conversation. */
export interface JudgePort {
  addAssistant(text: string): void;
  evaluate(criterion: string, signal?: AbortSignal): Promise<JudgeVerdict>;
}

export interface MatchContext {
  queue: EventQueue;
  clock: Clock;
  turnIndex: number;
  /** Session-clock time of the turn's send: every deadline of the turn counts from here. */
  anchorMs: number;
  defaultWithinMs: number;
  judge: JudgePort | null;
  /** Why there is no judge, when building it failed (shown in `no_judge` failures). */
  noJudgeReason?: string;
  /** Calls seen this turn but not claimed by an expectation yet (reset per turn). */
  pendingCalls: EarshotEvent[];
  trace: (line: string) => void;
  signal?: AbortSignal;
}

export type MatchOutcome =
  | { ok: true; atMs?: number; text?: string; judgeReason?: string; summary: string }
  | {
      ok: false;
      failure: Failure;
      /** A timeout or a lost connection ends the turn; a failed check lets the next expectation run. */
      endsTurn: boolean;
      text?: string;
    };

const TEXT_EVENTS = new Set<EventName>(['response', 'llm_response', 'tts_response', 'user_transcription']);
const CALL_EVENTS = new Set<EventName>(['function_call', 'function_call_stopped']);
const AGGREGATING = new Set<EventName>(['response', 'llm_response', 'tts_response']);

export function eventText(e: EarshotEvent): string {
  return 'text' in e && typeof e.text === 'string' ? e.text : '';
}

/** The name/args view a call expectation checks; `function_call_stopped` exposes `{tool_call_id, cancelled}` as args. */
export function callView(e: EarshotEvent): { name?: string; args: Record<string, unknown> } {
  if (e.name === 'function_call') return { name: e.function_name, args: e.args ?? {} };
  if (e.name === 'function_call_stopped') {
    return { name: e.function_name, args: { tool_call_id: e.tool_call_id, cancelled: e.cancelled } };
  }
  return { args: {} };
}

export { deepEqual, argsSubset } from '../core/equal.js';

function callSignature(spec: ExpectedCallSpec): string {
  const name = spec.name ?? 'any function';
  if (!spec.args || Object.keys(spec.args).length === 0) return name;
  return `${name}(${Object.entries(spec.args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`;
}

export function summarize(e: EarshotEvent): string {
  if (CALL_EVENTS.has(e.name)) {
    const { name, args } = callView(e);
    const sig = Object.entries(args)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ');
    return `${name ?? '?'}(${sig})`;
  }
  return eventText(e);
}

export async function matchExpectation(
  exp: ExpectationSpec,
  expIndex: number,
  ctx: MatchContext,
): Promise<MatchOutcome> {
  const budgetMs = exp.within_ms ?? ctx.defaultWithinMs;
  const deadline = ctx.anchorMs + budgetMs;
  const fail = (kind: FailureKind, reason: string, endsTurn = false, text?: string): MatchOutcome => ({
    ok: false,
    endsTurn,
    text,
    failure: { kind, turn_index: ctx.turnIndex, expectation_index: expIndex, event: exp.event, reason },
  });
  const lost = (err: QueueClosedError): MatchOutcome =>
    fail(err.kind, `${err.kind === 'protocol_error' ? 'the bot broke the protocol' : 'the bot closed the connection'} while waiting for '${exp.event}': ${err.why}`, true);

  try {
    if (exp.absent) return await matchAbsent(exp, deadline, budgetMs, ctx, fail);
    if (CALL_EVENTS.has(exp.event)) return await matchCalls(exp, deadline, ctx, fail);
    if (AGGREGATING.has(exp.event) && (exp.text_contains !== undefined || exp.eval !== undefined)) {
      return await matchAggregate(exp, deadline, budgetMs, ctx, fail);
    }
    ctx.trace(`match: waiting for '${exp.event}'`);
    const event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
    const text = eventText(event);
    // Every reply segment the turn consumes is context for later judgements, not only eval'd ones.
    if (AGGREGATING.has(exp.event) && text && exp.eval === undefined) ctx.judge?.addAssistant(text);
    if (exp.text_contains !== undefined && !text.includes(exp.text_contains)) {
      return fail('text_mismatch', `text ${JSON.stringify(text)} does not contain ${JSON.stringify(exp.text_contains)}`, false, text);
    }
    if (exp.eval !== undefined) {
      if (!ctx.judge) return fail('no_judge', noJudge(ctx), false, text);
      if (!text) return fail('no_content', `'${exp.event}' event has no text to judge`);
      ctx.judge.addAssistant(text);
      const verdict = await ctx.judge.evaluate(exp.eval, ctx.signal);
      ctx.trace(`judge: ${verdict.verdict}: ${verdict.reason}`);
      if (verdict.verdict !== 'yes') return fail('judge_no', `judge said ${verdict.verdict}: ${verdict.reason}`, false, text);
      return { ok: true, atMs: event.at_ms, text, judgeReason: verdict.reason, summary: text };
    }
    return { ok: true, atMs: event.at_ms, text: TEXT_EVENTS.has(exp.event) ? text : undefined, summary: summarize(event) };
  } catch (err) {
    if (err instanceof DeadlineError) {
      return fail('timeout', `no matching '${exp.event}' event arrived within ${budgetMs}ms`, true);
    }
    if (err instanceof QueueClosedError) return lost(err);
    if (ctx.signal?.aborted) throw err;
    return fail('harness_error', errorMessage(err), true);
  }
}

function noJudge(ctx: MatchContext): string {
  return `scenario uses 'eval:' but no judge could be built${ctx.noJudgeReason ? `: ${ctx.noJudgeReason}` : ''}`;
}

type Fail = (kind: FailureKind, reason: string, endsTurn?: boolean, text?: string) => MatchOutcome;

async function matchAbsent(
  exp: ExpectationSpec,
  deadline: number,
  budgetMs: number,
  ctx: MatchContext,
  fail: Fail,
): Promise<MatchOutcome> {
  ctx.trace(`match: expecting NO '${exp.event}' for ${budgetMs}ms`);
  try {
    const event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
    return fail('unexpected_event', `expected no '${exp.event}' within ${budgetMs}ms, but one arrived: ${summarize(event)}`);
  } catch (err) {
    // A bot that hangs up cannot send the forbidden event either: absence holds.
    if (err instanceof DeadlineError || err instanceof QueueClosedError) {
      return { ok: true, summary: `no '${exp.event}' for ${budgetMs}ms` };
    }
    throw err;
  }
}

async function matchCalls(exp: ExpectationSpec, deadline: number, ctx: MatchContext, fail: Fail): Promise<MatchOutcome> {
  const specs = exp.calls && exp.calls.length > 0 ? exp.calls : [{}];
  const matched: string[] = [];
  let lastAt: number | undefined;
  for (const spec of specs) {
    ctx.trace(`match: waiting for '${exp.event}' (${callSignature(spec)})`);
    const fits = (e: EarshotEvent): boolean => {
      if (e.name !== exp.event) return false;
      const view = callView(e);
      if (spec.name !== undefined && view.name !== spec.name) return false;
      return spec.args === undefined || argsSubset(view.args, spec.args);
    };
    const buffered = ctx.pendingCalls.findIndex(fits);
    let event: EarshotEvent;
    if (buffered >= 0) {
      event = ctx.pendingCalls.splice(buffered, 1)[0];
    } else {
      try {
        // Calls that don't fit this spec are kept for the turn's later specs and expectations.
        event = await ctx.queue.next(
          (e) => CALL_EVENTS.has(e.name) && fits(e),
          deadline,
          ctx.signal,
          (e) => {
            if (CALL_EVENTS.has(e.name)) ctx.pendingCalls.push(e);
          },
        );
      } catch (err) {
        if (!(err instanceof DeadlineError) && !(err instanceof QueueClosedError)) throw err;
        const near = ctx.pendingCalls
          .filter((e) => e.name === exp.event && (spec.name === undefined || callView(e).name === spec.name))
          .map((e) => callView(e).args);
        if (spec.args !== undefined && near.length > 0) {
          return fail(
            'function_args_mismatch',
            `no '${spec.name ?? 'any function'}' call had args ${JSON.stringify(spec.args)} (saw ${JSON.stringify(near)})`,
          );
        }
        if (err instanceof QueueClosedError) {
          return fail(err.kind, `the stream ended before a '${callSignature(spec)}' call: ${err.why}`, true);
        }
        return fail(
          'missing_function_call',
          `function call '${spec.name ?? 'any function'}' not seen (matched: ${matched.length ? matched.join(', ') : 'none'})`,
        );
      }
    }
    matched.push(callView(event).name ?? '?');
    lastAt = event.at_ms;
  }
  return { ok: true, atMs: lastAt, summary: matched.join(', ') || 'function call' };
}

async function matchAggregate(
  exp: ExpectationSpec,
  deadline: number,
  budgetMs: number,
  ctx: MatchContext,
  fail: Fail,
): Promise<MatchOutcome> {
  if (exp.eval !== undefined && !ctx.judge) return fail('no_judge', noJudge(ctx));
  ctx.trace(`match: waiting for '${exp.event}' (${[exp.text_contains !== undefined && 'text_contains', exp.eval !== undefined && 'eval'].filter(Boolean).join('+')})`);
  let aggregate = '';
  let lastReason = '';
  let seenAny = false;
  for (;;) {
    let event: EarshotEvent;
    try {
      event = await ctx.queue.next((e) => e.name === exp.event, deadline, ctx.signal);
    } catch (err) {
      if (!seenAny) throw err;
      if (err instanceof QueueClosedError) {
        return fail(err.kind, `the stream ended (${err.why}) before the reply satisfied the check: ${lastReason}`, true, aggregate);
      }
      if (!(err instanceof DeadlineError)) throw err;
      // text_contains is monotonic: a missing substring only ever waits for more text.
      return fail(
        exp.eval !== undefined ? 'judge_continue' : 'text_mismatch',
        `not satisfied within ${budgetMs}ms: ${lastReason}`,
        false,
        aggregate,
      );
    }
    seenAny = true;
    const delta = eventText(event);
    aggregate = aggregate ? `${aggregate} ${delta}` : delta;
    ctx.judge?.addAssistant(delta);
    if (exp.text_contains !== undefined && !aggregate.includes(exp.text_contains)) {
      lastReason = `does not contain ${JSON.stringify(exp.text_contains)}`;
      ctx.trace(`check: continue (aggregate=${JSON.stringify(aggregate)}) ${lastReason}`);
      continue;
    }
    if (exp.eval === undefined || !ctx.judge) return { ok: true, atMs: event.at_ms, text: aggregate, summary: aggregate };
    if (!aggregate.trim()) {
      lastReason = 'no response text yet';
      continue;
    }
    const verdict = await ctx.judge.evaluate(exp.eval, ctx.signal);
    ctx.trace(`judge: ${verdict.verdict} (aggregate=${JSON.stringify(aggregate)}) ${verdict.reason}`);
    if (verdict.verdict === 'yes') {
      return { ok: true, atMs: event.at_ms, text: aggregate, judgeReason: verdict.reason, summary: aggregate };
    }
    if (verdict.verdict === 'no') return fail('judge_no', `judge said no: ${verdict.reason}`, false, aggregate);
    lastReason = `judge said continue: ${verdict.reason}`;
  }
}
