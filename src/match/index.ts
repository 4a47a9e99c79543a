/**
 * Matching a turn's expectations against the bot's events, with Pipecat's
 * rules (matcher.ts), earshot's deterministic checks and hearing verdicts,
 * and the judge's side of the conversation (judge-port.ts).
 */
export {
  aggregates,
  argsSubset,
  JUDGE_NO_GRACE_MS,
  matchExpectation,
  type ExpectationSpec,
  type JudgePort,
  type JudgeVerdict,
  type MatchContext,
  type MatcherState,
  type MatchOutcome,
} from './matcher.js';
export { markerFormatProblem, textContains } from './match-checks.js';
export { buildJudge, SessionJudge, type BuildJudgeOptions } from './judge-port.js';
