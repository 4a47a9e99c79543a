/**
 * The documents a GAIA scenario's `setup.index_documents` lists, as they travel to a bot. earshot defines this shape
 * (GAIA indexes in-process; a voice bot is a separate program), three ways, chosen with `--documents-via`:
 * - `message`: an RTVI `client-message` `{t: DOCUMENTS_MESSAGE, d: {documents: DocumentPayload[]}}` after the
 *   handshake; the bot answers a `server-response` `{t: DOCUMENTS_MESSAGE, d: {indexed: n}}` once they are indexed,
 *   and the first turn waits for it.
 * - `context`: one system message seeding the bot's LLM context (`eval-context`, Pipecat's eval transport only),
 *   the documents' text in `documentsContext` blocks that `parseDocumentsContext` reads back.
 * - `spawn`: a JSON file of `DocumentsFile` the suite writes, named by the `{documents}` placeholder of `spawn:`.
 */

export const DOCUMENTS_MESSAGE = 'earshot-index-documents';

/** Largest document sent, and largest total, in bytes: a call's setup, not a bulk upload. */
export const MAX_DOCUMENT_BYTES = 1024 * 1024;
export const MAX_DOCUMENTS_BYTES = 4 * 1024 * 1024;

/** GAIA's manifest formats (its corpus `format`): what a document's text is, or that it is an image. */
export type DocumentFormat = 'markdown' | 'html' | 'csv' | 'text' | 'python' | 'image';

/**
 * The format each file extension (lower case, no dot) implies when the manifest names none: the one list the harness
 * (what it sends, and how) and the reference bot (what it reads, indexes and recognises by name) share. No JSON:
 * GAIA's manifest has no format for it, and the one JSON file of a corpus folder is the manifest, answers and all
 * (a `--library` reading it would answer from the answer key). An unlisted extension is still sent, as text.
 */
export const DOCUMENT_FORMATS: Readonly<Record<string, DocumentFormat>> = {
  md: 'markdown',
  markdown: 'markdown',
  html: 'html',
  htm: 'html',
  csv: 'csv',
  txt: 'text',
  py: 'python',
  png: 'image',
  jpg: 'image',
  jpeg: 'image',
  gif: 'image',
  webp: 'image',
};

/** A file name's (or path's) extension as DOCUMENT_FORMATS keys it: lower case, no dot; '' when it has none. */
export function documentExtension(name: string): string {
  return /\.([a-z0-9]+)$/i.exec(name)?.[1]?.toLowerCase() ?? '';
}

/** The format a file name (or path) implies by its extension; text for one the list does not know. */
export function formatOfFilename(name: string): DocumentFormat {
  const ext = documentExtension(name);
  // Own keys only: "x.constructor" is not a format.
  return Object.hasOwn(DOCUMENT_FORMATS, ext) ? DOCUMENT_FORMATS[ext] : 'text';
}

export interface DocumentPayload {
  /** The corpus id (`corpus_doc`). */
  id: string;
  /** The file's base name. */
  filename: string;
  /** The manifest's format (`markdown`, `html`, `csv`, `text`, `python`, `image`), else from the extension. */
  format: string;
  /** The path on the harness's machine (a bot on the same machine may read it itself). */
  path: string;
  /** UTF-8 text for text formats. */
  content?: string;
  /** Base64 for binary formats (`image`). */
  content_base64?: string;
  bytes: number;
}

/** The `client-message` data of the `message` way. */
export interface DocumentsMessageData {
  t: typeof DOCUMENTS_MESSAGE;
  d: { documents: DocumentPayload[] };
}

/** The bot's acknowledgement (`server-response` data). */
export interface DocumentsAckData {
  t: typeof DOCUMENTS_MESSAGE;
  d: { indexed: number };
}

/** The `spawn` way's file. */
export interface DocumentsFile {
  documents: DocumentPayload[];
}

const HEADER = /^=== Document (\S+) \(([^)]*)\) ===$/;

/** The documents as one system message's text: a header line per document, then its text. */
export function documentsContext(docs: readonly DocumentPayload[]): string {
  const blocks = docs.map(
    (d) =>
      `=== Document ${d.id} (${d.filename}) ===\n${d.content ?? `[binary ${d.format}, ${d.bytes} bytes: ${d.path}]`}`,
  );
  return ['The documents indexed for this conversation:', ...blocks].join('\n\n');
}

/** The documents a `documentsContext` text holds (none when it is not one). */
export function parseDocumentsContext(text: string): Array<{ id: string; filename: string; content: string }> {
  const out: Array<{ id: string; filename: string; content: string }> = [];
  let current: { id: string; filename: string; lines: string[] } | null = null;
  const close = (): void => {
    if (current) out.push({ id: current.id, filename: current.filename, content: current.lines.join('\n').trim() });
  };
  for (const line of text.split('\n')) {
    const header = HEADER.exec(line);
    if (header) {
      close();
      current = { id: header[1], filename: header[2], lines: [] };
    } else current?.lines.push(line);
  }
  close();
  return out;
}
