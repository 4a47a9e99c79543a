/**
 * What the bot sent that breaks the protocol. A value, not an exception: a
 * misbehaving bot is what earshot exists to catch, so its garbage becomes data
 * the session reports (`protocol_error`), never a crash.
 */
export type ViolationCode =
  /** Text that is not JSON. */
  | 'not_json'
  /** JSON, but not an object. */
  | 'not_object'
  /** `label` missing or not "rtvi-ai". */
  | 'wrong_label'
  /** `type` missing or not a string, or `id` not a string. */
  | 'bad_envelope'
  /** A modeled message whose `data` has the wrong shape or types. */
  | 'bad_data'
  /** Audio that cannot be 16-bit PCM (odd byte count, bad base64, no sample rate). */
  | 'bad_audio'
  /** A binary frame on a text codec, or a text frame on a binary one. */
  | 'wrong_frame_type'
  /** Bytes that are not a `pipecat.Frame`, or one with nothing set. */
  | 'bad_protobuf'
  /** A frame larger than the connection's `maxPayloadBytes` (the connection is closed with 1009). */
  | 'oversized'
  /** The WebSocket layer itself was violated (bad UTF-8, bad opcode, ...); the connection closes. */
  | 'bad_frame';

export interface ProtocolViolation {
  code: ViolationCode;
  /** One sentence for a person: what was wrong and where (`data.text: expected string, got number`). */
  reason: string;
  /** The offending input, truncated to `EXCERPT_CHARS` (binary shown as hex). */
  excerpt: string;
  /**
   * Size of the whole offending input in bytes (UTF-8 for text); 0 when unknown (an oversized frame is refused unread).
   */
  bytes: number;
  /** The message's request id, when it had one (a malformed answer to a request names the request it answers). */
  id?: string;
}

export const EXCERPT_CHARS = 200;

export type ParseResult<M> = { ok: true; message: M } | { ok: false; violation: ProtocolViolation };

/** At most `EXCERPT_CHARS` characters of `raw`, marked when cut. Never throws. */
export function excerptOf(raw: unknown): string {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (raw instanceof Uint8Array) {
    const head = Buffer.from(raw.buffer, raw.byteOffset, Math.min(raw.byteLength, EXCERPT_CHARS / 2)).toString('hex');
    return raw.byteLength > EXCERPT_CHARS / 2 ? `0x${head}…` : `0x${head}`;
  } else {
    try {
      text = JSON.stringify(raw) ?? String(raw);
    } catch {
      text = Object.prototype.toString.call(raw);
    }
  }
  return text.length > EXCERPT_CHARS ? `${text.slice(0, EXCERPT_CHARS)}…` : text;
}

export function sizeOf(raw: unknown): number {
  if (typeof raw === 'string') return Buffer.byteLength(raw, 'utf8');
  if (raw instanceof Uint8Array) return raw.byteLength;
  return 0;
}

export function violation(code: ViolationCode, reason: string, raw: unknown, bytes = sizeOf(raw)): ProtocolViolation {
  return { code, reason, excerpt: excerptOf(raw), bytes };
}
