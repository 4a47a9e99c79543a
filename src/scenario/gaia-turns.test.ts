import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { BASE, edit, FILE, find, gaiaLoaders, gaiaProject, lines, pos } from './gaia.testutil.js';
import { inspectFile } from './load.js';
import { errorsOf, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Scenario } from './types.js';

let project: TempProject;
beforeEach(() => {
  project = gaiaProject();
});
afterEach(() => project.cleanup());

const { inspect, gaiaOf } = gaiaLoaders(() => project);

describe('GAIA turn rules', () => {
  const TURN2 = `  - turn: 2
    objective: Ask about growth
    ground_truth:
      doc_id: acme_q3_report
      fact_id: yoy_growth
      expected_answer: "23%"
`;

  it('turns: at least one', () => {
    const yaml = edit(BASE.slice(BASE.indexOf('turns:')), 'turns: []\n');
    expect(lines(inspect(yaml))).toContain('8:8 error turns: expected a non-empty list, got an empty list');
  });

  it('numbers run 1, 2, 3 in order', () => {
    const gap = BASE + TURN2.replace('turn: 2', 'turn: 3');
    expect(lines(inspect(gap))).toEqual([
      '16:11 error turns[1].turn: expected 2, got 3 (turn 1 comes before it; GAIA numbers turns 1, 2, 3... in order)',
    ]);
    const late = edit('- turn: 1', '- turn: 2');
    expect(lines(inspect(late))).toEqual([
      '9:11 error turns[0].turn: expected 1, got 2 (turn numbers start from 1; GAIA numbers turns 1, 2, 3... in order)',
    ]);
    expect(gaiaOf(BASE + TURN2).gaia.turns.map((t) => t.turn)).toEqual([1, 2]);
  });

  it('objective is required', () => {
    const yaml = edit('    objective: Ask about Q3 revenue\n', '');
    expect(lines(inspect(yaml))).toContain("9:5 error turns[0]: missing required key 'objective' (a non-empty string)");
  });

  it('a turn needs ground_truth or success_criteria; an empty ground_truth is refused', () => {
    const neither = `${BASE.slice(0, BASE.indexOf('    ground_truth:'))}`;
    expect(lines(inspect(neither))).toEqual([
      "9:5 error turns[0]: a turn needs 'ground_truth:' or 'success_criteria:' (GAIA: one of them per turn; both " +
        'give the judge the most to go on)',
    ]);
    const only = edit(BASE.slice(BASE.indexOf('    ground_truth:'), BASE.indexOf('    success_criteria')), '');
    expect(gaiaOf(only).gaia.turns[0].ground_truth).toBeUndefined();
    const empty = edit(
      BASE.slice(BASE.indexOf('    ground_truth:'), BASE.indexOf('    success_criteria')),
      '    ground_truth: {}\n',
    );
    expect(lines(inspect(empty))).toEqual([
      '11:19 error turns[0].ground_truth: an empty ground_truth gives the judge nothing; write some of: doc_id, ' +
        'fact_id, fact_ids, expected_answer, expected_behavior, note',
    ]);
  });

  it('fact_id without doc_id is refused; fact_id and fact_ids are merged with a warning', () => {
    const orphan = edit('      doc_id: acme_q3_report\n', '');
    expect(lines(inspect(orphan))).toContain(
      "12:16 error turns[0].ground_truth.fact_id: 'fact_id:' names a fact of a document: it needs 'doc_id:' beside it",
    );
    const both = edit('fact_id: q3_revenue', 'fact_id: q3_revenue\n      fact_ids: [yoy_growth, q3_revenue]');
    const r = inspect(both);
    expect(lines(r)).toEqual([
      "14:17 warning turns[0].ground_truth.fact_ids: both 'fact_id:' and 'fact_ids:' are written: the facts of " +
        'both are used',
      "14:30 warning turns[0].ground_truth.fact_ids[1]: fact 'q3_revenue' is named twice",
    ]);
    const truth = gaiaOf(both).gaia.turns[0].ground_truth;
    expect(truth?.fact_ids).toEqual(['q3_revenue', 'yoy_growth']);
    expect(truth?.facts.map((f) => f.answer)).toEqual(['$14.2 million', '23%']);
  });

  it('doc_id and fact ids must be in the manifest, with suggestions', () => {
    const doc = edit('doc_id: acme_q3_report', 'doc_id: acme_report');
    const d = find(inspect(doc), "unknown document 'acme_report'");
    expect(d).toMatchObject({ path: 'turns[0].ground_truth.doc_id', ...pos(doc, 'acme_report') });
    const fact = edit('fact_id: q3_revenue', 'fact_id: q3_revenu');
    expect(lines(inspect(fact))).toEqual([
      "13:16 error turns[0].ground_truth.fact_id: unknown fact 'q3_revenu' of document 'acme_q3_report'; did you " +
        "mean 'q3_revenue'? (a fact the document lacks is for expected_answer: null, where the bot must say it " +
        'does not know)',
    ]);
  });

  it('expected_answer: null allows a fact the document lacks (GAIA honest_limitation); absent is not null', () => {
    const unknown = edit(
      'fact_id: q3_revenue\n      expected_answer: "$14.2 million"',
      'fact_id: employee_count\n      expected_answer: null',
    );
    const truth = gaiaOf(unknown).gaia.turns[0].ground_truth;
    expect(truth).toEqual({ doc_id: 'acme_q3_report', fact_ids: ['employee_count'], expected_answer: null, facts: [] });
    const blank = edit('expected_answer: "$14.2 million"', 'expected_answer:');
    expect(gaiaOf(blank).gaia.turns[0].ground_truth?.expected_answer).toBeNull();
    const absent = edit('      expected_answer: "$14.2 million"\n', '');
    const t = gaiaOf(absent).gaia.turns[0].ground_truth;
    expect(t && 'expected_answer' in t).toBe(false);
    const contradicts = edit('expected_answer: "$14.2 million"', 'expected_answer: null');
    expect(find(inspect(contradicts), 'null says the bot must not know')).toMatchObject({ severity: 'warning' });
    const empty = edit('expected_answer: "$14.2 million"', 'expected_answer: ""');
    expect(errorsOf(inspect(empty)).map((e) => e.message)).toEqual([
      'an empty expected_answer; write null when the bot must say it does not know',
    ]);
  });

  it('an adversarial doc_id carries its expected behaviour', () => {
    const yaml = edit(
      '      doc_id: acme_q3_report\n      fact_id: q3_revenue\n      expected_answer: "$14.2 million"\n',
      '      doc_id: empty_file\n',
    );
    expect(gaiaOf(yaml).gaia.turns[0].ground_truth?.adversarial_behavior).toBe('say the file is empty');
  });

  it('unknown keys warn with a suggestion, at every level', () => {
    const yaml = edit('    success_criteria:', '    sucess_criteria:', `expected_outcom: done\n${BASE}`);
    const r = inspect(yaml);
    expect(warningsOf(r).map((w) => `${w.line}:${w.col} ${w.message}`)).toEqual([
      "1:1 unknown key 'expected_outcom'; did you mean 'expected_outcome'?",
      "16:5 unknown key 'sucess_criteria'; did you mean 'success_criteria'?",
    ]);
  });

  it('no corpus manifest: one warning, facts left unresolved; a --corpus that is not there is an error', () => {
    const none = new TempProject();
    try {
      none.write('eval/corpus/documents/acme_q3_report.md', 'Acme.\n');
      const r = inspectFile(none.write(FILE, BASE));
      expect(lines(r)).toEqual([
        `6:19 warning setup.index_documents[0].corpus_doc: no corpus manifest found (eval/corpus/manifest.json or ` +
          `corpus/manifest.json, from ${FILE} up to the scenario root ${none.dir}; or --corpus): documents and ` +
          'facts are not checked, and the judge gets no facts',
      ]);
      expect((loadedOf(r) as Scenario).gaia?.turns[0].ground_truth?.facts).toEqual([]);
      const wrong = inspectFile(none.path(FILE), { corpus: none.path('nowhere.json') });
      expect(wrong.status).toBe('invalid');
      expect(errorsOf(wrong)).toMatchObject([
        { file: none.path('nowhere.json'), line: 1, col: 1, message: 'file not found' },
      ]);
    } finally {
      none.cleanup();
    }
  });
});
