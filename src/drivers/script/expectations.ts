import type { EarshotEvent } from '../../results/events.js';
import type { ExpectationResult, Failure } from '../../results/types.js';
import type { Turn } from '../../scenario/index.js';
import type { DriverRuntime, SentInput, TurnScope } from '../../session/index.js';
import { matchExpectation, type MatcherState, type SessionJudge } from '../../match/index.js';

/**
 * What a script's matching keeps across its turns: the judge (when the scenario uses `eval:`) and the matcher's memory.
 */
export interface ScriptMatching {
  judge: SessionJudge | null;
  /** Why there is no judge, when building it failed (shown in `no_judge` failures). */
  noJudgeReason?: string;
  state: MatcherState;
}

/**
 * Matches a turn's expectations in order against one deadline anchored at the
 * send (Pipecat's rules, `src/match/`), recording each result on the turn; a
 * timeout or a lost connection ends the turn (the rest are listed `not_run`),
 * a failed check lets the next expectation run. Returns what was recorded and
 * the failures.
 */
export async function matchTurn(
  rt: DriverRuntime,
  scope: TurnScope,
  turn: Turn,
  sent: SentInput,
  matching: ScriptMatching,
  signal: AbortSignal,
): Promise<{ recorded: ExpectationResult[]; failures: Failure[] }> {
  const index = scope.index;
  const { time } = rt;
  const pendingCalls: EarshotEvent[] = [];
  const recorded: ExpectationResult[] = [];
  const failures: Failure[] = [];
  for (const [expIndex, exp] of turn.expect.entries()) {
    const outcome = await matchExpectation(exp, expIndex, {
      queue: rt.stream,
      clock: time.clock,
      t0Ms: time.t0Ms,
      turnIndex: index,
      anchorMs: sent.anchorMs,
      defaultWithinMs: exp.within_ms,
      pendingCalls,
      botSpeaking: () => rt.stream.speaking,
      state: matching.state,
      judge: matching.judge,
      noJudgeReason: matching.noJudgeReason,
      trace: (l) => rt.log(l),
      signal,
    });
    const status = outcome.ok ? 'passed' : outcome.inconclusive ? 'inconclusive' : 'failed';
    const result: ExpectationResult = { index: expIndex, event: exp.event, status };
    // Keys in this order: results.jsonl keeps the layout it always had.
    if (outcome.ok && outcome.atMs !== undefined) {
      result.matched_after_ms = Math.round(outcome.atMs - (sent.anchorMs - time.t0Ms));
    }
    if (outcome.text !== undefined) result.text = outcome.text;
    if (outcome.ok) {
      if (outcome.judgeReason !== undefined) result.judge_reason = outcome.judgeReason;
      rt.log(`matched: ${exp.event}${outcome.summary ? ` ${JSON.stringify(outcome.summary)}` : ''}`);
    } else if (outcome.inconclusive) {
      // Neither a pass nor a failure: the turn goes on, and so does the scenario.
      result.inconclusive = outcome.inconclusive;
      rt.log(`INCONCLUSIVE: ${exp.event}: [${outcome.inconclusive.kinds.join(', ')}] ${outcome.inconclusive.reason}`);
    } else {
      failures.push(outcome.failure);
      rt.log(`FAIL: ${exp.event}: [${outcome.failure.kind}] ${outcome.failure.reason}`);
    }
    recorded.push(result);
    scope.record(result, outcome.ok ? undefined : outcome.failure);
    if (!outcome.ok && outcome.endsTurn) break;
  }
  for (let i = recorded.length; i < turn.expect.length; i++) {
    scope.record({ index: i, event: turn.expect[i].event, status: 'not_run' });
  }
  return { recorded, failures };
}
