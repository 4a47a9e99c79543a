import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import { DEFAULT_SPAWN } from './fields.js';
import { asRecord, type Normalizer } from './normalize.js';
import type { Manifest, ManifestScenarioRef, SuiteEntry } from './types.js';

/**
 * Suite manifests, Pipecat's format (`suite.py`). Paths resolve against the
 * manifest's folder, as Pipecat does, so a manifest is portable. Bots are not
 * checked (they often live in another checkout); scenario files and runner
 * bodies are, since a typo there would only surface mid-run. Which scenarios
 * each file holds is `expandManifest`'s job (manifest-expand.ts).
 */

export type ManifestBody = Omit<Manifest, 'file' | 'root' | 'includes' | 'warnings' | 'locations'>;

export function normalizeManifest(
  raw: Record<string, unknown>,
  n: Normalizer,
  overrides: { scenariosDir?: string } = {},
): ManifestBody {
  const base = dirname(n.file);
  const textOf = (key: string): string | undefined => (typeof raw[key] === 'string' ? (raw[key] as string) : undefined);
  const numOf = (key: string, fallback: number): number =>
    typeof raw[key] === 'number' ? (raw[key] as number) : fallback;
  const botsDir = resolve(base, textOf('bots_dir') ?? '.');
  // An override (`--scenarios-dir`) resolves against the working directory, as Pipecat's does.
  const scenariosDir =
    overrides.scenariosDir !== undefined
      ? resolve(overrides.scenariosDir)
      : resolve(base, textOf('scenarios_dir') ?? 'scenarios');
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
    const label = typeof entry.name === 'string' ? entry.name : entry.bot;
    const suiteEntry: SuiteEntry = {
      bot: entry.bot,
      bot_path: resolve(botsDir, entry.bot),
      name: label,
      scenarios: [],
    };
    if (typeof entry.concurrency === 'number') suiteEntry.concurrency = entry.concurrency;
    runnerBody(entry.runner_body, `${p}.runner_body`, base, n, suiteEntry);
    if (entry.handshake === 'rtvi' || entry.handshake === 'none') suiteEntry.handshake = entry.handshake;
    const scenarios = Array.isArray(entry.scenarios) ? entry.scenarios : [];
    if (scenarios.length === 0 && !n.hasErrorAt(`${p}.scenarios`))
      n.warn(p, `bot ${entry.bot} has no scenarios to run`);
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

/** `runner_body: {path: <file>}` or `{data: {...}}`, exactly one; a bare `runner_body: <file>` is deprecated. */
function runnerBody(value: unknown, p: string, base: string, n: Normalizer, out: SuiteEntry): void {
  if (value === undefined) return;
  let path: unknown;
  if (typeof value === 'string') {
    n.deprecated(
      p,
      "a bare 'runner_body: <file>' is deprecated in Pipecat's newest format; write 'runner_body: {path: <file>}'",
    );
    path = value;
  } else {
    const body = asRecord(value);
    if (!body) return;
    const keys = ['path', 'data'].filter((k) => body[k] !== undefined);
    if (keys.length !== 1) {
      if (!n.hasErrorAt(p))
        n.error(p, "'runner_body:' holds exactly one of 'path:' (a body file) or 'data:' (the body itself)");
      return;
    }
    path = body.path;
    const data = asRecord(body.data);
    if (data) out.runner_body_data = data;
  }
  if (typeof path !== 'string') return;
  const file = resolve(base, path);
  if (!isFile(file))
    n.error(typeof value === 'string' ? p : `${p}.path`, `runner body not found: ${path} (looked for ${file})`);
  out.runner_body = file;
}

/**
 * Pipecat's rule: a name ending in `.yaml`/`.yml` is a path from the manifest;
 * any other names a file under scenarios_dir with `.yaml` added, folder
 * allowed (`scripted/greeting`). Its display name is the bare stem either way.
 */
export function scenarioRef(ref: string, manifestDir: string, scenariosDir: string): ManifestScenarioRef {
  if (ref.endsWith('.yaml') || ref.endsWith('.yml')) {
    return { ref, name: basename(ref, extname(ref)), file: resolve(manifestDir, ref) };
  }
  return { ref, name: basename(ref), file: resolve(scenariosDir, `${ref}.yaml`) };
}

function isFile(path: string): boolean {
  try {
    return existsSync(path) && statSync(path).isFile();
  } catch {
    return false;
  }
}
