import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SCORECARD_WEIGHTS } from './file-fields.js';
import { isGaiaShape } from './gaia-shape.js';
import { BASE, edit, FILE, find, gaiaLoaders, gaiaProject, lines, pos } from './gaia.testutil.js';
import { inspectFile, loadGaiaScenario, loadYamlTree } from './load.js';
import { GAIA_PERSONAS } from './personas.js';
import { loadedOf, type TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';
import type { YMap } from './ynode.js';

let project: TempProject;
beforeEach(() => {
  project = gaiaProject();
});
afterEach(() => project.cleanup());

const { inspect, gaiaOf } = gaiaLoaders(() => project);

describe('recognising a GAIA file', () => {
  const shape = (yaml: string): boolean => isGaiaShape(loadYamlTree(project.write('shape.yaml', yaml)) as YMap);

  it('takes id: with setup: or GAIA turns; never a Pipecat file, which has no id:', () => {
    expect(shape(BASE)).toBe(true);
    expect(shape('id: x\nturns:\n  - objective: ask\n')).toBe(true);
    expect(shape('id: x\nsetup: {index_documents: []}\n')).toBe(true);
    // No id: but setup: and an objective turn: GAIA with its id missing (reported as such).
    expect(shape('category: c\nsetup: {index_documents: []}\nturns:\n  - turn: 1\n')).toBe(true);
    expect(shape('name: greeting\nturns:\n  - user: hello\n    expect: [{event: response}]\n')).toBe(false);
    expect(shape('name: f\nscenarios:\n  - name: a\n    turns: []\n')).toBe(false);
    expect(shape('name: s\npersona: Jamie\ngoal: book\nsuccess: booked\n')).toBe(false);
    expect(shape('id: x\nscenarios: []\nsetup: {}\n')).toBe(false);
    expect(shape('id: x\nsuite: []\nsetup: {}\n')).toBe(false);
    expect(shape('id: x\nturns:\n  - user: hello\n')).toBe(false);
  });

  it('a Pipecat file still loads as before beside GAIA files', () => {
    const r = inspect('name: greeting\nturns:\n  - user: hello\n', 'greeting.yaml');
    const loaded = loadedOf(r);
    expect(loaded.kind === 'script' && loaded.gaia).toBeUndefined();
    expect(r.status === 'loaded' && r.scenario_file?.format).toBe('top-level');
  });
});

describe('a GAIA file loads as one scripted scenario with a gaia block', () => {
  it('named by its id, one turn per GAIA turn, spoken by default, GAIA scoring', () => {
    const r = inspect(BASE);
    expect(r.status === 'loaded' && r.scenario_file?.format).toBe('gaia');
    expect(r.status === 'loaded' && r.checks).toMatchObject([
      { id: 'demo', kind: 'script', format: 'gaia', status: 'valid' },
    ]);
    const s = gaiaOf(BASE);
    expect(s).toMatchObject({
      kind: 'script',
      name: 'demo',
      file_name: 'demo',
      index: 0,
      category: 'rag_quality',
      turns: [{ expect: [] }],
      context: [],
      stop_on_failure: false,
      user: { modality: 'audio', speech: { service: 'flite' } },
      judge: { modality: 'audio', transcription: { service: 'sphinx', padding_secs: 2 } },
    });
    expect(s.turns[0].user).toBeUndefined();
    expect(s.gaia).toEqual({
      id: 'demo',
      persona: { name: 'power_user', description: GAIA_PERSONAS.power_user.behavior, builtin: true },
      documents: [
        {
          corpus_doc: 'acme_q3_report',
          path: project.path('eval/corpus/documents/acme_q3_report.md'),
          written_path: 'eval/corpus/documents/acme_q3_report.md',
          filename: 'acme_q3_report.md',
          format: 'markdown',
        },
      ],
      turns: [
        {
          turn: 1,
          objective: 'Ask about Q3 revenue',
          within_ms: 60_000,
          ground_truth: {
            doc_id: 'acme_q3_report',
            fact_ids: ['q3_revenue'],
            expected_answer: '$14.2 million',
            facts: [
              {
                doc_id: 'acme_q3_report',
                id: 'q3_revenue',
                question: 'What was Q3 revenue?',
                answer: '$14.2 million',
                difficulty: 'easy',
              },
            ],
          },
          success_criteria: 'Agent states Q3 revenue was $14.2 million',
        },
      ],
      simulator: expect.objectContaining({ service: 'ollama' }),
      scoring: { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 },
      corpus: project.path('eval/corpus/manifest.json'),
    });
    expect(lines(r)).toEqual([]);
  });

  it('a user_message is the turn the caller says; display name, description, outcome, severity kept', async () => {
    const yaml = edit(
      '    objective: Ask about Q3 revenue\n',
      '    objective: Ask about Q3 revenue\n    user_message: "What was Q3 revenue?"\n',
      `name: "Demo"\nseverity: critical\ndescription: |\n  Tests lookup.\nexpected_outcome: It answers.\n${BASE}`,
    );
    const s = gaiaOf(yaml);
    expect(s.turns).toEqual([{ user: 'What was Q3 revenue?', expect: [] }]);
    expect(s.gaia.turns[0].user_message).toBe('What was Q3 revenue?');
    expect(s.severity).toBe('critical');
    expect(s.gaia).toMatchObject({
      display_name: 'Demo',
      description: 'Tests lookup.',
      expected_outcome: 'It answers.',
    });
    await expect(loadGaiaScenario(project.path(FILE))).resolves.toMatchObject({ name: 'demo' });
  });

  it("earshot's blocks are extensions: user, judge, simulator, conditions, pass_threshold, weights", () => {
    const yaml =
      `${BASE}user: {modality: text}\njudge: {modality: text}\nsimulator: {service: openai, model: m}\n` +
      'pass_threshold: 8\nweights: {correctness: 50, efficiency: 0}\n';
    const s = gaiaOf(yaml);
    expect(s.user).toEqual({ modality: 'text' });
    expect(s.judge.modality).toBe('text');
    expect(s.gaia.simulator).toMatchObject({ service: 'openai', model: 'm' });
    expect(s.gaia.scoring).toEqual({
      weights: { ...DEFAULT_SCORECARD_WEIGHTS, correctness: 50, efficiency: 0 },
      pass_threshold: 8,
    });
    const spoken = gaiaOf(`${BASE}conditions: {noise: {type: white, snr_db: 20}}\n`);
    expect(spoken.conditions?.noise).toMatchObject({ type: 'white', snr_db: 20 });
  });

  it('extensions are checked: weights that are all 0, a spoken caller with no TTS, conditions typed', () => {
    const none = Object.keys(DEFAULT_SCORECARD_WEIGHTS).map((d) => `${d}: 0`);
    const zero = `${BASE}weights: {${none.join(', ')}}\n`;
    expect(lines(inspect(zero))).toEqual([`16:10 error weights: every weight is 0: at least one dimension must count`]);
    expect(lines(inspect(`${BASE}user: {modality: audio}\n`))).toEqual([
      "16:18 error user.modality: audio needs a 'user.speech:' block: every GAIA turn is spoken",
    ]);
    expect(lines(inspect(`${BASE}user: {modality: text}\nconditions: {noise: {type: white, snr_db: 20}}\n`))).toEqual([
      "17:13 error conditions: conditions degrade the caller's audio, which needs 'user.modality: audio' (a typed " +
        'turn has no audio)',
    ]);
  });

  it('turn numbers, within_ms and numbers in expected_answer: numbers become text', () => {
    const s = gaiaOf(edit('expected_answer: "$14.2 million"', 'expected_answer: 14.2\n    within_ms: 9000'));
    expect(s.gaia.turns[0]).toMatchObject({ within_ms: 9000, ground_truth: { expected_answer: '14.2' } });
  });
});

describe('GAIA rules, each located', () => {
  it('id: only letters, digits and underscores (the bad character pointed at)', () => {
    const yaml = edit('id: demo', 'id: demo-x');
    const d = find(inspect(yaml), 'invalid character');
    expect(d).toMatchObject({ severity: 'error', path: 'id', ...pos(yaml, '-x') });
    expect(d.message).toBe(
      'invalid character "-" in id "demo-x"; expected only letters, digits and underscores (snake_case)',
    );
  });

  it('id: not lowercase, or not the file stem: warnings', () => {
    const upper = edit('id: demo', 'id: Demo');
    const r = inspect(upper, 'eval/scenarios/rag_quality/Demo.yaml');
    expect(lines(r)).toEqual([`1:5 warning id: 'Demo' is not snake_case; GAIA ids are lowercase`]);
    expect(lines(inspect(BASE, 'eval/scenarios/rag_quality/other.yaml'))).toEqual([
      "1:5 warning id: the file is other.yaml, but its id is 'demo' (GAIA names a file <id>.yaml)",
    ]);
  });

  it('id:, category:, setup: and turns: are required; category is non-empty', () => {
    const r = inspect(edit('id: demo\n', ''));
    expect(lines(r)).toContain("1:1 error : missing required key 'id' (a non-empty string)");
    const empty = edit('category: rag_quality', 'category: ""');
    expect(find(inspect(empty), 'empty string')).toMatchObject({ path: 'category', ...pos(empty, '""') });
    const none = edit('category: rag_quality\n', '');
    expect(lines(inspect(none))).toContain("1:1 error : missing required key 'category' (a non-empty string)");
  });

  it('severity: critical | high | medium | low, with a suggestion', () => {
    const yaml = `severity: critcal\n${BASE}`;
    expect(lines(inspect(yaml))).toContain('1:11 error severity: unknown value "critcal"; did you mean "critical"?');
  });

  it('persona: missing → a warning, power_user; a near miss → did you mean; free text → a custom persona', () => {
    const none = edit('persona: power_user\n', '');
    const r = inspect(none);
    expect(r.status).toBe('loaded');
    expect(find(r, "no 'persona:'")).toMatchObject({ severity: 'warning', path: 'persona', line: 1, col: 1 });
    expect(gaiaOf(none).gaia.persona.name).toBe('power_user');
    const typo = edit('persona: power_user', 'persona: power_usr');
    expect(lines(inspect(typo))).toEqual([
      "3:10 warning persona: 'power_usr' is not a built-in persona, so the caller model reads it as free text; " +
        "did you mean 'power_user'?",
    ]);
    const custom = edit('persona: power_user', 'persona: "A retired teacher who speaks slowly"');
    expect(lines(inspect(custom))).toEqual([]);
    expect(gaiaOf(custom).gaia.persona).toEqual({
      name: 'A retired teacher who speaks slowly',
      description: 'A retired teacher who speaks slowly',
      builtin: false,
    });
  });

  it('--strict: the missing persona is an error and the file does not load', () => {
    const r = inspect(edit('persona: power_user\n', ''), FILE, true);
    expect(r.status).toBe('invalid');
    expect(find(r, "no 'persona:'")).toMatchObject({ severity: 'error' });
    expect(find(r, "no 'persona:'").message).toMatch(/\(an error under --strict\)$/);
  });

  it('setup.index_documents: required, may be []', () => {
    const missing = edit(
      '  index_documents:\n    - corpus_doc: acme_q3_report\n      path: eval/corpus/documents/acme_q3_report.md\n',
      '  other: 1\n',
    );
    const r = inspect(missing);
    expect(lines(r)).toContain(`5:3 error setup: missing required key 'index_documents' (a list)`);
    expect(lines(r)).toContain(`5:3 warning setup.other: unknown key 'other'; known keys: index_documents`);
    const empty = edit(
      '  index_documents:\n    - corpus_doc: acme_q3_report\n      path: eval/corpus/documents/acme_q3_report.md\n',
      '  index_documents: []\n',
    );
    expect(gaiaOf(empty).gaia.documents).toEqual([]);
  });

  it('corpus_doc must be a manifest document (adversarial ones too)', () => {
    const yaml = edit('- corpus_doc: acme_q3_report', '- corpus_doc: acme_q3_reprot');
    const d = find(inspect(yaml), "unknown document 'acme_q3_reprot'");
    expect(d).toMatchObject({
      severity: 'error',
      path: 'setup.index_documents[0].corpus_doc',
      ...pos(yaml, 'acme_q3_reprot'),
    });
    expect(d.message).toMatch(/did you mean 'acme_q3_report'\?$/);
    const adversarial = edit(
      '- corpus_doc: acme_q3_report\n      path: eval/corpus/documents/acme_q3_report.md',
      '- corpus_doc: empty_file\n      path: eval/corpus/adversarial/empty.txt',
    );
    expect(gaiaOf(adversarial).gaia.documents[0]).toMatchObject({ corpus_doc: 'empty_file', filename: 'empty.txt' });
  });

  it("paths are relative to the scenario root; a missing one warns; the manifest's file name is checked", () => {
    const missing = edit('documents/acme_q3_report.md', 'documents/gone.md');
    const r = inspect(missing);
    expect(find(r, 'document not found: eval/corpus/documents/gone.md')).toMatchObject({
      severity: 'warning',
      path: 'setup.index_documents[0].path',
      ...pos(missing, 'eval/corpus/documents/gone.md'),
    });
    expect(
      find(r, "the manifest's file for 'acme_q3_report' is acme_q3_report.md, but this path names gone.md"),
    ).toBeDefined();
  });

  it('a path naming a folder is an error, located at the path', () => {
    const folder = edit('documents/acme_q3_report.md', 'documents');
    expect(find(inspect(folder), 'document eval/corpus/documents is not a regular file')).toMatchObject({
      severity: 'error',
      path: 'setup.index_documents[0].path',
    });
  });

  it('a path leaving the scenario root is refused unless --allow-outside-root', () => {
    project.write('inner/package.json', '{}\n');
    const yaml = edit('path: eval/corpus', 'path: ../eval/corpus');
    const file = project.write('inner/demo.yaml', yaml);
    const corpus = project.path('eval/corpus/manifest.json');
    const r = inspectFile(file, { corpus });
    expect(find(r, 'outside the scenario root')).toMatchObject({
      severity: 'error',
      path: 'setup.index_documents[0].path',
      ...pos(yaml, '../eval/corpus'),
    });
    expect(inspectFile(file, { corpus, allowOutsideRoot: true }).status).toBe('loaded');
  });

  it('a GAIA checkout inside a bigger project: the path is read from the folder above eval/, with a warning', () => {
    // The project root is moved.dir (its package.json); the GAIA tree sits in gaia/ with no root marker of its own.
    const moved = gaiaProject(undefined, 'gaia/');
    try {
      const r = inspectFile(moved.write(`gaia/${FILE}`, BASE));
      const d = find(r, 'is not under the scenario root');
      expect(d).toMatchObject({ severity: 'warning', ...pos(BASE, 'eval/corpus/documents/acme_q3_report.md') });
      expect(d.message).toContain(`read it from ${moved.path('gaia')} instead`);
      const s = loadedOf(r) as Scenario;
      expect(s.gaia?.documents[0].path).toBe(moved.path('gaia/eval/corpus/documents/acme_q3_report.md'));
      expect(s.gaia?.corpus).toBe(moved.path('gaia/eval/corpus/manifest.json'));
    } finally {
      moved.cleanup();
    }
  });
});
