import { beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import {
  inspectFile,
  loadRawDocument,
  validatePaths,
  type Diagnostic,
  type Manifest,
  type Scenario,
} from '../../src/scenario/index.js';
import { CLI, olderCorpus, pyyamlLoad, requireCorpus } from './corpora.js';

/**
 * Pipecat's older release scenarios and manifest (BSD-2, kept outside this
 * repository; top-level `turns:`, before the 1.11 `scenarios:` lists) load
 * unchanged: zero errors, no warning but the deprecation of that shape, the
 * same data PyYAML reads with Pipecat's loader rules, and the CLI agrees.
 */
const CORPUS = olderCorpus();
const SCENARIOS = join(CORPUS, 'scenarios');
const FRAGMENTS = ['judge_audio.yaml', 'judge_text.yaml', 'user_audio.yaml'];

/** What a diagnostic is, short: the deprecations are expected of this corpus. */
const brief = (d: Diagnostic): string => `${d.severity}${d.code ? `(${d.code})` : ''} ${d.path}`;

function yamlFiles(): string[] {
  return readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

beforeAll(() => requireCorpus(CORPUS, "Pipecat's older release corpus"));

describe("Pipecat's older release corpus", () => {
  it('every scenario loads with zero errors, and no warning but the deprecated one-scenario shape', () => {
    const scenarios = yamlFiles().filter((f) => !FRAGMENTS.includes(f));
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    for (const f of scenarios) {
      const r = inspectFile(join(SCENARIOS, f));
      const diagnostics = r.status === 'loaded' ? r.loaded.warnings : r.diagnostics;
      const shape = r.status === 'loaded' && r.loaded.kind === 'simulation' ? 'persona' : 'turns';
      expect(diagnostics.map(brief), f).toEqual([`warning(deprecated) ${shape}`]);
      expect(r.status, f).toBe('loaded');
      expect(r.status === 'loaded' && r.scenario_file?.scenarios.map((s) => s.name), f).toEqual([
        f.replace(/\.yaml$/, ''),
      ]);
    }
  });

  it('a folder walk validates every scenario and skips exactly the three include fragments', () => {
    const results = validatePaths([SCENARIOS]);
    const skipped = results.filter((r) => r.status === 'skipped').map((r) => r.file);
    expect(skipped).toEqual(FRAGMENTS.map((f) => join(SCENARIOS, f)));
    expect(results.filter((r) => r.status === 'invalid')).toEqual([]);
  });

  it('the manifest validates (its bare runner_body: paths deprecated), and every scenario it names exists and loads', () => {
    const r = inspectFile(join(CORPUS, 'manifest.yaml'));
    const diagnostics = r.status === 'loaded' ? r.loaded.warnings : r.diagnostics;
    expect(new Set(diagnostics.map((d) => `${brief(d).replace(/\[\d+\]/, '[n]')}`))).toEqual(
      new Set(['warning(deprecated) suite[n].runner_body']),
    );
    const manifest = (r.status === 'loaded' ? r.loaded : undefined) as Manifest;
    expect(manifest.kind).toBe('manifest');
    expect(manifest.scenarios_dir).toBe(SCENARIOS);
    const vision = manifest.suite.find((e) => e.runner_body);
    expect(vision?.runner_body).toBe(join(SCENARIOS, 'vision-cat.json'));
    const files = new Set(manifest.suite.flatMap((e) => e.scenarios.map((s) => s.file)));
    for (const file of files) expect(inspectFile(file).status, file).toBe('loaded');
  });

  it('resolves Pipecat semantics: text-judge response becomes llm_response, images in the sibling assets folder, DTMF digits kept', () => {
    const image = inspectFile(join(SCENARIOS, 'describe_image.yaml'));
    const s = (image.status === 'loaded' ? image.loaded : undefined) as Scenario;
    expect(s.turns[1].image).toBe(join(CORPUS, 'assets', 'cat.jpg'));
    expect(s.turns[0].expect[0]).toMatchObject({ event: 'llm_response', declared_event: 'response' });
    const dtmf = inspectFile(join(SCENARIOS, 'dtmf_menu.yaml'));
    const d = (dtmf.status === 'loaded' ? dtmf.loaded : undefined) as Scenario;
    expect(d.turns.slice(1).map((t) => t.dtmf)).toEqual(['1#', '2', '3', '5551234567#']);
    const audio = inspectFile(join(SCENARIOS, 'language_switch_audio.yaml'));
    const a = (audio.status === 'loaded' ? audio.loaded : undefined) as Scenario;
    expect(a.turns[0].expect[0].event).toBe('tts_response');
    expect(a.turns[1].expect[0].event).toBe('response');
  });

  it('reads every file into the same data as PyYAML with Pipecat loader rules', () => {
    const files = [join(CORPUS, 'manifest.yaml'), ...yamlFiles().map((f) => join(SCENARIOS, f))];
    const pyyaml = pyyamlLoad(files);
    for (const f of files) expect(loadRawDocument(f), f).toEqual(pyyaml[f]);
  });

  it('the CLI validates the scenarios folder and the manifest with exit code 0', () => {
    expect(existsSync(CLI), `build first: npx tsc -p tsconfig.build.json (missing ${CLI})`).toBe(true);
    const folder = spawnSync(process.execPath, [CLI, 'validate', SCENARIOS], { encoding: 'utf8' });
    expect(folder.stderr).toBe('');
    expect(folder.status).toBe(0);
    const n = yamlFiles().length - 3;
    expect(folder.stdout).toContain(
      `\n${n} valid, 0 invalid (${n} scripted, 0 simulations, 0 manifests; ${n} files), 3 fragments skipped\n`,
    );
    const manifest = spawnSync(process.execPath, [CLI, 'validate', join(CORPUS, 'manifest.yaml')], {
      encoding: 'utf8',
    });
    expect(manifest.status).toBe(0);
    expect(manifest.stdout).toContain(
      '\n1 valid, 0 invalid (0 scripted, 0 simulations, 1 manifest; 1 file), 0 fragments skipped\n',
    );
  });
});
