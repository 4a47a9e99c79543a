export { actionMatch, normalizeScenarioPayload, predictedActions, valuesMatch } from './action-match.js';
export { cleanExit, stopReason } from './clean-exit.js';
export { concludeNemo } from './conclude.js';
export { dbStateAssertion, dbStateMatch, diffPaths } from './db-state.js';
export { JUDGE_PASSED_LINES, JUDGE_PASSED_SYSTEM_PROMPT, judgePassed, judgePassedFrom } from './judge-passed.js';
export { nlAssertion } from './nl.js';
export {
  DEFAULT_NEMO_SETTINGS,
  readBotSummary,
  type BotSummary,
  type NemoVerdictSettings,
  type SummaryPull,
} from './types.js';
export { nemoVerdict, strictAnd } from './verdict.js';
