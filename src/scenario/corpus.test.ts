import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findCorpus, loadCorpus, type Corpus, type CorpusCache } from './corpus.js';
import { gaiaProject, pos, TEST_MANIFEST } from './gaia.testutil.js';
import { TempProject } from './scenario.testutil.js';

let project: TempProject;
beforeEach(() => {
  project = gaiaProject();
});
afterEach(() => project.cleanup());

/** Writes a manifest (JSON text) and reads it. */
function corpus(json: string): Corpus {
  return loadCorpus(project.write('eval/corpus/manifest.json', json));
}

const render = (c: Corpus): string[] =>
  c.diagnostics.map((d) => `${d.line}:${d.col} ${d.severity} ${d.path}: ${d.message}`);

/** The manifest with one change made to a copy of it. */
function changed(change: (m: typeof TEST_MANIFEST) => void): string {
  const m = structuredClone(TEST_MANIFEST);
  change(m);
  return JSON.stringify(m, null, 2);
}

describe("GAIA's corpus manifest", () => {
  it('reads documents, facts (with their document) and adversarial documents', () => {
    const c = corpus(JSON.stringify(TEST_MANIFEST, null, 2));
    expect(c.diagnostics).toEqual([]);
    expect([...c.documents.keys()]).toEqual(['acme_q3_report', 'budget_2025']);
    expect(c.documents.get('acme_q3_report')).toMatchObject({ filename: 'acme_q3_report.md', format: 'markdown' });
    expect(c.documents.get('budget_2025')?.facts).toEqual([
      { doc_id: 'budget_2025', id: 'cfo_threshold', question: 'CFO threshold?', answer: '$50,000', difficulty: 'easy' },
    ]);
    expect(c.adversarial.get('empty_file')).toEqual({
      id: 'empty_file',
      filename: 'empty.txt',
      expected_behavior: 'say the file is empty',
    });
  });

  it('a number as an answer is read as its text', () => {
    const c = corpus(changed((m) => Object.assign(m.documents[1].facts[0], { answer: 50000 })));
    expect(c.documents.get('budget_2025')?.facts[0].answer).toBe('50000');
  });

  it('duplicate document ids (adversarial ones included) and duplicate fact ids are errors, located', () => {
    const text = changed((m) => {
      m.documents[1].id = 'acme_q3_report';
      m.adversarial_documents[0].id = 'acme_q3_report';
    });
    const c = corpus(text);
    const second = pos(text, '"acme_q3_report"', 1);
    const third = pos(text, '"acme_q3_report"', 2);
    expect(render(c).filter((l) => l.includes('error'))).toEqual([
      `${second.line}:${second.col} error documents[1].id: duplicate document id 'acme_q3_report' (line 7 has it)`,
      `${third.line}:${third.col} error adversarial_documents[0].id: duplicate document id 'acme_q3_report' ` +
        '(line 7 has it)',
    ]);
    const facts = changed((m) => {
      m.documents[0].facts[1].id = 'q3_revenue';
    });
    const at = pos(facts, '"q3_revenue"', 1);
    expect(render(corpus(facts))).toContain(
      `${at.line}:${at.col} error documents[0].facts[1].id: duplicate fact id 'q3_revenue' in document ` +
        "'acme_q3_report' (line 13 has it)",
    );
  });

  it('a fact needs id, question and answer; difficulty is easy, medium or hard', () => {
    const text = changed((m) => {
      const fact = m.documents[0].facts[0] as Record<string, unknown>;
      delete fact.answer;
      fact.difficulty = 'trivial';
    });
    const factAt = pos(text, '{', 2);
    const difficulty = pos(text, '"trivial"');
    expect(render(corpus(text))).toEqual([
      `${difficulty.line}:${difficulty.col} error documents[0].facts[0].difficulty: unknown value "trivial"; ` +
        'expected one of "easy", "medium", "hard"',
      `${factAt.line}:${factAt.col} error documents[0].facts[0]: missing required key 'answer' (a string or a number)`,
    ]);
  });

  it('an adversarial document needs id, filename and expected_behavior', () => {
    const text = changed((m) => {
      delete (m.adversarial_documents[0] as Record<string, unknown>).expected_behavior;
    });
    expect(render(corpus(text))).toEqual([
      `${pos(text, '{', 6).line}:${pos(text, '{', 6).col} error adversarial_documents[0]: missing required key ` +
        "'expected_behavior' (a non-empty string)",
    ]);
  });

  it('warnings: an unknown format, totals that do not add up, a file missing beside the manifest', () => {
    const text = changed((m) => {
      m.documents[0].format = 'markdwn';
      m.total_documents = 9;
      m.total_facts = 27;
      m.documents[1].filename = 'budget.md';
    });
    const c = corpus(text);
    const at = (needle: string): string => `${pos(text, needle).line}:${pos(text, needle).col}`;
    expect(render(c)).toEqual([
      `${at('"markdwn"')} warning documents[0].format: unknown format "markdwn"; did you mean "markdown"? GAIA's ` +
        'are markdown, html, csv, text, python, image',
      `${at('"budget.md"')} warning documents[1].filename: no such file documents/budget.md beside the manifest ` +
        `(looked for ${project.path('eval/corpus/documents/budget.md')})`,
      `${at('9,')} warning total_documents: says 9, but the manifest lists 2 documents (3 with the adversarial ones)`,
      `${at('27,')} warning total_facts: says 27, but the documents hold 3 facts`,
    ]);
    expect(c.diagnostics.every((d) => d.severity === 'warning')).toBe(true);
    // Totals that count the adversarial documents too are GAIA's habit, not a mistake.
    expect(render(corpus(changed((m) => Object.assign(m, { total_documents: 3 }))))).toEqual([]);
  });

  it('JSON that does not parse, and unknown keys, are located', () => {
    const broken = corpus('{\n  "documents": [\n    {"id": "a",, }\n  ]\n}\n');
    expect(broken.diagnostics[0]).toMatchObject({ severity: 'error', line: 3 });
    const text = changed((m) => Object.assign(m, { documets: [] }));
    expect(render(corpus(text))).toContain(
      `${pos(text, '"documets"').line}:${pos(text, '"documets"').col} warning documets: unknown key 'documets'; ` +
        "did you mean 'documents'?",
    );
  });

  it('is cached per run: one read for many scenarios', () => {
    const cache: CorpusCache = new Map();
    const file = project.path('eval/corpus/manifest.json');
    const first = loadCorpus(file, { cache });
    expect(loadCorpus(file, { cache })).toBe(first);
    expect(loadCorpus(file)).not.toBe(first);
  });
});

describe('finding the manifest', () => {
  it('the nearest eval/corpus/manifest.json or corpus/manifest.json, up to the scenario root', () => {
    const scenario = project.write('eval/scenarios/rag_quality/a.yaml', '');
    expect(findCorpus(scenario, project.dir)).toBe(project.path('eval/corpus/manifest.json'));
    const nearer = project.write('eval/scenarios/corpus/manifest.json', '{}');
    expect(findCorpus(scenario, project.dir)).toBe(nearer);
    const outside = new TempProject();
    try {
      const lone = outside.write('sub/a.yaml', '');
      expect(findCorpus(lone, outside.path('sub'))).toBeUndefined();
      outside.write('corpus/manifest.json', '{}');
      // Above the root: not looked at.
      expect(findCorpus(lone, outside.path('sub'))).toBeUndefined();
      expect(findCorpus(lone, outside.dir)).toBe(outside.path('corpus/manifest.json'));
    } finally {
      outside.cleanup();
    }
  });
});
