import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentSentences, queryTokens } from './document-text.js';
import { DOCUMENT_MATCH_THRESHOLD, DocumentIndex } from './documents.js';

/** The GAIA test corpus: the documents these questions are written against. */
const CORPUS = join(import.meta.dirname, '..', '..', '..', 'test', 'e2e', 'gaia', 'eval', 'corpus', 'documents');

function corpusIndex(...names: string[]): DocumentIndex {
  const index = new DocumentIndex();
  for (const filename of names)
    index.add(
      { id: filename.replace(/\..*$/, ''), filename, content: readFileSync(join(CORPUS, filename), 'utf8') },
      'message',
    );
  return index;
}

describe('documentSentences', () => {
  it('drops Markdown headings and markup, and cuts paragraphs at sentence ends', () => {
    const md = '# Title\n\n## Section\n\nFirst **bold** fact is 5. Second one is 6.\n\n- A listed item.\n';
    expect(documentSentences(md, 'markdown')).toEqual(['First bold fact is 5.', 'Second one is 6.', 'A listed item.']);
  });

  it('reads HTML paragraphs, not its head, headings or tags, and decodes entities', () => {
    const html =
      '<html><head><title>T</title><style>p{}</style></head><body><h1>Heading</h1>' +
      '<p>Tom &amp; Jerry cost <b>$5</b>.</p><div>Second.</div></body></html>';
    expect(documentSentences(html, 'html')).toEqual(['Tom & Jerry cost $5.', 'Second.']);
  });

  it('keeps a table row as one sentence of its cells', () => {
    expect(documentSentences('| a | b |\n|---|---|\n| 1 | 2 |', 'markdown')).toEqual(['a, b.', '1, 2.']);
  });
});

describe('queryTokens', () => {
  it('keeps the subject words, stemmed, without stopwords or bare numbers', () => {
    expect(queryTokens("What was Acme Corp's Q3 revenue in 2025?")).toEqual(['acme', 'corp', 'q3', 'revenue']);
    expect(queryTokens('How much do the two products cost?')).toEqual(['product', 'cost']);
  });

  it('leaves out numbers said in words and the letters of a spelled-out acronym, as PocketSphinx writes them', () => {
    expect(queryTokens('can you check whether a seventy five thousand dollar expense needs c f approval')).toEqual([
      'expense',
      'need',
      'approval',
    ]);
    expect(queryTokens('what is the c f o approval threshold')).toEqual(['approval', 'threshold']);
  });
});

describe('DocumentIndex on the GAIA corpus', () => {
  const cases: Array<[string[], string, RegExp]> = [
    [['acme_q3_report.md'], 'What was the third quarter revenue?', /\$14\.2 million/],
    [['acme_q3_report.md'], 'What was Q3 revenue?', /\$14\.2 million/],
    [['acme_q3_report.md'], 'What was the year-over-year revenue growth?', /23%/],
    [['acme_q3_report.md'], "What is the CEO's growth projection for Q4?", /15-18% growth in Q4/],
    [['product_comparison.html'], 'How much do the two products cost?', /\$49 per month and ProFlow costs \$79/],
    [['product_comparison.html'], 'Which one is better value for money?', /StreamLine is the better value/],
    [['employee_handbook.md'], 'What is the PTO policy?', /15 days/],
    [['employee_handbook.md'], 'What about the remote work policy?', /up to 3 days per week with manager approval/],
    [['budget_2025.md'], 'What is the CFO approval threshold?', /\$50,000/],
    [['budget_2025.md'], 'Can you check whether a $75,000 expense needs CFO approval?', /above \$50,000 needs/],
    // As the bot's PocketSphinx hears Flite say them.
    [['budget_2025.md'], 'what is the c f approval threshold', /\$50,000/],
    [
      ['budget_2025.md'],
      'can you check whether a seventy five thousand dollar expense needs c f approval',
      /above \$50,000 needs/,
    ],
    [
      ['budget_2025.md'],
      'does a seventy five thousand dollars expense need the approval of the c f l',
      /above \$50,000 needs/,
    ],
    [['employee_handbook.md'], 'and what about working remotely', /up to 3 days per week with manager approval/],
  ];
  for (const [docs, question, answer] of cases) {
    it(`answers "${question}" from ${docs.join(', ')}`, () => {
      const match = corpusIndex(...docs).search(question);
      expect(match?.sentence).toMatch(answer);
      expect(match?.coverage).toBeGreaterThanOrEqual(DOCUMENT_MATCH_THRESHOLD);
    });
  }

  it('finds nothing for the employee count the Q3 report does not give (its best guess is below the threshold)', () => {
    const index = corpusIndex('acme_q3_report.md');
    const question = 'How many employees does Acme Corp have?';
    expect(index.search(question)).toBeNull();
    const best = index.best(question);
    expect(best?.sentence).toMatch(/Acme Corp/);
    expect(best?.coverage).toBeLessThan(DOCUMENT_MATCH_THRESHOLD);
  });

  it('answers from the right one of several documents', () => {
    const index = corpusIndex('acme_q3_report.md', 'product_comparison.html', 'employee_handbook.md', 'budget_2025.md');
    expect(index.search('What was the third quarter revenue?')?.document.filename).toBe('acme_q3_report.md');
    expect(index.search('How much do the two products cost?')?.document.filename).toBe('product_comparison.html');
    expect(index.search('What is the PTO policy?')?.document.filename).toBe('employee_handbook.md');
    expect(index.search('What is the CFO approval threshold?')?.document.filename).toBe('budget_2025.md');
  });
});

describe('DocumentIndex bookkeeping', () => {
  it('replaces a document of the same id, and drops one source without touching the others', () => {
    const index = new DocumentIndex();
    index.add({ id: 'a', filename: 'a.txt', content: 'The sky is green.' }, 'message');
    index.add({ id: 'a', filename: 'a.txt', content: 'The sky is blue.' }, 'message');
    index.add({ id: 'b', filename: 'b.txt', content: 'Grass grows slowly.' }, 'context');
    expect(index.size).toBe(2);
    expect(index.search('What colour is the sky?')).toBeNull();
    expect(index.search('Which sky?')?.sentence).toBe('The sky is blue.');
    index.removeSource('context');
    expect(index.documents.map((d) => d.filename)).toEqual(['a.txt']);
    expect(index.search('How does grass grow?')).toBeNull();
    expect(index.byFilename('some/where/a.txt')?.id).toBe('a');
  });

  it('leaves out what skip names, weighing words as an index without those documents would', () => {
    const all = corpusIndex('acme_q3_report.md', 'budget_2025.md', 'employee_handbook.md');
    const skipAcme = (d: { filename: string }): boolean => d.filename === 'acme_q3_report.md';
    expect(all.search('What was the third quarter revenue?', skipAcme)).toBeNull();
    const question = 'What is the CFO approval threshold?';
    const without = corpusIndex('budget_2025.md', 'employee_handbook.md').best(question);
    expect(all.best(question, skipAcme)).toEqual(without);
    expect(all.best(question, () => true)).toBeNull();
    expect(all.size).toBe(3);
  });

  it('finds nothing in an empty index or for a question with no subject words', () => {
    expect(new DocumentIndex().search('What was the revenue?')).toBeNull();
    expect(corpusIndex('budget_2025.md').search('What is it?')).toBeNull();
  });
});
