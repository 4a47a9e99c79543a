export { runSession, driveSession } from './session.js';
export { SessionRuntime } from './runtime.js';
export {
  DEFAULT_CONNECT_TIMEOUT_MS,
  BOT_READY_TIMEOUT_MS,
  type SessionOptions,
  type SessionOutcome,
} from './options.js';
export type {
  SessionDriver,
  DriverRuntime,
  ConcludeContext,
  TurnInput,
  UserUtterance,
  SentInput,
  TurnMatch,
} from './driver.js';
export {
  ScriptDriver,
  SEND_AFTER_MAX_WAIT_MS,
  BOT_QUIET_MAX_WAIT_MS,
  type ScriptDriverOptions,
} from './script-driver.js';
export { SimulationDriver, CLOSING_REPLY_WAIT_MS, type SimulationDriverDeps } from './simulation-driver.js';
export { createSimulationDriver, runSimulation, type SimulationSetup } from './simulation-setup.js';
export { BotTurns } from './bot-turns.js';
export type { SessionProgress } from './progress.js';
export type { SessionMedia, MediaContext, MediaArtifacts, MediaFactory, MediaRequest } from './media.js';
export { SessionTiming, DEFAULT_LATENCY_WAIT_MS, type SessionTimingOptions } from './timing.js';
export { AudioEngine, checkSphinxInstalled, type AudioEngineOptions } from './media/engine.js';
export {
  DEFAULT_BOT_INPUT_RATE,
  DEFAULT_USER_SAMPLE_RATE,
  sampleRateWarning,
  parseSttOverride,
  parseTtsOverride,
  transcriptionPlan,
  userSpeechPlan,
} from './media/speech-specs.js';
export { DEFAULT_MAX_TURN_AUDIO_MS } from './media/capture.js';
export { UserAudioError } from './media/user-audio.js';
export {
  requiredReportLevel,
  needsVadEvents,
  needsMarkerEvents,
  evalConfigure,
  connectFlags,
  modeOf,
  usesEval,
} from './config.js';
export { EventTranslator, type Translation } from './translator.js';
export {
  appendToContextProblem,
  checkWire,
  formatProblems,
  HANDSHAKE_MODES,
  readsAppendToContext,
  type BotEnables,
  type HandshakeMode,
  type WireCheck,
  type WirePlan,
  type WireSettings,
} from './wire-check.js';
export { EventQueue, DeadlineError, QueueClosedError, type QueueEndKind } from './event-queue.js';
export {
  matchExpectation,
  argsSubset,
  JUDGE_NO_GRACE_MS,
  type ExpectationSpec,
  type MatchOutcome,
  type MatcherState,
} from './matcher.js';
export { textContains, markerFormatProblem } from './match-checks.js';
export { codeRefusal, unobservableExpectation } from './preconditions.js';
