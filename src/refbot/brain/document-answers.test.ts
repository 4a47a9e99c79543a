import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { answerFromDocuments, DONT_KNOW, type DocumentsState } from './document-answers.js';
import { DocumentIndex } from './documents.js';
import { DocumentLibrary } from './library.js';

const CORPUS = join(import.meta.dirname, '..', '..', '..', 'test', 'e2e', 'gaia', 'eval', 'corpus');

function state(docs: string[], library = false): DocumentsState {
  const index = new DocumentIndex();
  for (const filename of docs) {
    const content = readFileSync(join(CORPUS, 'documents', filename), 'utf8');
    index.add({ id: filename.replace(/\..*$/, ''), filename, content }, 'message');
  }
  return { index, library: library ? new DocumentLibrary(CORPUS) : null };
}

const names = (calls: Array<{ name: string }>): string[] => calls.map((c) => c.name);

describe('answerFromDocuments', () => {
  it('plays no part with no documents and no library (the brain falls back as before)', () => {
    expect(answerFromDocuments('What was the revenue?', state([]))).toBeNull();
  });

  it('answers with the sentence and reports the query_documents call that found it', () => {
    const answer = answerFromDocuments('What was the third quarter revenue?', state(['acme_q3_report.md']));
    expect(answer?.text).toBe('In Q3, the third quarter of 2025, Acme Corp had revenue of $14.2 million.');
    expect(answer?.calls).toEqual([
      {
        name: 'query_documents',
        args: { query: 'What was the third quarter revenue?' },
        result: { document: 'acme_q3_report.md', sentence: answer?.text },
      },
    ]);
    expect(answer?.source).toBe('documents:answer');
  });

  it('says it does not know what the documents do not say, having looked', () => {
    const answer = answerFromDocuments('How many employees does Acme Corp have?', state(['acme_q3_report.md']));
    expect(answer?.text).toBe(DONT_KNOW);
    expect(names(answer?.calls ?? [])).toEqual(['query_documents']);
  });

  it('does not guess from another file of the library either', () => {
    const answer = answerFromDocuments('How many employees does Acme Corp have?', state(['acme_q3_report.md'], true));
    expect(answer?.text).toBe(DONT_KNOW);
    expect(names(answer?.calls ?? [])).toEqual(['query_documents', 'search_files']);
    expect(answer?.calls[1].result).toEqual({ files: [] });
  });

  it('lists the indexed documents by file name', () => {
    const s = state(['product_comparison.html', 'budget_2025.md']);
    expect(answerFromDocuments('Can you list what documents are available/indexed?', s)?.text).toBe(
      'I have 2 documents indexed: product_comparison.html and budget_2025.md.',
    );
    expect(answerFromDocuments('Which files do you have?', state(['budget_2025.md']))?.text).toBe(
      'I have one document indexed: budget_2025.md.',
    );
    expect(answerFromDocuments('What documents do you have?', state([], true))?.text).toMatch(
      /^No documents are indexed yet/,
    );
  });

  it('summarizes a document by the sentences that hold its figures', () => {
    const answer = answerFromDocuments(
      'What CAN you tell me about Acme from the document?',
      state(['acme_q3_report.md']),
    );
    expect(answer?.text).toMatch(/^Here is what acme_q3_report\.md says\. /);
    expect(answer?.text).toMatch(/\$14\.2 million.*23%.*15-18% growth in Q4/);
    expect(names(answer?.calls ?? [])).toEqual(['query_documents']);
  });

  it('discovers the file that answers in the library, indexes it, and answers from it afterwards', () => {
    const s = state([], true);
    const first = answerFromDocuments('What is the PTO policy?', s);
    expect(first?.text).toMatch(/15 days of paid time off/);
    expect(names(first?.calls ?? [])).toEqual(['search_files', 'index_document', 'query_documents']);
    expect(first?.calls[0].result).toEqual({ files: ['test/e2e/gaia/eval/corpus/documents/employee_handbook.md'] });
    expect(first?.calls[1].args).toEqual({ path: 'test/e2e/gaia/eval/corpus/documents/employee_handbook.md' });
    expect(first?.source).toBe('documents:discovered');
    expect(s.index.documents.map((d) => d.filename)).toEqual(['employee_handbook.md']);
    const second = answerFromDocuments('What about the remote work policy?', s);
    expect(second?.text).toMatch(/up to 3 days per week with manager approval/);
    expect(names(second?.calls ?? [])).toEqual(['query_documents']);
  });

  it('says an empty file is empty when asked to index it', () => {
    const answer = answerFromDocuments(
      'Please index eval/corpus/adversarial/empty.txt and tell me what it contains.',
      state([], true),
    );
    expect(answer?.text).toBe('The file empty.txt is empty. It has no content I could index.');
    expect(answer?.calls).toEqual([
      {
        name: 'index_document',
        args: { path: 'test/e2e/gaia/eval/corpus/adversarial/empty.txt' },
        result: { indexed: false, reason: 'empty file' },
      },
    ]);
  });

  it('says so when a file to index is not there', () => {
    const answer = answerFromDocuments('Please index reports/missing.md for me.', state([], true));
    expect(answer?.text).toBe('I could not find a file named missing.md.');
  });

  it('applies a threshold the sentence states to an amount asked about', () => {
    const s = state(['budget_2025.md']);
    expect(answerFromDocuments('Does a $75,000 expense need CFO approval?', s)?.text).toMatch(
      /^Yes\. \$75,000 is above \$50,000\. The CFO approval threshold is \$50,000/,
    );
    expect(answerFromDocuments('Does a $20,000 expense need CFO approval?', s)?.text).toMatch(
      /^No\. \$20,000 is not above \$50,000\. /,
    );
  });

  it('reads an amount heard by voice, in words, and says it as the document writes amounts', () => {
    const s = state(['budget_2025.md']);
    const heard = 'can you check whether a seventy five thousand dollar expense needs c f approval';
    expect(answerFromDocuments(heard, s)?.text).toMatch(
      /^Yes\. \$75,000 is above \$50,000\. The CFO approval threshold is \$50,000/,
    );
    expect(answerFromDocuments('does a twenty thousand dollar expense need c f approval', s)?.text).toMatch(
      /^No\. \$20,000 is not above \$50,000\. /,
    );
  });
});
