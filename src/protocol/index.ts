/**
 * The wire: RTVI messages, the two codecs that carry them (`pipecat-eval`,
 * `protobuf`), and WebSocket connections for both the harness and the
 * reference bot.
 */
export * from './rtvi.js';
export { parseClientMessage, parseServerMessage, type ClientInbound, type ServerInbound } from './parse.js';
export {
  EXCERPT_CHARS,
  type ParseResult,
  type ProtocolViolation,
  type ViolationCode,
} from './violation.js';
export {
  CODEC_NAMES,
  isCodecName,
  WIRE_CAPABILITIES,
  type WireCapability,
  type AudioItem,
  type ClientCodec,
  type CodecFactory,
  type CodecName,
  type InboundItem,
  type InterruptionItem,
  type OutboundAudio,
  type OutboundItem,
  type Role,
  type ServerCodec,
  type TextItem,
  type TranscriptionItem,
  type WireCodec,
  type WirePayload,
} from './codec.js';
export { CODECS, DEFAULT_CODEC, getCodec } from './codecs.js';
export { PIPECAT_FRAMES_SCHEMA } from './protobuf-codec.js';
export { buildEvalUrl, parseBotUrl, parseEvalFlags, type EvalConnectFlags } from './eval-url.js';
export { ClientMessages } from './builders.js';
export type { Overflow, QueueStats, Stamped } from './inbound-queue.js';
export {
  DEFAULT_MAX_PAYLOAD_BYTES,
  DEFAULT_MAX_QUEUED_BYTES,
  DEFAULT_MAX_QUEUED_ITEMS,
  WireConnection,
  type CloseInfo,
  type ConnectionOptions,
  type Received,
  type WireStats,
} from './connection.js';
export {
  connect,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_RETRY_INTERVAL_MS,
  type ClientConnection,
  type ConnectOptions,
} from './connect.js';
export { openWs } from './connect.js';
export type { SocketLike, SocketOpener, SocketOpenOptions } from './socket-like.js';
export { WireServer, type ServeOptions, type ServerConnection, type WirePeer } from './server.js';
export { ConnectError, InvalidUrlError, ListenError, UnknownCodecError, WireOptionError } from './errors.js';
export {
  DOCUMENT_FORMATS,
  DOCUMENTS_MESSAGE,
  documentExtension,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENTS_BYTES,
  documentsContext,
  formatOfFilename,
  parseDocumentsContext,
  type DocumentFormat,
  type DocumentPayload,
  type DocumentsAckData,
  type DocumentsFile,
  type DocumentsMessageData,
} from './documents.js';
export {
  NEMO_CONTROL_TYPES,
  isNemoControlType,
  type InitializationResult,
  type NemoControlData,
  type NemoControlType,
  type NemoInitAction,
  type ScenarioSummary,
} from './nemo-control.js';
