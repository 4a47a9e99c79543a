/**
 * Untrusted input → typed RTVI messages. These functions never throw: they
 * return the typed message, an `unknown` variant for a well-formed RTVI
 * message of a type earshot does not model, or a `ProtocolViolation`.
 */
import {
  type ClientMessage,
  type EvalClientMessageType,
  EVAL_CLIENT_MESSAGE_TYPES,
  RTVI_LABEL,
  type ServerMessage,
  type UnknownRtviMessage,
} from './rtvi.js';
import { CLIENT_DATA, type DataSchema, EVAL_DATA, SERVER_DATA } from './schemas.js';
import { checkNemoResponse } from './nemo-responses.js';
import { describe, isRecord } from './validate.js';
import { type ParseResult, type ProtocolViolation, sizeOf, violation } from './violation.js';

export type ServerInbound = ServerMessage | UnknownRtviMessage;
export type ClientInbound = ClientMessage | UnknownRtviMessage;

const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * `raw` is JSON text (a string, or UTF-8 bytes) or an already-parsed value.
 * Bot → client direction: `id` is optional.
 */
export function parseServerMessage(raw: unknown): ParseResult<ServerInbound> {
  return parseWith(raw, SERVER_DATA, 'server') as ParseResult<ServerInbound>;
}

/** Client → bot direction: `id` is required, and eval `client-message` payloads are checked. */
export function parseClientMessage(raw: unknown): ParseResult<ClientInbound> {
  return parseWith(raw, CLIENT_DATA, 'client') as ParseResult<ClientInbound>;
}

/** `from`: who sent it. Client requests must carry an id; eval payloads only travel client → bot. */
function parseWith(raw: unknown, table: Record<string, DataSchema>, from: 'server' | 'client'): ParseResult<unknown> {
  const bytes = sizeOf(raw);
  const decoded = toValue(raw);
  if ('violation' in decoded) return { ok: false, violation: decoded.violation };
  const value = decoded.value;
  const bad = (code: ProtocolViolation['code'], reason: string): ParseResult<unknown> => ({
    ok: false,
    violation: violation(code, reason, raw, bytes),
  });

  if (!isRecord(value)) return bad('not_object', `expected an RTVI message object, got ${describe(value)}`);
  if (value.label !== RTVI_LABEL) {
    const got = typeof value.label === 'string' ? JSON.stringify(value.label.slice(0, 40)) : describe(value.label);
    return bad('wrong_label', `label: expected "${RTVI_LABEL}", got ${got}`);
  }
  const type = value.type;
  if (typeof type !== 'string' || type.length === 0)
    return bad('bad_envelope', `type: expected non-empty string, got ${describe(type)}`);
  const id = value.id;
  if (id !== undefined && id !== null && typeof id !== 'string')
    return bad('bad_envelope', `id: expected string, got ${describe(id)}`);
  const hasId = typeof id === 'string';
  if (from === 'client' && !hasId) {
    const shown = type.length > 60 ? `${type.slice(0, 60)}…` : type;
    return bad('bad_envelope', `${shown}: id: missing`);
  }

  if (!Object.hasOwn(table, type)) {
    const unknown: UnknownRtviMessage = { type: 'unknown', rtviType: type };
    if (hasId) unknown.id = id;
    if (value.data !== undefined && value.data !== null) unknown.data = value.data;
    return { ok: true, message: unknown };
  }

  const message: Record<string, unknown> = { type };
  if (hasId) message.id = id;
  const schema = table[type];
  if (schema === 'any') {
    if (value.data !== undefined && value.data !== null) message.data = value.data;
  } else if (schema !== null) {
    const checked = schema(value.data, 'data');
    if (checked.error !== undefined) return bad('bad_data', `${type}: ${checked.error}`);
    let data = checked.value;
    if (type === 'client-message' && from === 'client') {
      const evalChecked = checkEvalPayload(data as { t: string; d?: unknown });
      if (evalChecked.error !== undefined) return bad('bad_data', `${type}: ${evalChecked.error}`);
      data = evalChecked.value;
    }
    if (type === 'server-response' && from === 'server') {
      const answer = data as { t: string; d?: unknown };
      const nemoChecked = checkNemoResponse(answer.t, answer.d);
      if ('error' in nemoChecked) {
        const broken = bad('bad_data', `${type}: ${nemoChecked.error}`);
        // The request it answers is known: whoever waits on it hears why rather than waiting out its deadline.
        if (!broken.ok && hasId) broken.violation.id = id as string;
        return broken;
      }
      if (answer.d !== undefined) data = { ...answer, d: nemoChecked.value };
    }
    message.data = data;
  }
  return { ok: true, message };
}

function checkEvalPayload(data: { t: string; d?: unknown }): { value: unknown; error?: undefined } | { error: string } {
  if (!(EVAL_CLIENT_MESSAGE_TYPES as readonly string[]).includes(data.t)) return { value: data };
  const spec = EVAL_DATA[data.t as EvalClientMessageType];
  if (data.d === undefined) {
    return spec.required ? { error: `data.d: missing (required by ${data.t})` } : { value: data };
  }
  const checked = spec.check(data.d, 'data.d');
  if (checked.error !== undefined) return { error: `${data.t}: ${checked.error}` };
  return { value: { ...data, d: checked.value } };
}

function toValue(raw: unknown): { value: unknown } | { violation: ProtocolViolation } {
  let text: string;
  if (typeof raw === 'string') text = raw;
  else if (raw instanceof Uint8Array) {
    try {
      text = utf8.decode(raw);
    } catch {
      return { violation: violation('not_json', 'bytes are not valid UTF-8 text', raw) };
    }
  } else return { value: raw };
  try {
    return { value: JSON.parse(text) as unknown };
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { violation: violation('not_json', `not JSON: ${why}`, raw) };
  }
}
