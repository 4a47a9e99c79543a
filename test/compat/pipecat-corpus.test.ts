import { beforeAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { CLI, ROOT } from '../support/paths.js';
import { inspectFile, loadRawDocument, validatePaths, type Manifest, type Scenario } from '../../src/scenario/index.js';

/**
 * Pipecat's own release scenarios and manifest (BSD-2, kept outside this
 * repository) load unchanged: zero errors, zero warnings, the same data
 * PyYAML reads with Pipecat's loader rules, and the CLI agrees.
 */
const CORPUS = resolve(process.env.EARSHOT_COMPAT_DIR ?? join(ROOT, '..', 'shared', 'compat', 'pipecat-release-evals'));
const SCENARIOS = join(CORPUS, 'scenarios');
const FRAGMENTS = ['judge_audio.yaml', 'judge_text.yaml', 'user_audio.yaml'];

function yamlFiles(): string[] {
  return readdirSync(SCENARIOS)
    .filter((f) => f.endsWith('.yaml'))
    .sort();
}

beforeAll(() => {
  if (!existsSync(SCENARIOS) || !existsSync(join(CORPUS, 'manifest.yaml'))) {
    throw new Error(
      `Pipecat's release corpus was not found at ${CORPUS} (expected manifest.yaml and scenarios/). ` +
        'Set EARSHOT_COMPAT_DIR to the folder holding it (pipecat/scripts/release-evals).',
    );
  }
});

describe("Pipecat's release corpus", () => {
  it('every scenario loads with zero errors and zero warnings', () => {
    const scenarios = yamlFiles().filter((f) => !FRAGMENTS.includes(f));
    expect(scenarios.length).toBeGreaterThanOrEqual(30);
    for (const f of scenarios) {
      const r = inspectFile(join(SCENARIOS, f));
      const diagnostics = r.status === 'loaded' ? r.loaded.warnings : r.diagnostics;
      expect(diagnostics, f).toEqual([]);
      expect(r.status, f).toBe('loaded');
    }
  });

  it('a folder walk validates every scenario and skips exactly the three include fragments', () => {
    const results = validatePaths([SCENARIOS]);
    const skipped = results.filter((r) => r.status === 'skipped').map((r) => r.file);
    expect(skipped).toEqual(FRAGMENTS.map((f) => join(SCENARIOS, f)));
    expect(results.filter((r) => r.status === 'invalid')).toEqual([]);
  });

  it('the manifest validates, and every scenario it names exists and loads', () => {
    const r = inspectFile(join(CORPUS, 'manifest.yaml'));
    expect(r.status === 'loaded' ? r.loaded.warnings : r.diagnostics).toEqual([]);
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
    // Debian's python3-yaml serves /usr/bin/python3; a pyenv or venv python3 on PATH may have its own PyYAML.
    const python = ['python3', '/usr/bin/python3'].find((p) => spawnSync(p, ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0);
    if (!python) {
      throw new Error('this check needs python3 with PyYAML (Debian: apt-get install python3-yaml); scripts/install-deps.sh --test installs it');
    }
    const files = [join(CORPUS, 'manifest.yaml'), ...yamlFiles().map((f) => join(SCENARIOS, f))];
    const pyyaml = JSON.parse(execFileSync(python, [join(import.meta.dirname, 'pyyaml_load.py'), ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })) as Record<string, unknown>;
    for (const f of files) expect(loadRawDocument(f), f).toEqual(pyyaml[f]);
  });

  it('the CLI validates the scenarios folder and the manifest with exit code 0', () => {
    expect(existsSync(CLI), `build first: npx tsc -p tsconfig.build.json (missing ${CLI})`).toBe(true);
    const folder = spawnSync(process.execPath, [CLI, 'validate', SCENARIOS], { encoding: 'utf8' });
    expect(folder.stderr).toBe('');
    expect(folder.status).toBe(0);
    expect(folder.stdout).toContain(`${yamlFiles().length - 3} valid, 0 invalid, 3 skipped`);
    const manifest = spawnSync(process.execPath, [CLI, 'validate', join(CORPUS, 'manifest.yaml')], { encoding: 'utf8' });
    expect(manifest.status).toBe(0);
    expect(manifest.stdout).toContain('1 valid, 0 invalid, 0 skipped');
  });
});
