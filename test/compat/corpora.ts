import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { CLI, ROOT } from '../support/paths.js';

/**
 * Where Pipecat's corpora live (BSD-2, kept outside this repository):
 * `$EARSHOT_COMPAT_DIR`, or `../shared/compat` beside the checkout, holds
 * `pipecat-release-evals/` (the older release evals: top-level `turns:`) and
 * `pipecat-evals-newest/` (the 1.11 `scenarios:` lists). `$EARSHOT_COMPAT_DIR`
 * may also name the older corpus itself, as it used to.
 */

function compatDir(): string {
  return resolve(process.env.EARSHOT_COMPAT_DIR ?? join(ROOT, '..', 'shared', 'compat'));
}

export function olderCorpus(): string {
  const dir = compatDir();
  return existsSync(join(dir, 'manifest.yaml')) ? dir : join(dir, 'pipecat-release-evals');
}

export function newestCorpus(): string {
  const dir = compatDir();
  return existsSync(join(dir, 'manifest.yaml'))
    ? join(dirname(dir), 'pipecat-evals-newest')
    : join(dir, 'pipecat-evals-newest');
}

export function requireCorpus(dir: string, what: string): void {
  if (!existsSync(join(dir, 'scenarios')) || !existsSync(join(dir, 'manifest.yaml'))) {
    throw new Error(
      `${what} was not found at ${dir} (expected manifest.yaml and scenarios/). ` +
        'Set EARSHOT_COMPAT_DIR to the folder holding pipecat-release-evals/ and pipecat-evals-newest/.',
    );
  }
}

export { CLI };

/** Python with PyYAML: Debian's python3-yaml serves /usr/bin/python3; a pyenv or venv python3 on PATH may have its own. */
function pythonWithYaml(): string {
  const python = ['python3', '/usr/bin/python3'].find(
    (p) => spawnSync(p, ['-c', 'import yaml'], { encoding: 'utf8' }).status === 0,
  );
  if (!python)
    throw new Error(
      'this check needs python3 with PyYAML (Debian: apt-get install python3-yaml); scripts/install-deps.sh --test installs it',
    );
  return python;
}

/** Every file as PyYAML reads it with Pipecat's loader rules, by path. */
export function pyyamlLoad(files: string[]): Record<string, unknown> {
  const script = join(import.meta.dirname, 'pyyaml_load.py');
  return JSON.parse(
    execFileSync(pythonWithYaml(), [script, ...files], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }),
  ) as Record<string, unknown>;
}
