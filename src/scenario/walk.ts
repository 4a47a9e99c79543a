import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import type { CorpusCache } from './corpus.js';
import type { Diagnostic } from './diagnostics.js';
import { gaiaIdConflicts } from './gaia-ids.js';
import { inspectFile, type FileKind, type Inspection, type LoadOptions } from './load.js';
import { expandManifest } from './manifest-expand.js';
import type { RootCache } from './root.js';
import { SourceCache } from './source.js';
import type { LoadedFile, ScenarioCheck } from './types.js';

/** The outcome for one file of `earshot validate`. */
export interface FileValidation {
  file: string;
  status: 'valid' | 'invalid' | 'skipped';
  /** A scenario file, a manifest, an include fragment some input uses (skipped), or null: unreadable, or neither. */
  kind: FileKind | 'fragment' | null;
  /** Errors (invalid) and warnings of the whole file, each once. */
  diagnostics: Diagnostic[];
  /** The manifest, or the first scenario of a scenario file (for callers that take one; `scenarios` has them all). */
  loaded?: LoadedFile;
  /** A scenario file's scenarios, each checked on its own. */
  scenarios: ScenarioCheck[];
  /** For a fragment: the files that `!include` it or name it as a manifest's runner body. */
  used_by?: string[];
}

export interface ValidatePathsOptions
  extends Omit<LoadOptions, 'fallbackRoot' | 'rootCache' | 'sourceCache' | 'corpusCache'> {
  /** Stop collecting files beyond this many (a walk of a huge tree). Default 10000. */
  maxFiles?: number;
}

const YAML_FILE = /\.ya?ml$/i;
/** Folders a walk never enters: dependencies, VCS data, build output. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'coverage']);

/**
 * Validates files and folders as `earshot validate` does: folders are searched
 * recursively for *.yaml / *.yml (hidden files and folders, dependencies and
 * build output left out). A file that is neither a scenario file nor a manifest
 * is skipped only as an include fragment: a file that a scenario or manifest
 * among the inputs, or in the fragment's own folder tree, `!include`s or names
 * as its runner body. Any other such file is invalid, so nothing is passed over
 * silently (a misspelled `scenarios:` must not make a file vanish from CI). A
 * path that does not exist is a usage error.
 */
export function validatePaths(paths: readonly string[], options: ValidatePathsOptions = {}): FileValidation[] {
  const maxFiles = options.maxFiles ?? 10_000;
  const targets: { file: string; fallbackRoot: string }[] = [];
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
      for (const file of walkYaml(abs, maxFiles - targets.length)) targets.push({ file, fallbackRoot: abs });
    } else {
      targets.push({ file: abs, fallbackRoot: dirname(abs) });
    }
  }
  if (missing.length > 0) throw new UsageError(`no such file or directory: ${missing.join(', ')}`);

  const uses = new FragmentUses(options);
  const inspected: { file: string; r: Inspection }[] = [];
  for (const t of targets) {
    if (uses.has(t.file)) continue;
    inspected.push({ file: t.file, r: uses.inspect(t.file, t.fallbackRoot) });
  }
  return markDuplicateIds(inspected.map(({ file, r }) => toValidation(file, r, uses, maxFiles)));
}

/** GAIA ids are unique across all the scenarios of a run: a later file with an id already seen is invalid. */
function markDuplicateIds(results: FileValidation[]): FileValidation[] {
  const loaded = results.flatMap((r) => r.scenarios.flatMap((s) => (s.loaded ? [s.loaded] : [])));
  const clash = new Map(gaiaIdConflicts(loaded).map((c) => [c.scenario, c.diagnostic] as const));
  if (clash.size === 0) return results;
  return results.map((r) => {
    const found = r.scenarios.flatMap((s) => {
      const d = s.loaded && clash.get(s.loaded);
      return d ? [d] : [];
    });
    if (found.length === 0) return r;
    const scenarios = r.scenarios.map((s): ScenarioCheck => {
      const d = s.loaded && clash.get(s.loaded);
      return d ? withoutLoaded({ ...s, status: 'invalid', diagnostics: [d, ...s.diagnostics] }) : s;
    });
    return withoutLoaded({ ...r, status: 'invalid', diagnostics: [...found, ...r.diagnostics], scenarios });
  });
}

/** A copy without `loaded`: an invalid scenario or file hands nothing on to run. */
function withoutLoaded<T extends { loaded?: unknown }>(value: T): T {
  const copy = { ...value };
  delete copy.loaded;
  return copy;
}

function toValidation(file: string, r: Inspection, uses: FragmentUses, maxFiles: number): FileValidation {
  if (r.status === 'loaded' && r.loaded.kind === 'manifest') {
    // A manifest is only as good as the scenario files it runs, and one label may not run a scenario twice.
    const { diagnostics } = expandManifest(r.loaded, { inspect: (f) => uses.inspect(f, dirname(f)) });
    if (diagnostics.length > 0) {
      return {
        file,
        status: 'invalid',
        kind: 'manifest',
        diagnostics: [...r.loaded.warnings, ...diagnostics],
        scenarios: [],
      };
    }
  }
  if (r.status === 'loaded') {
    return {
      file,
      status: 'valid',
      kind: r.file_kind,
      diagnostics: r.scenario_file?.warnings ?? r.loaded.warnings,
      loaded: r.loaded,
      scenarios: r.checks,
    };
  }
  if (r.status === 'invalid')
    return { file, status: 'invalid', kind: r.file_kind, diagnostics: r.diagnostics, scenarios: r.checks };
  const usedBy = uses.usersOf(file, maxFiles);
  if (usedBy.length > 0)
    return { file, status: 'skipped', kind: 'fragment', diagnostics: [], scenarios: [], used_by: usedBy };
  const why = 'nothing among the inputs or in its folder includes it, so it is not an include fragment either';
  const diagnostics = r.diagnostics.map((d, i) =>
    i === 0 ? { ...d, severity: 'error' as const, message: `${d.message}; ${why}` } : d,
  );
  return { file, status: 'invalid', kind: null, diagnostics, scenarios: [] };
}

/**
 * Which files use which fragments: every inspected file's `!include`s, and the
 * runner bodies of the manifests. Loads are shared (one inspection per file,
 * parsed includes cached), and a fragment no input uses makes its own folder
 * tree be read once to look for a user there.
 */
class FragmentUses {
  private readonly rootCache: RootCache = new Map();
  private readonly sourceCache = new SourceCache();
  private readonly corpusCache: CorpusCache = new Map();
  private readonly done = new Map<string, Inspection>();
  private readonly users = new Map<string, Set<string>>();
  private readonly searched = new Set<string>();

  constructor(private readonly options: ValidatePathsOptions) {}

  has(file: string): boolean {
    return this.done.has(file);
  }

  inspect(file: string, fallbackRoot: string): Inspection {
    const known = this.done.get(file);
    if (known) return known;
    const r = inspectFile(file, {
      ...this.options,
      fallbackRoot,
      rootCache: this.rootCache,
      sourceCache: this.sourceCache,
      corpusCache: this.corpusCache,
    });
    this.done.set(file, r);
    const used = r.status === 'fragment' ? [] : [...r.named];
    if (r.status === 'loaded' && r.loaded.kind === 'manifest') {
      for (const e of r.loaded.suite) if (e.runner_body !== undefined) used.push(realpath(e.runner_body));
    }
    for (const u of used) {
      const set = this.users.get(u) ?? new Set<string>();
      set.add(file);
      this.users.set(u, set);
    }
    return r;
  }

  usersOf(file: string, maxFiles: number): string[] {
    const real = realpath(file);
    const dir = dirname(file);
    if (!this.users.has(real) && !this.searched.has(dir)) {
      this.searched.add(dir);
      for (const other of walkYaml(dir, maxFiles)) this.inspect(other, dir);
    }
    return [...(this.users.get(real) ?? [])].sort();
  }
}

function realpath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function walkYaml(dir: string, budget: number): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0 && out.length < budget) {
    const current = stack.pop() as string;
    let entries: Dirent[];
    try {
      entries = readdirSync(current, { withFileTypes: true });
    } catch {
      continue;
    }
    const subdirs: string[] = [];
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(current, e.name);
      // Symlinked folders are not followed: a link back up the tree would loop.
      if (e.name.startsWith('.')) continue; // hidden: editor and CI configuration, not scenarios
      if (e.isDirectory()) {
        if (!SKIPPED_DIRS.has(e.name)) subdirs.push(full);
      } else if ((e.isFile() || e.isSymbolicLink()) && YAML_FILE.test(e.name)) {
        out.push(full);
        if (out.length >= budget) break;
      }
    }
    stack.push(...subdirs.reverse());
  }
  return out.sort();
}
