/**
 * Wire codecs: how RTVI messages and audio travel in WebSocket frames. One
 * interface, two implementations (`pipecat-eval` JSON text frames, `protobuf`
 * `pipecat.Frame` binary frames), each usable in both roles:
 *
 * - `client` (the harness): encodes `ClientMessage`s and microphone audio,
 *   decodes the bot's messages and audio;
 * - `server` (the reference bot): encodes `ServerMessage`s and bot audio,
 *   decodes the client's messages and microphone audio.
 *
 * Decoding never throws; whatever cannot be decoded is an `invalid` item.
 */
import type { ClientInbound, ServerInbound } from './parse.js';
import type { ClientMessage, ServerMessage } from './rtvi.js';
import type { ProtocolViolation } from './violation.js';

export type Role = 'client' | 'server';

/** A string travels as a text frame, bytes as a binary frame. */
export type WirePayload = string | Uint8Array;

export interface AudioItem {
  kind: 'audio';
  /** Interleaved 16-bit samples (mono unless `numChannels` says otherwise). */
  pcm: Int16Array;
  sampleRate: number;
  numChannels: number;
  /** Presentation timestamp from a protobuf AudioRawFrame (Pipecat: nanoseconds), when the sender set one. */
  pts?: number;
}
/** Protobuf `TextFrame`. */
export interface TextItem {
  kind: 'text';
  text: string;
}
/** Protobuf `TranscriptionFrame`. */
export interface TranscriptionItem {
  kind: 'transcription';
  text: string;
  userId: string;
  timestamp: string;
}
/** Protobuf `InterruptionFrame`: the bot tells its client to drop audio it has queued. */
export interface InterruptionItem {
  kind: 'interruption';
}

/** What one frame decodes to. `M` is the peer's message union (plus `unknown` for types not modeled). */
export type InboundItem<M> =
  | { kind: 'rtvi'; message: M }
  | AudioItem
  | TextItem
  | TranscriptionItem
  | InterruptionItem
  | { kind: 'invalid'; violation: ProtocolViolation };

export type OutboundAudio = Omit<AudioItem, 'numChannels'> & { numChannels?: number };
export type OutboundItem<M> =
  | { kind: 'rtvi'; message: M }
  | OutboundAudio
  | TextItem
  | TranscriptionItem
  | InterruptionItem;

export interface WireCodec<Out, In> {
  readonly name: CodecName;
  readonly role: Role;
  /**
   * The frame for `item`, or null when this codec cannot carry that kind
   * (e.g. an interruption frame on `pipecat-eval`, which has no such frame).
   */
  encode(item: OutboundItem<Out>): WirePayload | null;
  decode(frame: WirePayload): InboundItem<In>;
}

export type ClientCodec = WireCodec<ClientMessage, ServerInbound>;
export type ServerCodec = WireCodec<ServerMessage, ClientInbound>;

export interface CodecFactory {
  readonly description: string;
  /**
   * What the wire carries beyond standard RTVI; a scenario that needs more is refused up front (session/wire-check.ts).
   */
  readonly capabilities: ReadonlySet<WireCapability>;
  client(): ClientCodec;
  server(): ServerCodec;
}

/**
 * What a wire can carry beyond the standard RTVI messages every RTVI bot
 * reads. The eval-* control messages travel as ordinary `client-message`s;
 * only Pipecat's eval serializer (`RTVIEvalSerializer`) intercepts them, so a
 * production transport drops them without an error, and earshot must know
 * before it relies on one.
 */
export const WIRE_CAPABILITIES = {
  context: "replace the bot's LLM context (eval-context)",
  report_level: "raise the bot's function-call report level (eval-configure function_call_report_level)",
  vad_events: 'turn on raw VAD events (eval-configure vad_user_speaking)',
  markers: "turn on the LLM's turn-completion markers (eval-configure bot_llm_marker)",
  images: 'register the image a vision bot asks for (eval-image)',
  cancel: 'end the bot (eval-cancel)',
  url_flags: 'per-connection flags on the connect URL (skip_tts, user_audio, capture_bot_audio, trigger_disconnect)',
  bot_audio: "the bot's audio reaches the client",
  bare_audio: 'audio frames that stand without RTVI, so a bot with no RTVI processor can be reached',
} as const;
export type WireCapability = keyof typeof WIRE_CAPABILITIES;

export const CODEC_NAMES = ['pipecat-eval', 'protobuf'] as const;
export type CodecName = (typeof CODEC_NAMES)[number];

export function isCodecName(name: string): name is CodecName {
  return (CODEC_NAMES as readonly string[]).includes(name);
}
