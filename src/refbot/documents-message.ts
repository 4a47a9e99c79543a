/**
 * The documents a harness sends the reference bot before a GAIA scenario's first turn: the RTVI `client-message`
 * `{t: DOCUMENTS_MESSAGE, d: {documents}}` (protocol/documents.ts), read on both codecs (it is the application's
 * message, not the eval transport's). The bot indexes them and acknowledges with a `server-response` carrying the
 * request's id and how many it indexed; a payload it cannot read gets an `error-response` saying what is wrong.
 */
import { DOCUMENTS_MESSAGE, type DocumentsAckData, type ServerMessage } from '../protocol/index.js';
import type { DocumentInput } from './brain/documents.js';
import type { DocumentsState } from './brain/document-answers.js';

/** A documents payload that is not the shape protocol/documents.ts defines. */
export class DocumentsPayloadError extends Error {
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${DOCUMENTS_MESSAGE}: ${field}: ${detail}`);
    this.name = 'DocumentsPayloadError';
  }
}

/** The documents of a `client-message`'s `d` (or a `--documents` file's object), checked. */
export function readDocumentsPayload(d: unknown, where = 'd'): DocumentInput[] {
  const list = isRecord(d) ? d.documents : undefined;
  if (!Array.isArray(list)) throw new DocumentsPayloadError(`${where}.documents`, 'expected an array');
  return list.map((item: unknown, i) => {
    const at = `${where}.documents[${i}]`;
    if (!isRecord(item)) throw new DocumentsPayloadError(at, 'expected an object');
    for (const key of ['id', 'filename'] as const)
      if (typeof item[key] !== 'string' || item[key] === '')
        throw new DocumentsPayloadError(`${at}.${key}`, 'expected a non-empty string');
    if (item.content !== undefined && typeof item.content !== 'string')
      throw new DocumentsPayloadError(`${at}.content`, 'expected a string');
    if (item.content === undefined && typeof item.content_base64 !== 'string')
      throw new DocumentsPayloadError(at, 'expected content or content_base64');
    return {
      id: item.id as string,
      filename: item.filename as string,
      // A binary document (an image) is registered with no sentences: this bot reads text only.
      content: typeof item.content === 'string' ? item.content : '',
      ...(typeof item.format === 'string' ? { format: item.format } : {}),
      ...(typeof item.path === 'string' ? { path: item.path } : {}),
    };
  });
}

/** Indexes a documents message and answers it; returns how many documents were indexed (null: refused). */
export function onDocumentsMessage(
  id: string,
  d: unknown,
  documents: DocumentsState,
  send: (message: ServerMessage) => void,
): number | null {
  let inputs: DocumentInput[];
  try {
    inputs = readDocumentsPayload(d);
  } catch (err) {
    if (!(err instanceof DocumentsPayloadError)) throw err;
    send({ type: 'error-response', id, data: { error: err.message } });
    return null;
  }
  for (const input of inputs) documents.index.add(input, 'message');
  const ack: DocumentsAckData = { t: DOCUMENTS_MESSAGE, d: { indexed: inputs.length } };
  send({ type: 'server-response', id, data: ack });
  return inputs.length;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
