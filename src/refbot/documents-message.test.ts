import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DOCUMENTS_MESSAGE, type DocumentPayload, documentsContext, type ServerMessage } from '../protocol/index.js';
import { loadBrain } from './brain/brain.js';
import { DocumentIndex } from './brain/documents.js';
import { DocumentsPayloadError, onDocumentsMessage, readDocumentsPayload } from './documents-message.js';
import { loadRefbotDocuments, newBrainMemory } from './documents-setup.js';
import { RefbotOptionError } from './errors.js';

const REPORT: DocumentPayload = {
  id: 'acme_q3_report',
  filename: 'acme_q3_report.md',
  format: 'markdown',
  path: '/corpus/acme_q3_report.md',
  content: '# Q3\n\nRevenue in the third quarter was $14.2 million.\n',
  bytes: 52,
};

describe('onDocumentsMessage', () => {
  it('indexes the documents and acknowledges with the request id and the count', () => {
    const sent: ServerMessage[] = [];
    const documents = { index: new DocumentIndex(), library: null };
    expect(onDocumentsMessage('7', { documents: [REPORT] }, documents, (m) => sent.push(m))).toBe(1);
    expect(sent).toEqual([{ type: 'server-response', id: '7', data: { t: DOCUMENTS_MESSAGE, d: { indexed: 1 } } }]);
    expect(documents.index.search('What was the third quarter revenue?')?.sentence).toMatch(/\$14\.2 million/);
  });

  it('answers a payload of the wrong shape with an error-response naming the field, and indexes nothing', () => {
    const sent: ServerMessage[] = [];
    const documents = { index: new DocumentIndex(), library: null };
    const bad = { documents: [{ ...REPORT, filename: 3 }] };
    expect(onDocumentsMessage('8', bad, documents, (m) => sent.push(m))).toBeNull();
    expect(sent).toEqual([
      {
        type: 'error-response',
        id: '8',
        data: { error: `${DOCUMENTS_MESSAGE}: d.documents[0].filename: expected a non-empty string` },
      },
    ]);
    expect(documents.index.size).toBe(0);
  });

  it('reads a binary document as one with no text, and refuses one with no content at all', () => {
    const image = {
      id: 'chart',
      filename: 'chart.png',
      format: 'image',
      path: '/c.png',
      content_base64: 'iVBO',
      bytes: 3,
    };
    expect(readDocumentsPayload({ documents: [image] })).toEqual([
      { id: 'chart', filename: 'chart.png', format: 'image', path: '/c.png', content: '' },
    ]);
    expect(() => readDocumentsPayload({ documents: [{ id: 'x', filename: 'x.md' }] })).toThrow(DocumentsPayloadError);
    expect(() => readDocumentsPayload({ docs: [] })).toThrow('d.documents: expected an array');
  });
});

describe('loadRefbotDocuments', () => {
  it('reads a DocumentsFile into every new memory, each its own copy', () => {
    const dir = mkdtempSync(join(tmpdir(), 'refbot-docs-'));
    const file = join(dir, 'docs.json');
    writeFileSync(file, JSON.stringify({ documents: [REPORT] }));
    const setup = loadRefbotDocuments({ documents: file, library: dir });
    const a = newBrainMemory(setup);
    const b = newBrainMemory(setup);
    a.documents.index.removeSource('file');
    expect(a.documents.index.size).toBe(0);
    expect(b.documents.index.documents.map((d) => d.filename)).toEqual(['acme_q3_report.md']);
    expect(b.documents.library?.dir).toBe(dir);
  });

  it('names the option that is wrong', () => {
    const dir = mkdtempSync(join(tmpdir(), 'refbot-docs-'));
    const file = join(dir, 'bad.json');
    writeFileSync(file, '{"documents": 1}');
    expect(() => loadRefbotDocuments({ documents: file })).toThrow(RefbotOptionError);
    expect(() => loadRefbotDocuments({ documents: join(dir, 'none.json') })).toThrow(/documents: cannot read/);
    expect(() => loadRefbotDocuments({ library: file })).toThrow(/library: not a folder/);
  });
});

describe('the brain answers from documents after its rules', () => {
  const brain = loadBrain();

  it('reads the documents of an eval-context system message, and a new context replaces them', () => {
    const memory = newBrainMemory(undefined);
    brain.seedContext([{ role: 'system', content: documentsContext([REPORT]) }], memory);
    const reply = brain.respond({ kind: 'text', text: 'What was the third quarter revenue?' }, memory);
    expect(reply.text).toBe('Revenue in the third quarter was $14.2 million.');
    expect(reply.calls.map((c) => [c.name, c.args, c.toolCallId])).toEqual([
      ['query_documents', { query: 'What was the third quarter revenue?' }, 'call_1'],
    ]);
    expect(reply.source).toBe('documents:answer');
    brain.seedContext([{ role: 'system', content: 'You are helpful.' }], memory);
    expect(memory.documents.index.size).toBe(0);
  });

  it('keeps its rules first, and its fallback when it has no documents', () => {
    const memory = newBrainMemory(undefined);
    memory.documents.index.add({ id: 'r', filename: 'r.md', content: REPORT.content ?? '' }, 'message');
    expect(brain.respond({ kind: 'text', text: 'What is the capital of France?' }, memory).source).toBe(
      'rule:capital-france',
    );
    expect(brain.respond({ kind: 'text', text: 'Sing me something.' }, memory).text).toBe(
      "I don't know. The documents I have don't say.",
    );
    const bare = newBrainMemory(undefined);
    expect(brain.respond({ kind: 'text', text: 'Sing me something.' }, bare).source).toBe('fallback');
  });
});
