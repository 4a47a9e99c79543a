import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import {
  expandManifest,
  inspectFile,
  loadRawDocument,
  loadScenarioFile,
  unrunnableFactories,
  validatePaths,
  type Manifest,
  type Scenario,
  type Simulation,
} from '../../src/scenario/index.js';
import { CLI, newestCorpus, pyyamlLoad, requireCorpus } from './corpora.js';

/**
 * Pipecat's newest release evals (1.11's `scenarios:` lists, from
 * `evals/release/`; BSD-2, kept outside this repository) validate unchanged:
 * 46 scenario files holding 66 scenarios (50 scripted, 16 simulations), the
 * 5 include fragments skipped, the manifest valid, the same data as PyYAML
 * with Pipecat's loader rules, and the CLI agrees.
 */
const CORPUS = newestCorpus();
const SCENARIOS = join(CORPUS, 'scenarios');
const MANIFEST = join(CORPUS, 'manifest.yaml');
const FRAGMENTS = ['judge_audio.yaml', 'judge_text.yaml', 'simulator.yaml', 'user_audio.yaml', 'vision-cat.yaml'];

function scenarioFiles(): string[] {
  return ['scripted', 'simulated'].flatMap((dir) =>
    readdirSync(join(SCENARIOS, dir))
      .filter((f) => f.endsWith('.yaml'))
      .sort()
      .map((f) => join(SCENARIOS, dir, f)),
  );
}

beforeAll(() => requireCorpus(CORPUS, "Pipecat's newest release corpus"));

describe("Pipecat's newest release corpus", () => {
  it('46 scenario files hold 66 scenarios, 50 scripted and 16 simulations, every one valid, named <file>/<scenario>', () => {
    const files = scenarioFiles();
    expect(files).toHaveLength(46);
    const scenarios = files.flatMap((f) => loadScenarioFile(f).scenarios);
    expect(scenarios).toHaveLength(66);
    expect(scenarios.filter((s) => s.kind === 'script')).toHaveLength(50);
    expect(scenarios.filter((s) => s.kind === 'simulation')).toHaveLength(16);
    expect(new Set(scenarios.map((s) => s.name)).size).toBe(66);
    for (const s of scenarios) expect(s.name, s.file).toMatch(/^[a-z_]+(\/[a-z_]+)?$/);
  });

  it('no errors; the only warnings are the deprecated top-level shape and assets missing from this copy', () => {
    for (const f of scenarioFiles()) {
      const warnings = loadScenarioFile(f).warnings;
      for (const w of warnings) {
        if (w.code === 'deprecated') {
          expect([relative(SCENARIOS, f), w.path]).toEqual(['scripted/tts_settings_change_audio.yaml', 'turns']);
        } else {
          // The corpus README: assets/ (a WAV and a JPEG) are binary and were not copied.
          expect(w.message, `${f}:${w.line}`).toMatch(/^(audio file|image) not found: \.\.\/\.\.\/assets\//);
          expect(existsSync(join(CORPUS, 'assets'))).toBe(false);
        }
      }
    }
    expect(loadScenarioFile(join(SCENARIOS, 'scripted/tts_settings_change_audio.yaml'))).toMatchObject({
      format: 'top-level',
      name: 'tts_settings_change_audio',
    });
  });

  it('a folder walk with the manifest: every scenario file valid, exactly the 5 fragments skipped, the manifest valid', () => {
    const results = validatePaths([SCENARIOS, MANIFEST]);
    expect(results.filter((r) => r.status === 'invalid').map((r) => [r.file, r.diagnostics])).toEqual([]);
    expect(results.filter((r) => r.status === 'skipped').map((r) => relative(SCENARIOS, r.file))).toEqual(FRAGMENTS);
    expect(results.filter((r) => r.kind === 'scenarios')).toHaveLength(46);
    expect(results.find((r) => r.file === MANIFEST)).toMatchObject({ status: 'valid', kind: 'manifest' });
    expect(results.find((r) => r.file.endsWith('vision-cat.yaml'))?.used_by).toEqual([MANIFEST]);
  });

  it('the manifest: entries resolve under scenarios_dir, each file runs every scenario it holds, no label runs one twice', () => {
    const manifest = inspectFile(MANIFEST);
    expect(manifest.status === 'loaded' ? manifest.loaded.warnings : manifest.diagnostics).toEqual([]);
    const m = (manifest.status === 'loaded' ? manifest.loaded : undefined) as Manifest;
    expect(m.scenarios_dir).toBe(SCENARIOS);
    expect(m.suite).toHaveLength(150);
    for (const ref of m.suite.flatMap((e) => e.scenarios)) expect(ref.file).toBe(join(SCENARIOS, `${ref.ref}.yaml`));
    expect(m.suite.filter((e) => e.runner_body).map((e) => e.runner_body)).toEqual(
      Array(7).fill(join(SCENARIOS, 'vision-cat.yaml')),
    );
    const x = expandManifest(m);
    expect(x.diagnostics).toEqual([]);
    // Two entries share this bot (and its label): scripted scenarios, then the simulations listed last.
    const cartesia = x.entries.filter((e) => e.entry.name === 'voice/voice-cartesia.py');
    expect(cartesia.map((e) => e.scenarios.map((s) => s.id))).toEqual([
      [
        'capital_question/capital_question',
        'capital_question_recording/capital_question_recording',
        'multi_turn/multi_turn',
        'interruption/text',
        'interruption/audio',
        'language_switch/text',
        'language_switch/audio',
      ],
      ['capital_curious/text', 'capital_curious/audio'],
    ]);
    const held = (file: string): number => loadScenarioFile(file).scenarios.length;
    expect(x.entries.flatMap((e) => e.scenarios)).toHaveLength(
      m.suite.flatMap((e) => e.scenarios).reduce((n, ref) => n + held(ref.file), 0),
    );
    expect(x.entries.flatMap((e) => e.scenarios).every((s) => s.scenario !== undefined)).toBe(true);
  });

  it("Pipecat's semantics: shared turns and persona at the top, whole-value overrides, markers, VAD anchors, text_excludes", () => {
    const [text, audio] = loadScenarioFile(join(SCENARIOS, 'scripted/interruption.yaml')).scenarios as Scenario[];
    expect([text.turns.length, audio.turns.length, text.judge.modality, audio.judge.modality]).toEqual([
      3,
      3,
      'text',
      'audio',
    ]);
    expect([text.turns[2].expect[1].event, audio.turns[2].expect[1].event]).toEqual(['llm_response', 'response']);
    const [sText, sAudio] = loadScenarioFile(join(SCENARIOS, 'simulated/capital_curious.yaml'))
      .scenarios as Simulation[];
    expect(sText.persona).toBe(sAudio.persona);
    expect([sText.metrics.length, sAudio.metrics.length, sText.max_duration_s, sAudio.max_duration_s]).toEqual([
      3, 4, 120, 180,
    ]);
    const [turns] = loadScenarioFile(join(SCENARIOS, 'scripted/filter_incomplete_turns.yaml')).scenarios as Scenario[];
    expect(turns.turns[1].expect.map((e) => [e.event, e.marker])).toEqual([
      ['vad_user_stopped_speaking', undefined],
      ['llm_marker', 'incomplete'],
    ]);
    expect(turns.turns[2].send_after).toEqual({ event: 'vad_user_stopped_speaking', delay_ms: 3000 });
    const voicemail = loadScenarioFile(join(SCENARIOS, 'scripted/voicemail_detection.yaml')).scenarios as Scenario[];
    expect(voicemail).toHaveLength(8);
    expect(voicemail[4].turns[0].expect[0]).toMatchObject({ text_excludes: 'Alex', within_ms: 20000 });
    const [age] = loadScenarioFile(join(SCENARIOS, 'simulated/age_verification.yaml')).scenarios as Simulation[];
    expect(age.metrics.map((m) => m.measure ?? 'judged')).toEqual(['judged', 'function_calls', 'latency']);
    expect(age.metrics[1].calls).toEqual([]);
  });

  it('the judges are a Python factory with an explainer: kept as data, refused before a run unless --judge replaces them', () => {
    const [s] = loadScenarioFile(join(SCENARIOS, 'scripted/capital_question.yaml')).scenarios as Scenario[];
    expect(s.judge.eval).toMatchObject({
      factory: 'evals.judges.typesafe_classifier',
      explainer: { service: 'ollama', model: 'gemma4:12b' },
    });
    expect(s.requires_code).toBe(false);
    expect(unrunnableFactories(s).map((d) => [d.file, d.line, d.col])).toEqual([
      [join(SCENARIOS, 'judge_audio.yaml'), 3, 12],
    ]);
    expect(unrunnableFactories(s, ['judge.eval'])).toEqual([]);
  });

  it('reads every file into the same data as PyYAML with Pipecat loader rules', () => {
    const files = [MANIFEST, ...FRAGMENTS.map((f) => join(SCENARIOS, f)), ...scenarioFiles()];
    const pyyaml = pyyamlLoad(files);
    for (const f of files) expect(loadRawDocument(f), f).toEqual(pyyaml[f]);
  });

  it('earshot suite --list plans every scenario of every file the manifest names (simulations marked), and -k/-s narrow it', () => {
    const m = (inspectFile(MANIFEST) as Extract<ReturnType<typeof inspectFile>, { status: 'loaded' }>)
      .loaded as Manifest;
    const expected = [...new Set(expandManifest(m).entries.flatMap((e) => e.scenarios.map((s) => s.id)))].sort();
    expect(expected).toHaveLength(58); // 49 scripted and 9 simulations named by the manifest
    const list = (...args: string[]): string[][] => {
      const r = spawnSync(process.execPath, [CLI, 'suite', MANIFEST, '--list', ...args], { encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t'));
    };
    const all = list();
    expect([...new Set(all.map((l) => l[1]))].sort()).toEqual(expected);
    const simulations = new Set(list('-k', 'simulation').map((l) => l[1]));
    expect(simulations.size).toBe(9);
    expect(new Set(all.filter((l) => l[4] === '(simulation)').map((l) => l[1]))).toEqual(simulations);
    expect(new Set(list('-k', 'script').map((l) => l[1])).size).toBe(49);
    expect([...new Set(list('-s', 'voicemail_detection').map((l) => l[1]))]).toHaveLength(8);
  });

  it('the CLI validates the scenarios folder and the manifest: exit 0, only the 5 fragments skipped', () => {
    expect(existsSync(CLI), `build first: npx tsc -p tsconfig.build.json (missing ${CLI})`).toBe(true);
    const r = spawnSync(process.execPath, [CLI, 'validate', SCENARIOS, MANIFEST], { encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(
      '\n67 valid, 0 invalid (50 scripted, 16 simulations, 1 manifest; 47 files), 5 fragments skipped\n',
    );
    expect(
      r.stdout
        .split('\n')
        .filter((l) => l.startsWith('skipped'))
        .map((l) => l.split(/\s+/)[1].split('/').pop()),
    ).toEqual(FRAGMENTS);
  });
});
