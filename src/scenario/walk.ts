import { readdirSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { Diagnostic } from './diagnostics.js';
import { inspectFile, type LoadOptions } from './load.js';
import type { RootCache } from './root.js';
import { SourceCache } from './source.js';
import type { LoadedFile } from './types.js';

/** The outcome for one file of `earshot validate`. */
export interface FileValidation {
  file: string;
  status: 'valid' | 'invalid' | 'skipped';
  /** Errors (invalid) and warnings; for skipped files, why it was skipped. */
  diagnostics: Diagnostic[];
  loaded?: LoadedFile;
}

export interface ValidatePathsOptions extends Omit<LoadOptions, 'fallbackRoot' | 'rootCache' | 'sourceCache'> {
  /** Stop collecting files beyond this many (a walk of a huge tree). Default 10000. */
  maxFiles?: number;
}

const YAML_FILE = /\.ya?ml$/i;
/** Folders a walk never enters: dependencies, VCS data, build output. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

/**
 * Validates files and folders as `earshot validate` does: folders are searched
 * recursively for *.yaml / *.yml; a file found by the walk that is neither a
 * scenario, a simulation nor a manifest is skipped (an include fragment), while
 * the same file named explicitly is invalid. A path that does not exist is a
 * usage error.
 */
export function validatePaths(paths: readonly string[], options: ValidatePathsOptions = {}): FileValidation[] {
  const maxFiles = options.maxFiles ?? 10_000;
  const targets: { file: string; explicit: boolean; fallbackRoot: string }[] = [];
  const missing: string[] = [];
  for (const p of paths) {
    const abs = resolve(p);
    let isDir: boolean;
    try {
      isDir = statSync(abs).isDirectory();
    } catch {
      missing.push(p);
      continue;
    }
    if (isDir) {
      for (const file of walkYaml(abs, maxFiles - targets.length)) targets.push({ file, explicit: false, fallbackRoot: abs });
    } else {
      targets.push({ file: abs, explicit: true, fallbackRoot: dirname(abs) });
    }
  }
  if (missing.length > 0) throw new UsageError(`no such file or directory: ${missing.join(', ')}`);

  const rootCache: RootCache = new Map();
  const sourceCache = new SourceCache();
  const seen = new Set<string>();
  const results: FileValidation[] = [];
  for (const t of targets) {
    if (seen.has(t.file)) continue;
    seen.add(t.file);
    const r = inspectFile(t.file, { ...options, fallbackRoot: t.fallbackRoot, rootCache, sourceCache });
    if (r.status === 'loaded') {
      results.push({ file: r.file, status: 'valid', diagnostics: r.loaded.warnings, loaded: r.loaded });
    } else if (r.status === 'fragment' && !t.explicit) {
      results.push({ file: r.file, status: 'skipped', diagnostics: r.diagnostics.map((d) => ({ ...d, severity: 'warning' })) });
    } else {
      results.push({ file: r.file, status: 'invalid', diagnostics: r.diagnostics });
    }
  }
  return results;
}

function walkYaml(dir: string, budget: number): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0 && out.length < budget) {
    const current = stack.pop() as string;
    let entries;
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    const subdirs: string[] = [];
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(current, e.name);
      // Symlinked folders are not followed: a link back up the tree would loop.
      if (e.isDirectory()) {
        if (!e.name.startsWith('.') && !SKIPPED_DIRS.has(e.name)) subdirs.push(full);
      } else if ((e.isFile() || e.isSymbolicLink()) && YAML_FILE.test(e.name)) {
        out.push(full);
        if (out.length >= budget) break;
      }
    }
    stack.push(...subdirs.reverse());
  }
  return out.sort();
}
