/**
 * The reference bot: a real RTVI bot (Silero VAD, PocketSphinx, a scripted
 * brain, Flite, real-time audio, barge-in, DTMF, both wire codecs) with a
 * ground-truth log (truth.ts) and fault switches (faults/switches.ts), for
 * tests, demos and calibration. `startRefbot` runs it in this process;
 * `earshot refbot` runs it as a program.
 *
 * What it sends, in order (a Pipecat bot on the eval transport does the same):
 *
 * - handshake: `client-ready` → `bot-ready` (the request's id, version
 *   2.1.0), then the greeting as a full reply.
 * - a reply: `bot-llm-started` · `metrics`(ttfb) · [`llm-function-call-started`
 *   per call · `llm-function-call-in-progress` per call · the calls run in
 *   parallel · `llm-function-call-stopped` per call in completion order] ·
 *   `bot-llm-text` word chunks (8 ms apart; the story 60 ms) · `metrics`
 *   (processing) · `bot-llm-stopped`. Call details follow the report level
 *   (`none` by default, as Pipecat; raised by eval-configure): `none` gives
 *   only `tool_call_id`, `name` adds `function_name`, `full` adds `arguments`
 *   and `result`, `disabled` sends nothing.
 *   Spoken (not `skip_tts`, not `audio_response: false`), concurrently from
 *   the moment the first sentence has streamed: `bot-tts-started` ·
 *   `metrics`(TTS ttfb) · `bot-started-speaking` · per sentence `bot-output`
 *   and `bot-tts-text` just before its first audio frame · audio in 20 ms
 *   frames in real time · `bot-stopped-speaking` · `bot-tts-stopped` once the
 *   last frame has played. Audio reaches the wire as `eval-bot-audio` only with
 *   `capture_bot_audio=true` on pipecat-eval, as AudioRawFrames always on
 *   protobuf; the bot speaks (and paces) either way.
 * - `send-text` (run_immediately, the default): [interruption] ·
 *   `user-llm-text` · reply. No user speaking events (Pipecat's send-text path
 *   has none). `run_immediately: false` only adds the text to the
 *   conversation.
 * - DTMF: the first key of an entry interrupts a reply in flight; the entry
 *   (on `#`, or 2 s after the last key) gives `user-started-speaking` ·
 *   `user-transcription` (final, "DTMF: 12#") · `user-stopped-speaking` ·
 *   `user-llm-text` · reply.
 * - audio: VAD start → [`vad-user-started-speaking`] · `user-started-speaking`
 *   · [interruption]; VAD end → [`vad-user-stopped-speaking`]; PocketSphinx →
 *   `metrics`(STT) · `user-transcription` (final) · `user-stopped-speaking`
 *   (the turn ends once transcribed, as with Pipecat's default turn strategy)
 *   · `user-llm-text` · reply. An empty transcription ends the turn with
 *   `user-stopped-speaking` and no reply. The raw `vad-*` messages only after
 *   eval-configure `vad_user_speaking: true`.
 * - interruption (only of a reply in flight; Pipecat sends `bot-interrupted`
 *   on every user turn, here it means something was cut): `bot-interrupted` ·
 *   [protobuf: an InterruptionFrame] · `bot-llm-stopped` if the text stream
 *   was running · `llm-function-call-stopped` (cancelled) for calls in
 *   progress · `bot-stopped-speaking` if it was speaking. Audio stops after
 *   the frame already sent.
 * - `eval-context` seeds the brain's memory (no reply); `eval-image` is
 *   accepted and ignored; `eval-cancel` closes and stops the bot — on the
 *   eval wire only: on protobuf every eval-* message is ignored, as Pipecat's
 *   production transport drops them (`reportLevel` / `vadEvents` / `llmMarkers` are the
 *   bot's own settings there, as in a bot's RTVIObserverParams); an unknown
 *   type gets `error-response`, an unparsable message `error`.
 * - `trigger_disconnect=true`: when that client leaves, the bot's disconnect
 *   handler runs (logged, and a truth line); on protobuf it runs whenever a
 *   client leaves, as Pipecat's WebSocket transport fires
 *   on_client_disconnected on every disconnect. With `exitOnDisconnect` the
 *   bot then stops, as a bot that cancels its pipeline there.
 * - `disconnect-bot` ends the bot (Pipecat: EndWorkerFrame); `append-to-context`
 *   (RTVI before 1.0) gets `error-response`, as Pipecat 1.x answers it.
 * - `sentenceGapMs`: that much silence, as audio frames, between the sentences
 *   of a spoken reply; the speaking window stays open over it.
 * - `bot-output` (before each sentence's `bot-tts-text`) and
 *   `bot-transcription` (after the LLM chunk that ends each sentence), as
 *   Pipecat's RTVIObserver sends them by default.
 * - `noRtvi` (protobuf only): no RTVI at all, no client-ready awaited: it
 *   greets on connect and talks in bare audio frames.
 * - documents (GAIA's `setup.index_documents`, protocol/documents.ts): the
 *   `earshot-index-documents` client-message, on both codecs, is indexed and
 *   answered `server-response` `{t, d: {indexed: n}}` with the request's id (a
 *   bad payload: `error-response`); a `documentsContext` system message of an
 *   `eval-context` and `documents` (`--documents`) are indexed too. What no
 *   brain rule answers is answered from them (brain/document-answers.ts), with
 *   a `query_documents` call, or "I don't know. The documents I have don't
 *   say."; with `library` (`--library`) it first searches that folder and
 *   indexes the file that answers (`search_files`, `index_document`).
 * - NeMo's control plane (state/, docs/guide/nemo-bot-contract.md): the
 *   `client-message`s `update_system_prompt`, `apply_initialization`,
 *   `get_scenario_summary` and `reset`, on both codecs, each answered
 *   `server-response` `{t, d}` with the request's id; a connection keeps its
 *   own scenario state (`db_path` resolved under `evalDataRoot`), brain calls
 *   naming a tool of the active domain run against it, and the socket stays
 *   open after an exit tool. `scenarioState: false`: each gets `error-response`.
 *   Any other non-eval client-message type gets `error-response` too.
 */
export {
  startRefbot,
  type RefbotExit,
  type RefbotExitReason,
  type RefbotHandle,
  type RefbotOptions,
} from './server.js';
export {
  AUDIO_BURST_MS,
  CRASH_EXIT_CODE,
  describeFaults,
  FAULT_NAMES,
  FaultSpecError,
  parseFaults,
  type FaultName,
  type Faults,
} from './faults/switches.js';
export type { TruthBase, TruthEvent } from './truth.js';
export { DEFAULT_REPLY_TIMING, type ReplyTiming } from './reply/types.js';
export type { VadSettings } from './input/utterance-detector.js';
export { RefbotError, RefbotOptionError } from './errors.js';
export {
  Brain,
  BrainError,
  BrainMemory,
  defaultBrainPath,
  loadBrain,
  normalizeText,
  parseBrain,
  type BrainInput,
  type BrainMessage,
  type ContextMessage,
  type JsonValue,
  type PlannedCall,
  type Reply,
} from './brain/brain.js';
export {
  DEFAULT_DTMF_IDLE_TIMEOUT_MS,
  DtmfAggregator,
  DtmfKeyError,
  type DtmfAggregatorOptions,
  type DtmfEntry,
} from './input/dtmf-aggregator.js';
export { ScenarioState, type ScenarioStateOptions } from './state/shared-state.js';
export { REFBOT_DOMAINS } from './state/tools.js';
export { resolveEvalDataRoot } from './state/hooks.js';
