export { runSession, DEFAULT_CONNECT_TIMEOUT_MS, BOT_READY_TIMEOUT_MS, SEND_AFTER_MAX_WAIT_MS, type SessionOptions, type SessionOutcome } from './session.js';
export type { SessionProgress } from './progress.js';
export type { SessionMedia, MediaContext, MediaArtifacts } from './media.js';
export { requiredReportLevel, needsVadEvents, evalConfigure, connectFlags, modeOf, usesEval } from './config.js';
export { EventTranslator, type Translation } from './translator.js';
export { EventQueue } from './event-queue.js';
export { matchExpectation, argsSubset, type ExpectationSpec, type MatchOutcome } from './matcher.js';
