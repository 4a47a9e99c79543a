import { readFile, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import { errorMessage } from '../core/errors.js';
import {
  formatOfFilename,
  MAX_DOCUMENT_BYTES,
  MAX_DOCUMENTS_BYTES,
  type DocumentPayload,
  type DocumentsFile,
} from '../protocol/index.js';
import {
  formatDiagnostic,
  locationOf,
  type Diagnostic,
  type GaiaDocumentRef,
  type Runnable,
} from '../scenario/index.js';

/**
 * The documents a GAIA scenario's `setup.index_documents` lists, read for the bot (protocol/documents.ts says how
 * they travel). Read by the harness, not the bot, so a missing or oversized file is the scenario's located error
 * before any turn, not a bot that quietly knows nothing.
 */

/** How the documents reach the bot (`--documents-via`, `documents_via:`). */
export type DocumentsVia = 'message' | 'context' | 'spawn';
export const DOCUMENTS_VIA: readonly DocumentsVia[] = ['message', 'context', 'spawn'];

/** How long the first turn waits for the bot's acknowledgement of the `message` way. */
export const DOCUMENTS_ACK_TIMEOUT_MS = 30_000;

/** The documents a runnable lists (none for anything but a GAIA scenario). */
export function documentsOf(scenario: Runnable): readonly GaiaDocumentRef[] {
  return scenario.kind === 'script' && scenario.gaia ? scenario.gaia.documents : [];
}

export type { DocumentsFile };

export type ReadDocuments = { documents: DocumentPayload[] } | { problems: Diagnostic[] };

/** Reads every listed document (at most 1 MiB each, 4 MiB in all); the located errors when any cannot be sent. */
export async function readDocuments(scenario: Runnable): Promise<ReadDocuments> {
  const refs = documentsOf(scenario);
  const documents: DocumentPayload[] = [];
  const problems: Diagnostic[] = [];
  let total = 0;
  for (const [i, ref] of refs.entries()) {
    const at = `setup.index_documents[${i}].path`;
    const format = ref.format ?? formatOfFilename(ref.path);
    let bytes: Buffer;
    try {
      const info = await stat(ref.path);
      if (info.size > MAX_DOCUMENT_BYTES) {
        problems.push(
          located(
            scenario,
            at,
            `${ref.written_path} is ${info.size} bytes; a document sent to the ` +
              `bot may be at most ${MAX_DOCUMENT_BYTES} bytes`,
          ),
        );
        continue;
      }
      bytes = await readFile(ref.path);
    } catch (err) {
      problems.push(located(scenario, at, `cannot read ${ref.written_path}: ${errorMessage(err)}`));
      continue;
    }
    total += bytes.length;
    const payload: DocumentPayload = {
      id: ref.corpus_doc,
      filename: ref.filename ?? basename(ref.path),
      format,
      path: ref.path,
      bytes: bytes.length,
    };
    if (format === 'image') payload.content_base64 = bytes.toString('base64');
    else payload.content = bytes.toString('utf8');
    documents.push(payload);
  }
  if (total > MAX_DOCUMENTS_BYTES)
    problems.push(
      located(
        scenario,
        'setup.index_documents',
        `the documents come to ${total} bytes; at most ` + `${MAX_DOCUMENTS_BYTES} bytes go to the bot in one scenario`,
      ),
    );
  return problems.length ? { problems } : { documents };
}

/** The problems as one error text, a located line each. */
export function documentProblems(problems: readonly Diagnostic[]): string {
  return problems.map((d) => formatDiagnostic(d)).join('\n');
}

function located(scenario: Runnable, path: string, message: string): Diagnostic {
  const loc = locationOf(scenario, path);
  return { severity: 'error', file: loc.file, line: loc.line, col: loc.col, path, message };
}
