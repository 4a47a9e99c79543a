import type { EarshotEvent } from '../results/events.js';
import { DeadlineError, QueueClosedError } from '../events/index.js';
import { argsSubset, CALL_EVENTS, callView, noJudge, summarize } from './match-checks.js';
import type { ExpectationSpec, ExpectedCallSpec, Fail, MatchContext, MatchOutcome } from './match-types.js';

/**
 * A call expectation: every call it lists, in any order, within the budget;
 * calls that fit none are kept for the turn's later specs. With `eval:` each
 * matched call is also put to the judge by name and arguments, over the
 * conversation so far, and the first it does not accept fails the
 * expectation (a call is not a partial reply: `continue` counts as no).
 */
export async function matchCalls(
  exp: ExpectationSpec,
  deadline: number,
  ctx: MatchContext,
  fail: Fail,
): Promise<MatchOutcome> {
  if (exp.eval !== undefined && !ctx.judge) return fail('no_judge', noJudge(ctx));
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
        // Calls arrived but hid what the spec checks: say why, not that there were none.
        const hidden = ctx.pendingCalls.filter((e) => e.name === exp.event && callView(e).name === undefined);
        const argsHidden =
          exp.event === 'function_call' &&
          spec.args !== undefined &&
          hidden.every((e) => Object.keys(callView(e).args).length === 0);
        if (hidden.length > 0 && (spec.name !== undefined || argsHidden)) {
          return fail(
            'function_call_unnamed',
            `the bot reported ${hidden.length} '${exp.event}' call(s) without a name, so ` +
              `'${callSignature(spec)}' cannot be checked: it reports calls at a level that hides names ` +
              "(Pipecat's RTVIObserver defaults to RTVIFunctionCallReportLevel.NONE). Raise it in the bot: " +
              'RTVIObserverParams(function_call_report_level={"*": ' +
              `RTVIFunctionCallReportLevel.${spec.args !== undefined ? 'FULL' : 'NAME'}}) ` +
              '(the eval transport raises it per scenario with eval-configure; the protobuf wire cannot)',
          );
        }
        // A call of the right name with other arguments is a different failure from no call, and its arguments are what
        // the reader needs.
        const near = ctx.pendingCalls
          .filter((e) => e.name === exp.event && (spec.name === undefined || callView(e).name === spec.name))
          .map((e) => callView(e).args);
        if (spec.args !== undefined && near.length > 0) {
          return fail(
            'function_args_mismatch',
            `no '${spec.name ?? 'any function'}' call had args ${JSON.stringify(spec.args)} (saw ` +
              `${JSON.stringify(near)})`,
          );
        }
        if (err instanceof QueueClosedError)
          return fail(err.kind, `the stream ended before a '${callSignature(spec)}' call: ${err.why}`, true);
        return fail(
          'missing_function_call',
          `function call '${spec.name ?? 'any function'}' not seen (matched: ` +
            `${matched.length ? matched.join(', ') : 'none'})`,
        );
      }
    }
    if (exp.eval !== undefined && ctx.judge) {
      const { name, args } = callView(event);
      const verdict = await ctx.judge.evaluateCall(name ?? '?', args, exp.eval, ctx.signal);
      ctx.trace(`judge: ${verdict.verdict} (${summarize(event)}) ${verdict.reason}`);
      if (verdict.verdict !== 'yes') {
        return fail(
          'judge_no',
          `eval ${JSON.stringify(exp.eval)} on ${summarize(event)}: judge said ${verdict.verdict} — ` +
            `${verdict.reason}`,
        );
      }
    }
    matched.push(callView(event).name ?? '?');
    lastAt = event.at_ms;
  }
  return { ok: true, atMs: lastAt, summary: matched.join(', ') || 'function call' };
}

function callSignature(spec: ExpectedCallSpec): string {
  const name = spec.name ?? 'any function';
  if (!spec.args || Object.keys(spec.args).length === 0) return name;
  return `${name}(${Object.entries(spec.args)
    .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
    .join(', ')})`;
}
