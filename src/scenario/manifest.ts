import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { DEFAULT_SPAWN } from './fields.js';
import { asRecord, type Normalizer } from './normalize.js';
import type { Manifest, ManifestScenarioRef, SuiteEntry } from './types.js';

/**
 * Suite manifests, Pipecat's format (`suite.py`). Paths resolve against the
 * manifest's folder, as Pipecat does, so a manifest is portable. Bots are not
 * checked (they often live in another checkout); scenarios and runner bodies
 * are, since a typo there would only surface mid-run.
 */

export type ManifestBody = Omit<Manifest, 'file' | 'root' | 'includes' | 'warnings' | 'locations'>;

export function normalizeManifest(raw: Record<string, unknown>, n: Normalizer): ManifestBody {
  const base = dirname(n.file);
  const textOf = (key: string): string | undefined => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  const numOf = (key: string, fallback: number): number => (typeof raw[key] === 'number' ? (raw[key] as number) : fallback);
  const botsDir = resolve(base, textOf('bots_dir') ?? '.');
  const scenariosDir = resolve(base, textOf('scenarios_dir') ?? 'scenarios');
  const manifest: ManifestBody = {
    kind: 'manifest',
    bots_dir: botsDir,
    scenarios_dir: scenariosDir,
    spawn: textOf('spawn') ?? DEFAULT_SPAWN,
    concurrency: numOf('concurrency', 4),
    repeat: numOf('repeat', 1),
    base_port: numOf('base_port', 7900),
    record: raw.record === true,
    suite: [],
  };
  const runsDir = textOf('runs_dir');
  if (runsDir) manifest.runs_dir = resolve(base, runsDir);
  const python = textOf('python');
  if (python) manifest.python = python;
  const cacheDir = textOf('cache_dir');
  if (cacheDir) manifest.cache_dir = cacheDir;

  (Array.isArray(raw.suite) ? raw.suite : []).forEach((item, i) => {
    const entry = asRecord(item);
    if (!entry || typeof entry.bot !== 'string') return;
    const p = `suite[${i}]`;
    const suiteEntry: SuiteEntry = { bot: entry.bot, bot_path: resolve(botsDir, entry.bot), scenarios: [] };
    if (typeof entry.runner_body === 'string') {
      const body = resolve(base, entry.runner_body);
      if (!isFile(body)) n.error(`${p}.runner_body`, `runner body not found: ${entry.runner_body} (looked for ${body})`);
      suiteEntry.runner_body = body;
    }
    if (entry.handshake === 'rtvi' || entry.handshake === 'none') suiteEntry.handshake = entry.handshake;
    const scenarios = Array.isArray(entry.scenarios) ? entry.scenarios : [];
    if (scenarios.length === 0 && !n.hasErrorAt(`${p}.scenarios`)) n.warn(p, `bot ${entry.bot} has no scenarios to run`);
    scenarios.forEach((s, j) => {
      if (typeof s !== 'string') return;
      const ref = scenarioRef(s, base, scenariosDir);
      if (!isFile(ref.file)) n.error(`${p}.scenarios[${j}]`, `scenario not found: ${s} (looked for ${ref.file})`);
      suiteEntry.scenarios.push(ref);
    });
    manifest.suite.push(suiteEntry);
  });
  return manifest;
}

/** Pipecat's rule: a `.yaml`/`.yml` or a name with `/` is a path from the manifest; a bare name lives in scenarios_dir. */
export function scenarioRef(ref: string, manifestDir: string, scenariosDir: string): ManifestScenarioRef {
  if (ref.endsWith('.yaml') || ref.endsWith('.yml') || ref.includes('/')) {
    return { ref, name: basename(ref, extname(ref)), file: resolve(manifestDir, ref) };
  }
  return { ref, name: ref, file: resolve(scenariosDir, `${ref}.yaml`) };
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
