import type { Diagnostic } from './diagnostics.js';
import { inspectFile, type Inspection } from './load.js';
import { loadedOf, TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';

/** A GAIA corpus in the manifest's shape, small: what the loader tests check references against. */
export const TEST_MANIFEST = {
  generated_at: '2026-12-07T00:00:00Z',
  total_documents: 2,
  total_facts: 3,
  documents: [
    {
      id: 'acme_q3_report',
      filename: 'acme_q3_report.md',
      format: 'markdown',
      domain: 'finance',
      facts: [
        { id: 'q3_revenue', question: 'What was Q3 revenue?', answer: '$14.2 million', difficulty: 'easy' },
        { id: 'yoy_growth', question: 'What was the growth?', answer: '23%', difficulty: 'easy' },
      ],
    },
    {
      id: 'budget_2025',
      filename: 'budget_2025.md',
      format: 'markdown',
      facts: [{ id: 'cfo_threshold', question: 'CFO threshold?', answer: '$50,000', difficulty: 'easy' }],
    },
  ],
  adversarial_documents: [{ id: 'empty_file', filename: 'empty.txt', expected_behavior: 'say the file is empty' }],
};

/** A project whose root holds GAIA's layout: `eval/corpus/manifest.json`, its documents, `eval/scenarios/`. */
export function gaiaProject(manifest: unknown = TEST_MANIFEST, under = ''): TempProject {
  const project = new TempProject();
  project.write(`${under}eval/corpus/manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  project.write(`${under}eval/corpus/documents/acme_q3_report.md`, 'Acme Corp Q3 2025 revenue was $14.2 million.\n');
  project.write(`${under}eval/corpus/documents/budget_2025.md`, 'Expenses above $50,000 need CFO approval.\n');
  project.write(`${under}eval/corpus/adversarial/empty.txt`, '');
  return project;
}

/** Where `needle` starts in `text` (its `nth` occurrence), 1-based, as a diagnostic reports it. */
export function pos(text: string, needle: string, nth = 0): { line: number; col: number } {
  let at = -1;
  for (let i = 0; i <= nth; i++) {
    at = text.indexOf(needle, at + 1);
    if (at < 0) throw new Error(`${JSON.stringify(needle)} (#${nth}) not in the text`);
  }
  const before = text.slice(0, at).split('\n');
  return { line: before.length, col: (before.at(-1) ?? '').length + 1 };
}

/** `line:col severity path: message` of each diagnostic, for messages a test matches in full. */
export function lines(r: Inspection): string[] {
  return all(r).map((d) => `${d.line}:${d.col} ${d.severity} ${d.path}: ${d.message}`);
}

export function all(r: Inspection): Diagnostic[] {
  return r.status === 'loaded' ? r.loaded.warnings : r.diagnostics;
}

/** The one diagnostic whose message holds `text`; fails when none or several do. */
export function find(r: Inspection, text: string): Diagnostic {
  const found = all(r).filter((d) => d.message.includes(text));
  if (found.length !== 1)
    throw new Error(`expected one diagnostic with ${JSON.stringify(text)}, got:\n${lines(r).join('\n')}`);
  return found[0];
}

/** A GAIA scenario as the guide writes one; tests change one thing in it with `edit`. */
export const BASE = `id: demo
category: rag_quality
persona: power_user
setup:
  index_documents:
    - corpus_doc: acme_q3_report
      path: eval/corpus/documents/acme_q3_report.md
turns:
  - turn: 1
    objective: Ask about Q3 revenue
    ground_truth:
      doc_id: acme_q3_report
      fact_id: q3_revenue
      expected_answer: "$14.2 million"
    success_criteria: Agent states Q3 revenue was $14.2 million
`;

/** Where the base scenario sits: GAIA's layout, named by its id. */
export const FILE = 'eval/scenarios/rag_quality/demo.yaml';

/** BASE with `from` replaced by `to` (the test says what it changes). */
export const edit = (from: string, to: string, text = BASE): string => {
  if (!text.includes(from)) throw new Error(`${from} not in the fixture`);
  return text.replace(from, to);
};

/** Loading GAIA files into the current test's project: the inspection, or the loaded scenario with its block. */
export function gaiaLoaders(project: () => TempProject) {
  const inspect = (yaml: string, name = FILE, strict = false): Inspection =>
    inspectFile(project().write(name, yaml), strict ? { strict } : {});
  const gaiaOf = (yaml: string): Scenario & { gaia: NonNullable<Scenario['gaia']> } => {
    const loaded = loadedOf(inspect(yaml));
    if (loaded.kind !== 'script' || !loaded.gaia) throw new Error('expected a GAIA scenario');
    return loaded as Scenario & { gaia: NonNullable<Scenario['gaia']> };
  };
  return { inspect, gaiaOf };
}
