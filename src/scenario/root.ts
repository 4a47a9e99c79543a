import { closeSync, constants, existsSync, fstatSync, openSync, readdirSync, readSync, realpathSync } from 'node:fs';
import { dirname, join, sep } from 'node:path';

/**
 * The scenario root (docs/architecture.md §10): the project a scenario belongs to, which
 * `!include`, `image:` and `audio:` may not leave unless the user allows it.
 * It is the nearest ancestor folder of the file holding a suite manifest (a
 * YAML file with a top-level `suite:` key), a `package.json` or `.git`;
 * failing that, the folder given on the command line, or the file's own folder.
 */

/** Memo of folder → "is a project root" answers, shared by the loads of one validate run. */
export type RootCache = Map<string, boolean>;

const MANIFEST_KEY = /^suite[ \t]*:/m;
const MAX_YAML_FILES_SCANNED = 64;
const MANIFEST_PROBE_BYTES = 64 * 1024;

export function isInside(root: string, path: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

function safeRealpath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

export function isProjectRoot(dir: string, cache?: RootCache): boolean {
  const known = cache?.get(dir);
  if (known !== undefined) return known;
  const answer = existsSync(join(dir, 'package.json')) || existsSync(join(dir, '.git')) || holdsSuiteManifest(dir);
  cache?.set(dir, answer);
  return answer;
}

function holdsSuiteManifest(dir: string): boolean {
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.yaml') || n.endsWith('.yml'));
  } catch {
    return false;
  }
  const buffer = Buffer.alloc(MANIFEST_PROBE_BYTES);
  for (const name of names.slice(0, MAX_YAML_FILES_SCANNED)) {
    let fd: number | undefined;
    try {
      fd = openSync(join(dir, name), constants.O_RDONLY | constants.O_NONBLOCK);
      if (!fstatSync(fd).isFile()) continue;
      const n = readSync(fd, buffer, 0, buffer.length, 0);
      if (MANIFEST_KEY.test(buffer.subarray(0, n).toString('utf8'))) return true;
    } catch {
      // Unreadable or not a file: not a manifest.
    } finally {
      if (fd !== undefined) closeSync(fd);
    }
  }
  return false;
}

/** Realpath of the root for `file`; `fallbackDir` is used when no ancestor is a project root. */
export function findScenarioRoot(file: string, fallbackDir?: string, cache?: RootCache): string {
  let dir = dirname(safeRealpath(file));
  for (;;) {
    if (isProjectRoot(dir, cache)) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return safeRealpath(fallbackDir ?? dirname(file));
}
