/**
 * The documents the reference bot starts with: `--documents <file.json>` (a `DocumentsFile`, what a suite's
 * `{documents}` spawn placeholder names) and `--library <dir>` (the folder it may search on its own). Each
 * connection gets its own index of them, so what one call indexes does not leak into the next.
 */
import { readFileSync, statSync } from 'node:fs';
import { errorMessage } from '../core/errors.js';
import type { DocumentsFile } from '../protocol/index.js';
import { BrainMemory } from './brain/brain.js';
import { DocumentIndex, type DocumentInput } from './brain/documents.js';
import { DocumentLibrary } from './brain/library.js';
import { DocumentsPayloadError, readDocumentsPayload } from './documents-message.js';
import { RefbotOptionError } from './errors.js';

export interface RefbotDocuments {
  preload: DocumentInput[];
  library: DocumentLibrary | null;
}

/** Reads `documents` (a path or the file's object) and checks `library` is a folder; option errors name the option. */
export function loadRefbotDocuments(options: {
  documents?: string | DocumentsFile;
  library?: string;
}): RefbotDocuments {
  let preload: DocumentInput[] = [];
  if (options.documents !== undefined) {
    let data: unknown = options.documents;
    if (typeof options.documents === 'string') {
      try {
        data = JSON.parse(readFileSync(options.documents, 'utf8'));
      } catch (err) {
        throw new RefbotOptionError('documents', `cannot read ${options.documents}: ${errorMessage(err)}`);
      }
    }
    try {
      preload = readDocumentsPayload(data, '(file)');
    } catch (err) {
      if (err instanceof DocumentsPayloadError) throw new RefbotOptionError('documents', err.message);
      throw err;
    }
  }
  let library: DocumentLibrary | null = null;
  if (options.library !== undefined) {
    let isDir = false;
    try {
      isDir = statSync(options.library).isDirectory();
    } catch {
      // Reported below.
    }
    if (!isDir) throw new RefbotOptionError('library', `not a folder: ${options.library}`);
    library = new DocumentLibrary(options.library);
  }
  return { preload, library };
}

/** A connection's memory, its index holding the preloaded documents. */
export function newBrainMemory(setup: RefbotDocuments | undefined): BrainMemory {
  const index = new DocumentIndex();
  for (const doc of setup?.preload ?? []) index.add(doc, 'file');
  return new BrainMemory({ index, library: setup?.library ?? null });
}
