/**
 * The session runtime: one scenario run over one connection, everything but
 * the conversation (connect, handshake, media, the bot's events, the
 * timeline, the trace, the result's turn records, teardown), and the seam a
 * driver plays the conversation through (driver.ts). The drivers are in
 * `src/drivers/`.
 */
export { SessionRuntime } from './runtime.js';
export {
  BOT_QUIET_MAX_WAIT_MS,
  BOT_READY_TIMEOUT_MS,
  DEFAULT_CODEC,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_LATENCY_WAIT_MS,
  SEND_AFTER_MAX_WAIT_MS,
  resolveSessionConfig,
  resolveSessionSettings,
  sessionConfig,
  withMedia,
  type JudgeSettings,
  type SessionConfig,
  type SessionBot,
  type SessionIo,
  type SessionSettings,
} from './config.js';
export type { SessionOptions, SessionOutcome, SessionSettingsOptions } from './options.js';
export type {
  BotStream,
  ConcludeContext,
  ConversationListener,
  DriverRuntime,
  DriverSetup,
  SaidInput,
  SentInput,
  SessionDriver,
  SessionTime,
  TurnInput,
  TurnScope,
  TurnSend,
  TurnTimelines,
} from './driver.js';
export type { SessionProgress } from './progress.js';
export { nemoStateNeed } from './nemo-needs.js';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  type BotRequests,
  type ControlReply,
  type RequestFailure,
  type RequestOptions,
} from './requests.js';
export type {
  SessionMedia,
  MediaContext,
  MediaArtifacts,
  MediaFactory,
  MediaRequest,
  UserUtterance,
} from './media.js';
export { SessionTiming, type SessionTimingOptions } from './timing.js';
export { Trace } from './trace.js';
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
} from './scenario-needs.js';
export {
  DOCUMENTS_ACK_TIMEOUT_MS,
  DOCUMENTS_VIA,
  documentProblems,
  documentsOf,
  readDocuments,
  type DocumentsFile,
  type DocumentsVia,
  type ReadDocuments,
} from './documents.js';
export {
  appendToContextProblem,
  checkWire,
  gaiaCallsVisible,
  formatProblems,
  HANDSHAKE_MODES,
  readsAppendToContext,
  type BotEnables,
  type HandshakeMode,
  type WireCheck,
  type WirePlan,
  type WireSettings,
} from './wire-check.js';
export { codeRefusal, unobservableExpectation } from './preconditions.js';
