import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gaiaIdConflicts } from './gaia-ids.js';
import { BASE, gaiaProject, pos } from './gaia.testutil.js';
import { loadManifest, loadScenarioFile } from './load.js';
import { expandManifest } from './manifest-expand.js';
import type { Scenario } from './types.js';
import { validatePaths } from './walk.js';

/**
 * AMD GAIA's six documented examples (test/e2e/gaia/eval/scenarios/, on the corpus in test/e2e/gaia/eval/corpus/)
 * load as written, and the broken files in test/e2e/gaia/wrong/ fail where they are wrong.
 */
const GAIA_DIR = resolve(import.meta.dirname, '../../test/e2e/gaia');
const SCENARIOS = join(GAIA_DIR, 'eval/scenarios');
const WRONG = join(GAIA_DIR, 'wrong');

const gaiaOf = (rel: string): Scenario & { gaia: NonNullable<Scenario['gaia']> } => {
  const file = loadScenarioFile(join(SCENARIOS, rel));
  expect(file.format).toBe('gaia');
  return file.scenarios[0] as Scenario & { gaia: NonNullable<Scenario['gaia']> };
};

describe("GAIA's documented examples", () => {
  it('all six validate, found recursively under eval/scenarios/<category>/', () => {
    const results = validatePaths([SCENARIOS]);
    const ids = results.map((r) => [r.status, r.scenarios.map((s) => `${s.format}:${s.id}`).join()]);
    expect(ids).toEqual([
      ['valid', 'gaia:empty_file'],
      ['valid', 'gaia:cross_turn_file_recall'],
      ['valid', 'gaia:honest_limitation'],
      ['valid', 'gaia:budget_threshold_check'],
      ['valid', 'gaia:simple_factual_rag'],
      ['valid', 'gaia:smart_discovery'],
    ]);
    // The only warnings: the four examples that name no persona (GAIA's own examples omit it).
    const warned = results.flatMap((r) => r.diagnostics.map((d) => `${r.scenarios[0].id}: ${d.path}`));
    expect(warned).toEqual([
      'empty_file: persona',
      'cross_turn_file_recall: persona',
      'honest_limitation: persona',
      'smart_discovery: persona',
    ]);
  });

  it('simple_factual_rag: the fact resolved from the manifest, the document from the scenario root', () => {
    const s = gaiaOf('rag_quality/simple_factual_rag.yaml');
    expect(s).toMatchObject({ name: 'simple_factual_rag', category: 'rag_quality', severity: 'critical' });
    expect(s.gaia.documents).toEqual([
      {
        corpus_doc: 'acme_q3_report',
        path: join(GAIA_DIR, 'eval/corpus/documents/acme_q3_report.md'),
        written_path: 'eval/corpus/documents/acme_q3_report.md',
        filename: 'acme_q3_report.md',
        format: 'markdown',
      },
    ]);
    expect(s.gaia.turns[0].ground_truth?.facts.map((f) => f.answer)).toEqual(['$14.2 million']);
    expect(s.gaia.display_name).toBe('Simple Factual RAG');
  });

  it('cross_turn_file_recall: objective-only turns, two facts merged from fact_ids', () => {
    const s = gaiaOf('context_retention/cross_turn_file_recall.yaml');
    expect(s.turns).toEqual([{ expect: [] }, { expect: [] }, { expect: [] }]);
    expect(s.gaia.persona).toMatchObject({ name: 'power_user', builtin: true });
    expect(s.gaia.turns[1].ground_truth?.facts.map((f) => f.id)).toEqual(['price_a', 'price_b']);
    expect(s.gaia.turns[0].ground_truth).toEqual({
      expected_behavior: 'Agent lists the product comparison document',
      facts: [],
    });
  });

  it("honest_limitation: expected_answer null with a fact the document lacks; turn 2's three facts", () => {
    const s = gaiaOf('personality/honest_limitation.yaml');
    expect(s.gaia.turns[0].ground_truth).toMatchObject({
      fact_ids: ['employee_count'],
      expected_answer: null,
      facts: [],
      note: "NOT in document -- agent must say it doesn't know",
    });
    expect(s.gaia.turns[1].ground_truth?.facts.map((f) => f.id)).toEqual(['q3_revenue', 'yoy_growth', 'ceo_outlook']);
  });

  it('smart_discovery and empty_file: nothing indexed; budget_threshold_check: data_analyst', () => {
    expect(gaiaOf('tool_selection/smart_discovery.yaml').gaia.documents).toEqual([]);
    expect(gaiaOf('tool_selection/smart_discovery.yaml').gaia.turns[0].success_criteria).toContain(
      'FAIL if agent says',
    );
    expect(gaiaOf('adversarial/empty_file.yaml').gaia.documents).toEqual([]);
    const budget = gaiaOf('rag_quality/budget_threshold_check.yaml');
    expect(budget.gaia.persona.name).toBe('data_analyst');
    expect(budget.severity).toBe('high');
  });
});

describe('broken GAIA files (test/e2e/gaia/wrong/)', () => {
  const where = (name: string, needle: string, nth = 0): string => {
    const { line, col } = pos(readFileSync(join(WRONG, name), 'utf8'), needle, nth);
    return `${line}:${col}`;
  };
  const errors = (name: string): string[] => {
    const [r] = validatePaths([join(WRONG, name)]);
    expect(r.status).toBe('invalid');
    return r.diagnostics.filter((d) => d.severity === 'error').map((d) => `${d.line}:${d.col} ${d.path}`);
  };

  it('each fails at its own spot', () => {
    expect(errors('turn_gap.yaml')).toEqual([`${where('turn_gap.yaml', '3\n')} turns[1].turn`]);
    expect(errors('no_criteria.yaml')).toEqual([`${where('no_criteria.yaml', 'turn: 1')} turns[0]`]);
    expect(errors('unknown_fact.yaml')).toEqual([
      `${where('unknown_fact.yaml', 'q3_revenu\n')} turns[0].ground_truth.fact_id`,
    ]);
    expect(errors('unknown_document.yaml')).toEqual([
      `${where('unknown_document.yaml', 'acme_q3_reprot', 1)} setup.index_documents[0].corpus_doc`,
    ]);
    expect(errors('bad_id.yaml')).toEqual([`${where('bad_id.yaml', '-id')} id`]);
  });

  it('an id used by two files: the later one is refused, naming the first', () => {
    const results = validatePaths([SCENARIOS, join(WRONG, 'duplicate_id.yaml')]);
    const dup = results.find((r) => r.file.endsWith('duplicate_id.yaml'));
    expect(dup?.status).toBe('invalid');
    const first = join(SCENARIOS, 'rag_quality/simple_factual_rag.yaml');
    const firstAt = pos(readFileSync(first, 'utf8'), 'simple_factual_rag');
    expect(dup?.diagnostics[0]).toMatchObject({
      severity: 'error',
      path: 'id',
      message:
        `duplicate GAIA id 'simple_factual_rag': ${first}:${firstAt.line}:${firstAt.col} has it too (an id is ` +
        'unique across all scenarios: it names the result and its trace)',
    });
    expect(dup?.scenarios[0]).toMatchObject({ status: 'invalid' });
    expect(dup?.scenarios[0].loaded).toBeUndefined();
    expect(results.find((r) => r.file === first)?.status).toBe('valid');
  });

  it('a suite running two files with one id, from two entries, is refused at the second reference', async () => {
    const project = gaiaProject();
    try {
      project.write('a/demo.yaml', BASE);
      project.write('b/demo.yaml', BASE);
      const text =
        'suite:\n  - bot: one.py\n    scenarios: [a/demo.yaml]\n  - bot: two.py\n    scenarios: [b/demo.yaml]\n';
      const manifest = await loadManifest(project.write('suite.yaml', text));
      const { diagnostics } = expandManifest(manifest, { corpus: project.path('eval/corpus/manifest.json') });
      expect(diagnostics.map((d) => `${d.line}:${d.col} ${d.path}`)).toEqual([
        `${pos(text, 'b/demo.yaml').line}:${pos(text, 'b/demo.yaml').col} suite[1].scenarios[0]`,
      ]);
      expect(diagnostics[0].message).toContain(
        `error: id: duplicate GAIA id 'demo': ${project.path('a/demo.yaml')}:1:5`,
      );
    } finally {
      project.cleanup();
    }
  });

  it('gaiaIdConflicts, for the runner: the same file twice is no clash', () => {
    const a = loadScenarioFile(join(SCENARIOS, 'rag_quality/simple_factual_rag.yaml')).scenarios[0];
    const b = loadScenarioFile(join(WRONG, 'duplicate_id.yaml')).scenarios[0];
    expect(gaiaIdConflicts([a, a])).toEqual([]);
    expect(gaiaIdConflicts([a, b]).map((c) => c.scenario)).toEqual([b]);
  });
});
