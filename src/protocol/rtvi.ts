/**
 * RTVI protocol messages (Pipecat's `rtvi/models.py`, protocol 2.1.0), as
 * discriminated unions on `type`.
 *
 * The `label` ("rtvi-ai") is the same on every message, so the types leave it
 * out: codecs add it on the way out and check it (then drop it) on the way in.
 * Field names inside `data` are exactly the wire's (snake_case or camelCase as
 * Pipecat spells them), so a message round-trips unchanged.
 */

export const RTVI_LABEL = 'rtvi-ai';
export const RTVI_PROTOCOL_VERSION = '2.1.0';

// ---------------------------------------------------------------- shared shapes

export interface TextData {
  text: string;
}

/** Who is at the other end; `client-ready` carries it as `about`. */
export interface AboutClient {
  library: string;
  library_version?: string;
  platform?: string;
  platform_version?: string;
  platform_details?: unknown;
}

/** How much a bot reveals about function calls (Pipecat's `RTVIFunctionCallReportLevel`). */
export type FunctionCallReportLevel = 'disabled' | 'none' | 'name' | 'full';
export const FUNCTION_CALL_REPORT_LEVELS: readonly FunctionCallReportLevel[] = ['disabled', 'none', 'name', 'full'];

export type KeypadEntry = '0' | '1' | '2' | '3' | '4' | '5' | '6' | '7' | '8' | '9' | '*' | '#';
export const KEYPAD_ENTRIES: readonly KeypadEntry[] = ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '*', '#'];

/** One entry of a `metrics` list keyed by service (`processor`), values in seconds. */
export interface MetricValue {
  processor: string;
  model?: string;
  value: number;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  cache_read_input_tokens?: number;
  cache_creation_input_tokens?: number;
  reasoning_tokens?: number;
  [key: string]: unknown;
}

/** `metrics` data: lists per kind; kinds earshot does not interpret pass through as `unknown`. */
export interface MetricsData {
  ttfb?: MetricValue[];
  processing?: MetricValue[];
  /** Time to first audible audio: `ttfb` plus the service's leading silence. */
  ttfa?: Array<{ processor: string; model?: string; ttfa: number; ttfb: number; leading_silence: number }>;
  /** Time to first answer token: `ttfb` plus the model's thinking time. */
  ttfat?: Array<{ processor: string; model?: string; ttfat: number; ttfb: number; thinking_time: number }>;
  tokens?: TokenUsage[];
  /** TTS characters per request (`value` is a count, not seconds). */
  characters?: MetricValue[];
  [kind: string]: unknown;
}

// ---------------------------------------------------------------- bot → client

interface Bare<T extends string> {
  type: T;
  id?: string;
}
interface WithData<T extends string, D> {
  type: T;
  id?: string;
  data: D;
}

export type BotReadyMessage = WithData<'bot-ready', { version: string; about?: Record<string, unknown> }>;
/** A pipeline error; `fatal` means the bot's pipeline has stopped. */
export type ErrorMessage = WithData<'error', { error: string; fatal: boolean }>;
/** The bot rejected one client request (`id` is the request's). */
export type ErrorResponseMessage = WithData<'error-response', { error: string }>;
export type ServerResponseMessage = WithData<'server-response', { t: string; d?: unknown }>;

export type UserStartedSpeakingMessage = Bare<'user-started-speaking'>;
export type UserStoppedSpeakingMessage = Bare<'user-stopped-speaking'>;
/** Raw VAD, not gated by turn detection; sent only when enabled (eval-configure `vad_user_speaking`). */
export type VadUserStartedSpeakingMessage = Bare<'vad-user-started-speaking'>;
export type VadUserStoppedSpeakingMessage = Bare<'vad-user-stopped-speaking'>;
export type UserMuteStartedMessage = Bare<'user-mute-started'>;
export type UserMuteStoppedMessage = Bare<'user-mute-stopped'>;
/** `final: false` is an interim transcript. `user_id`/`timestamp` are always sent by Pipecat, optional here. */
export type UserTranscriptionMessage = WithData<
  'user-transcription',
  { text: string; final: boolean; user_id?: string; timestamp?: string }
>;
export type UserLlmTextMessage = WithData<'user-llm-text', TextData>;

export type BotStartedSpeakingMessage = Bare<'bot-started-speaking'>;
export type BotStoppedSpeakingMessage = Bare<'bot-stopped-speaking'>;
/** Any pipeline interruption: VAD barge-in or `send-text` with `run_immediately`. */
export type BotInterruptedMessage = Bare<'bot-interrupted'>;

export type BotLlmStartedMessage = Bare<'bot-llm-started'>;
export type BotLlmTextMessage = WithData<'bot-llm-text', TextData>;
export type BotLlmStoppedMessage = Bare<'bot-llm-stopped'>;
/**
 * What the bot's LLM made of a response's sideband markers (the
 * turn-completion markers of `filter_incomplete_user_turns`), once per
 * response as it ends: `text` is the marker found ('' for none), `kind` its
 * meaning (`complete`, `short`, `long`; absent for none), `raw` the response's
 * text before the bot held anything back, `markers` every marker the protocol
 * recognizes. Sent only when enabled (eval-configure `bot_llm_marker`).
 */
export type BotLlmMarkerMessage = WithData<
  'bot-llm-marker',
  { text: string; kind?: string; raw?: string; markers?: string[] }
>;
export type BotTtsStartedMessage = Bare<'bot-tts-started'>;
export type BotTtsTextMessage = WithData<'bot-tts-text', TextData>;
export type BotTtsStoppedMessage = Bare<'bot-tts-stopped'>;
export type BotTtsAudioMessage = WithData<
  'bot-tts-audio',
  { audio: string; sample_rate: number; num_channels: number }
>;
export type BotTranscriptionMessage = WithData<'bot-transcription', TextData>;

export type SpokenStatus = 'new' | 'in-progress' | 'completed';
/** What the bot outputs, with v1 (`spoken`) or v2 (`will_be_spoken`, `spoken_*`) metadata. */
export type BotOutputMessage = WithData<
  'bot-output',
  {
    text: string;
    aggregated_by: string;
    segment_id?: number;
    spoken?: boolean;
    will_be_spoken?: boolean;
    spoken_status?: SpokenStatus;
    spoken_progress?: { accumulated_text: string; remaining_text: string };
  }
>;

/** Deprecated since Pipecat 0.0.102 (replaced by `llm-function-call-in-progress`); still emitted by old bots. */
export type LlmFunctionCallMessage = WithData<
  'llm-function-call',
  { function_name: string; tool_call_id: string; args: Record<string, unknown> }
>;
export type LlmFunctionCallStartedMessage = WithData<'llm-function-call-started', { function_name?: string }>;
/** `function_name` needs report level `name`, `arguments` needs `full`. */
export type LlmFunctionCallInProgressMessage = WithData<
  'llm-function-call-in-progress',
  { tool_call_id: string; function_name?: string; arguments?: Record<string, unknown> }
>;
export type LlmFunctionCallStoppedMessage = WithData<
  'llm-function-call-stopped',
  { tool_call_id: string; cancelled: boolean; function_name?: string; result?: unknown }
>;

export type MetricsMessage = WithData<'metrics', MetricsData>;
/** A bot's own custom message; `data` is whatever it chose. */
export interface ServerMessageMessage {
  type: 'server-message';
  id?: string;
  data?: unknown;
}
export type UserAudioLevelMessage = WithData<'user-audio-level', { value: number }>;
export type BotAudioLevelMessage = WithData<'bot-audio-level', { value: number }>;
export type SystemLogMessage = WithData<'system-log', TextData>;
export type UiCommandMessage = WithData<'ui-command', { command: string; payload?: unknown }>;
export type UiJobGroupMessage = WithData<'ui-job-group', { kind: string; job_id: string; [key: string]: unknown }>;

/** Pipecat's eval transport: a chunk of the bot's synthesized audio (16-bit LE mono PCM, base64). */
export type EvalBotAudioMessage = WithData<'eval-bot-audio', { audio: string; sampleRate: number }>;

export type ServerMessage =
  | BotReadyMessage
  | ErrorMessage
  | ErrorResponseMessage
  | ServerResponseMessage
  | UserStartedSpeakingMessage
  | UserStoppedSpeakingMessage
  | VadUserStartedSpeakingMessage
  | VadUserStoppedSpeakingMessage
  | UserMuteStartedMessage
  | UserMuteStoppedMessage
  | UserTranscriptionMessage
  | UserLlmTextMessage
  | BotStartedSpeakingMessage
  | BotStoppedSpeakingMessage
  | BotInterruptedMessage
  | BotLlmStartedMessage
  | BotLlmTextMessage
  | BotLlmStoppedMessage
  | BotLlmMarkerMessage
  | BotTtsStartedMessage
  | BotTtsTextMessage
  | BotTtsStoppedMessage
  | BotTtsAudioMessage
  | BotTranscriptionMessage
  | BotOutputMessage
  | LlmFunctionCallMessage
  | LlmFunctionCallStartedMessage
  | LlmFunctionCallInProgressMessage
  | LlmFunctionCallStoppedMessage
  | MetricsMessage
  | ServerMessageMessage
  | UserAudioLevelMessage
  | BotAudioLevelMessage
  | SystemLogMessage
  | UiCommandMessage
  | UiJobGroupMessage
  | EvalBotAudioMessage;

export type ServerMessageType = ServerMessage['type'];

// ---------------------------------------------------------------- client → bot

/** Client messages carry a request id (Pipecat rejects them without one). */
interface Request<T extends string, D> {
  type: T;
  id: string;
  data: D;
}

export type ClientReadyMessage = Request<'client-ready', { version: string; about: AboutClient }>;
/**
 * Text input. `run_immediately` (default true) interrupts the bot and runs the LLM
 * now; `audio_response: false` answers this turn without TTS.
 */
export type SendTextMessage = Request<
  'send-text',
  { content: string; options?: { run_immediately?: boolean; audio_response?: boolean } }
>;
/** Microphone audio: 16-bit LE PCM, base64. */
export type RawAudioMessage = Request<'raw-audio', { base64Audio: string; sampleRate: number; numChannels: number }>;
export type RawAudioBatchMessage = Request<
  'raw-audio-batch',
  { base64AudioBatch: string[]; sampleRate: number; numChannels: number }
>;
/** Keypad presses in order (protocol 2.1.0; older bots read a single `button`). */
export type DtmfMessage = Request<'dtmf', { buttons: KeypadEntry[] }>;
export type ClientMessageMessage = Request<'client-message', ClientMessageData>;
/** Asks the bot to end its pipeline gracefully. */
export interface DisconnectBotMessage {
  type: 'disconnect-bot';
  id: string;
}
/**
 * Appends one message to the bot's LLM context (RTVI before 1.0: Pipecat
 * deprecated it in 0.0.85 and removed it in 1.0.0, which answer
 * `error-response` "Unsupported type"). The only standard way to seed a
 * context over a production transport, for the bots that still read it.
 */
export type AppendToContextMessage = Request<
  'append-to-context',
  { role: string; content: unknown; run_immediately?: boolean }
>;
/** The result of a function the client ran on the bot's behalf. */
export type LlmFunctionCallResultMessage = Request<
  'llm-function-call-result',
  {
    function_name: string;
    tool_call_id: string;
    arguments: Record<string, unknown>;
    result: Record<string, unknown> | string;
  }
>;

export type ClientMessage =
  | ClientReadyMessage
  | SendTextMessage
  | RawAudioMessage
  | RawAudioBatchMessage
  | DtmfMessage
  | ClientMessageMessage
  | DisconnectBotMessage
  | AppendToContextMessage
  | LlmFunctionCallResultMessage;

export type ClientMessageType = ClientMessage['type'];

// ------------------------------------------------ client-message: eval control

/**
 * Raises what the bot's RTVI observer reports for this eval only. Keys of
 * `function_call_report_level` are function names or `"*"` for all.
 */
export interface EvalConfigure {
  function_call_report_level?: Record<string, FunctionCallReportLevel>;
  vad_user_speaking?: boolean;
  /** Report the LLM's markers (`bot-llm-marker`); Pipecat's observer field is `bot_llm_marker_enabled`. */
  bot_llm_marker?: boolean;
}

/** One LLM context message (OpenAI-style); passed through to the bot unchanged. */
export interface LlmContextMessage {
  role: string;
  content?: unknown;
  [key: string]: unknown;
}

export type EvalClientData =
  | { t: 'eval-configure'; d: EvalConfigure }
  /** Replaces the bot's LLM context without running the LLM. */
  | { t: 'eval-context'; d: { messages: LlmContextMessage[] } }
  /**
   * Registers the image a vision bot gets when it asks for the user's camera. `format` is a MIME type (Pipecat assumes
   * image/jpeg).
   */
  | { t: 'eval-image'; d: { image: string; format?: string } }
  /** Asks the bot to cancel its pipeline and exit. */
  | { t: 'eval-cancel'; d?: Record<string, unknown> };

export type EvalClientMessageType = EvalClientData['t'];
export const EVAL_CLIENT_MESSAGE_TYPES: readonly EvalClientMessageType[] = [
  'eval-configure',
  'eval-context',
  'eval-image',
  'eval-cancel',
];

/** Any application-defined client message; eval ones are `EvalClientData` (see `asEvalData`). */
export interface CustomClientData {
  t: string;
  d?: unknown;
}
export type ClientMessageData = EvalClientData | CustomClientData;

/**
 * The typed eval control payload of a `client-message`, or undefined for an
 * application message. TypeScript cannot narrow `t: string` against literals,
 * hence a function rather than a switch on `data.t`. Payloads that came through
 * `parseClientMessage` have been validated.
 */
export function asEvalData(data: ClientMessageData): EvalClientData | undefined {
  return (EVAL_CLIENT_MESSAGE_TYPES as readonly string[]).includes(data.t) ? (data as EvalClientData) : undefined;
}

// ---------------------------------------------------------------- unknown + helpers

/** A well-formed RTVI message whose `type` earshot does not model; kept, not rejected. */
export interface UnknownRtviMessage {
  type: 'unknown';
  /** The `type` the peer sent. */
  rtviType: string;
  id?: string;
  data?: unknown;
}

/** For `switch` statements over message unions: a missing case is a compile error here. */
export { assertNever } from '../core/never.js';
