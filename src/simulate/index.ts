/**
 * Simulated callers: the persona prompt and the LLM that plays the caller
 * (its `end_call` tool), and the verdict over a finished call: the judge over
 * the whole transcript (Pipecat's goal and per-reply metrics), the measures,
 * and earshot's extensions, GAIA's scorecard and NeMo's success signals. The
 * driver that holds the call is `drivers/simulation/simulation-driver.ts`.
 */
export {
  END_CALL,
  END_CALL_TOOL,
  PERSONA_LINES,
  personaInstruction,
  personaMessages,
  type HeardLine,
} from './persona.js';
export {
  createSimulator,
  type CreateSimulatorOptions,
  type PersonaMove,
  type Simulator,
} from './simulator.js';
export { TRANSCRIPT_LINES, botReplies, renderTranscript, type RunJudge } from './transcript.js';
export {
  RUN_JUDGE_SYSTEM_PROMPT,
  RUN_PROMPT_LINES,
  judgeRun,
  readRunVerdicts,
  runJudgePrompt,
  type RunQuestion,
  type RunVerdicts,
} from './judge-run.js';
export {
  LATENCY_TIMED,
  callMatches,
  madeCalls,
  measureMetric,
  replyLatencies,
  scoreJudgedMetric,
  type MadeCall,
  type RunFacts,
} from './score.js';
export {
  RUBRIC,
  SCORECARD_LINES,
  SCORECARD_SYSTEM_PROMPT,
  numericCap,
  readScores,
  scoreCard,
  judgeScorecard,
  type JudgeScores,
} from './scorecard.js';
export { deviation, numbersIn, toleranceCap } from './numbers.js';
export { CLAIM_LINE, CLAIM_SYSTEM_PROMPT, actionMatch, cleanExit, nlAssertions, type CallEnding } from './signals.js';
export { concludeSimulation, type ConcludeInput, type PlayedCall } from './conclude.js';
export { aggregateRuns, runsOf, type RunsVerdict } from './runs.js';
export {
  GAIA_AUTO_ZERO_RULES,
  GAIA_CALLER_LINES,
  GAIA_CALLER_SYSTEM_PROMPT,
  GAIA_TURN_LINES,
  GAIA_TURN_SYSTEM_PROMPT,
  describeCall,
  gaiaCallerPrompt,
  gaiaTurnPrompt,
  type GaiaJudgeRule,
  type GaiaTurnView,
} from './gaia-prompts.js';
export { admitsNotKnowing, expectedNumberCheck, factNumberCheck, type NumberCheck } from './gaia-checks.js';
export {
  CALL_DIMENSIONS,
  gaiaTotals,
  gaiaTurnFailures,
  isNoVerdict,
  judgeGaiaTurn,
  readGaiaAnswer,
  scoreGaiaTurn,
  type GaiaJudgeAnswer,
  type GaiaNoVerdict,
  type GaiaTurnPlay,
} from './gaia-score.js';
export { createTurnWriter, turnWriterMessages, type CreateTurnWriterOptions, type TurnWriter } from './turn-writer.js';
