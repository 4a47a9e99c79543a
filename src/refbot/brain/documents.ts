/**
 * The reference bot's document index: a deterministic stand-in for a RAG pipeline. Each document is cut into
 * sentences (document-text.ts); a question is answered by the one sentence that covers most of its subject words,
 * weighted by how rare each word is among the indexed sentences. A question whose subject the documents do not
 * cover (a word no sentence has weighs the most) finds nothing, so the bot says it does not know instead of
 * answering with the nearest sentence about something else.
 */
import { formatOfFilename } from '../../protocol/documents.js';
import { documentSentences, queryTokens, sentenceTokens } from './document-text.js';

/** How a document reached the bot: the RTVI message, an eval-context, `--documents`, or the `--library` folder. */
export type DocumentSource = 'message' | 'context' | 'file' | 'library';

export interface DocumentInput {
  id: string;
  filename: string;
  /** GAIA's format name; default from the file name. */
  format?: string;
  /** Where it came from on disk, when known. */
  path?: string;
  content: string;
}

export interface IndexedDocument {
  id: string;
  filename: string;
  format: string;
  path?: string;
  source: DocumentSource;
  sentences: string[];
}

export interface DocumentMatch {
  document: IndexedDocument;
  sentence: string;
  /** The share (0..1) of the question's subject weight the sentence covers. */
  coverage: number;
}

/** Below this coverage the documents do not answer the question. */
export const DOCUMENT_MATCH_THRESHOLD = 0.6;

interface Entry {
  document: IndexedDocument;
  sentence: string;
  tokens: Set<string>;
}

export class DocumentIndex {
  private readonly docs = new Map<string, IndexedDocument>();
  private entries: Entry[] = [];

  /** Indexes a document (replacing one with the same id); returns it. */
  add(input: DocumentInput, source: DocumentSource): IndexedDocument {
    const format = input.format ?? formatOfFilename(input.filename);
    const document: IndexedDocument = {
      id: input.id,
      filename: input.filename,
      format,
      source,
      sentences: documentSentences(input.content, format),
      ...(input.path !== undefined ? { path: input.path } : {}),
    };
    // Only a replacement filters the entries: building an index of many documents stays linear.
    if (this.docs.has(input.id)) this.remove((d) => d.id === input.id);
    this.docs.set(document.id, document);
    this.entries.push(
      ...document.sentences.map((sentence) => ({ document, sentence, tokens: sentenceTokens(sentence) })),
    );
    return document;
  }

  /** Drops the documents one source gave (an eval-context replaces the last one's). */
  removeSource(source: DocumentSource): void {
    this.remove((d) => d.source === source);
  }

  get size(): number {
    return this.docs.size;
  }

  get documents(): IndexedDocument[] {
    return [...this.docs.values()];
  }

  /** The indexed document with this file name (or path ending in it), if any. */
  byFilename(name: string): IndexedDocument | undefined {
    const base = name.split(/[\\/]/).pop() ?? name;
    return this.documents.find((d) => d.filename === base);
  }

  /**
   * The best sentence for a question, however poor (null when nothing shares a subject word). Documents `skip`
   * names are left out as if never indexed, their sentences not weighing the words either.
   */
  best(question: string, skip?: (document: IndexedDocument) => boolean): DocumentMatch | null {
    const query = queryTokens(question);
    const entries = skip ? this.entries.filter((e) => !skip(e.document)) : this.entries;
    if (query.length === 0 || entries.length === 0) return null;
    const n = entries.length;
    const weight = new Map(
      query.map((t) => [t, Math.log(1 + n / (entries.filter((e) => e.tokens.has(t)).length + 0.5))]),
    );
    const total = [...weight.values()].reduce((a, b) => a + b, 0);
    let best: { entry: Entry; covered: number; matched: number } | null = null;
    for (const entry of entries) {
      const hits = query.filter((t) => entry.tokens.has(t));
      const covered = hits.reduce((sum, t) => sum + (weight.get(t) ?? 0), 0);
      // Ties go to the sentence matching more words, then to the earlier one.
      if (
        hits.length > 0 &&
        (!best || covered > best.covered || (covered === best.covered && hits.length > best.matched))
      )
        best = { entry, covered, matched: hits.length };
    }
    return best && { document: best.entry.document, sentence: best.entry.sentence, coverage: best.covered / total };
  }

  /** The sentence that answers the question, or null when the documents (less those `skip` names) do not say. */
  search(question: string, skip?: (document: IndexedDocument) => boolean): DocumentMatch | null {
    const match = this.best(question, skip);
    return match && match.coverage >= DOCUMENT_MATCH_THRESHOLD ? match : null;
  }

  /**
   * The document a "what can you tell me about X" question is about: the one whose sentences share most of its
   * subject words, or the only one.
   */
  subject(question: string): IndexedDocument | null {
    const query = queryTokens(question);
    let best: { document: IndexedDocument; hits: number } | null = null;
    for (const document of this.docs.values()) {
      const hits = this.entries.filter((e) => e.document === document && query.some((t) => e.tokens.has(t))).length;
      if (hits > 0 && (!best || hits > best.hits)) best = { document, hits };
    }
    if (best) return best.document;
    return this.docs.size === 1 ? this.documents[0] : null;
  }

  private remove(which: (d: IndexedDocument) => boolean): void {
    for (const d of [...this.docs.values()]) if (which(d)) this.docs.delete(d.id);
    this.entries = this.entries.filter((e) => this.docs.get(e.document.id) === e.document);
  }
}
