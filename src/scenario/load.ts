import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnosticAt, ScenarioError, type Diagnostic, type SourceLocation } from './diagnostics.js';
import { MANIFEST_SPEC, SCRIPT_SPEC, SIMULATION_SPEC } from './fields.js';
import { normalizeManifest } from './manifest.js';
import { nearestLocation, Normalizer } from './normalize.js';
import { findScenarioRoot, type RootCache } from './root.js';
import { normalizeScript } from './script.js';
import { normalizeSimulation } from './simulation.js';
import { DEFAULT_LIMITS, readYamlFile, type LoadLimits, type SourceCache } from './source.js';
import { check, INVALID, type CheckContext } from './spec.js';
import type { LoadedFile, LoadedKind, Manifest, Scenario, Simulation } from './types.js';
import { Expander, toPlain, type YMap } from './ynode.js';

export interface LoadOptions {
  /** `within_ms` for expectations that set none (the CLI's --timeout). Default 60000. */
  defaultWithinMs?: number;
  /** Let `!include`, `image:` and `audio:` leave the scenario root (--allow-outside-root). */
  allowOutsideRoot?: boolean;
  /** Root when no ancestor of the file is a project root: the folder named on the command line. Default: the file's folder. */
  fallbackRoot?: string;
  limits?: Partial<LoadLimits>;
  /** Share root lookups across many loads (validatePaths passes one). */
  rootCache?: RootCache;
  /** Share parsed files (includes used by many scenarios) across many loads. */
  sourceCache?: SourceCache;
}

export const DEFAULT_WITHIN_MS = 60_000;

/** What a file turned out to be: loaded, invalid, or a fragment with none of turns:/persona:/suite:. */
export type Inspection =
  | { status: 'loaded'; file: string; loaded: LoadedFile }
  | { status: 'invalid'; file: string; diagnostics: Diagnostic[] }
  | { status: 'fragment'; file: string; diagnostics: Diagnostic[] };

const KIND_KEYS = { turns: 'script', persona: 'simulation', suite: 'manifest' } as const;

export function inspectFile(path: string, options: LoadOptions = {}): Inspection {
  const file = resolve(path);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  let real: string;
  try {
    real = realpathSync.native(file);
  } catch {
    real = file;
  }
  const root = findScenarioRoot(file, options.fallbackRoot, options.rootCache);
  const read = options.sourceCache ? options.sourceCache.read(file, limits) : readYamlFile(file, limits);
  if (!read.ok) return { status: 'invalid', file, diagnostics: read.diagnostics };

  const expander = new Expander({ limits, root, allowOutsideRoot: options.allowOutsideRoot === true, sources: options.sourceCache });
  const doc = expander.expand(read.source, real);
  const diagnostics = expander.diagnostics;
  if (!doc) return { status: 'invalid', file, diagnostics: sorted(file, diagnostics) };
  if (doc.kind !== 'map') {
    if (doc.kind === 'scalar' && doc.type === 'null') {
      return { status: 'fragment', file, diagnostics: [diagnosticAt('error', doc.loc, '', 'empty file: nothing to load')] };
    }
    diagnostics.push(diagnosticAt('error', doc.loc, '', `the top level must be a mapping (name:, turns:, ...), got ${doc.kind === 'seq' ? 'a list' : 'a single value'}`));
    return { status: 'invalid', file, diagnostics: sorted(file, diagnostics) };
  }
  const kinds = doc.entries.filter((e) => e.key in KIND_KEYS);
  if (kinds.length === 0) {
    diagnostics.push(
      diagnosticAt('error', doc.loc, '', "not a scenario: a scenario file needs 'turns:' (scripted), 'persona:' (a simulation) or 'suite:' (a manifest)"),
    );
    return { status: 'fragment', file, diagnostics: sorted(file, diagnostics) };
  }
  if (kinds.length > 1) {
    const keys = kinds.map((e) => `'${e.key}:'`).join(' and ');
    diagnostics.push(diagnosticAt('error', kinds[1].keyLoc, kinds[1].key, `a file is a scripted scenario ('turns:'), a simulation ('persona:') or a manifest ('suite:'), not several: found ${keys}`));
    return { status: 'invalid', file, diagnostics: sorted(file, diagnostics) };
  }
  const kind = KIND_KEYS[kinds[0].key as keyof typeof KIND_KEYS];
  const loaded = normalize(kind, doc, file, root, options, diagnostics);
  const all = sorted(file, diagnostics);
  if (!loaded || all.some((d) => d.severity === 'error')) return { status: 'invalid', file, diagnostics: all };
  loaded.includes = expander.includes;
  loaded.warnings = all;
  return { status: 'loaded', file, loaded };
}

function normalize(kind: LoadedKind, doc: YMap, file: string, root: string, options: LoadOptions, diagnostics: Diagnostic[]): LoadedFile | undefined {
  const ctx: CheckContext = { diagnostics, locations: {}, textStart: {} };
  const spec = kind === 'script' ? SCRIPT_SPEC : kind === 'simulation' ? SIMULATION_SPEC : MANIFEST_SPEC;
  const raw = check(doc, spec, '', ctx);
  if (raw === INVALID || raw === null || typeof raw !== 'object') return undefined;
  const fields = raw as Record<string, unknown>;
  const n = new Normalizer(file, root, options.allowOutsideRoot === true, ctx);
  const base = { file, root, includes: [] as string[], warnings: [] as Diagnostic[] };
  if (kind === 'manifest') {
    const body = normalizeManifest(fields, n);
    const manifest: Manifest = { ...body, ...base, locations: ctx.locations };
    return manifest;
  }
  const withinMs = options.defaultWithinMs ?? DEFAULT_WITHIN_MS;
  const body = kind === 'script' ? normalizeScript(fields, n, withinMs) : normalizeSimulation(fields, n);
  const code = { requires_code: n.hooks.length > 0, code_hooks: n.hooks };
  return { ...body, ...base, ...code, locations: ctx.locations } as Scenario | Simulation;
}

/** Beyond this many diagnostics per file the rest are summarized: a generated file can hold thousands of unknown keys. */
const MAX_DIAGNOSTICS = 200;

function sorted(file: string, diagnostics: Diagnostic[]): Diagnostic[] {
  const all = diagnostics
    .map((d, i) => ({ d, i }))
    .sort((a, b) => {
      const fa = a.d.file === file ? 0 : 1;
      const fb = b.d.file === file ? 0 : 1;
      return fa - fb || a.d.file.localeCompare(b.d.file) || a.d.line - b.d.line || a.d.col - b.d.col || a.i - b.i;
    })
    .map((x) => x.d);
  if (all.length <= MAX_DIAGNOSTICS) return all;
  const shown = all.slice(0, MAX_DIAGNOSTICS);
  const rest = all.slice(MAX_DIAGNOSTICS);
  const last = shown[shown.length - 1];
  const severity = rest.some((d) => d.severity === 'error') ? 'error' : 'warning';
  shown.push({ severity, file: last.file, line: last.line, col: last.col, path: '', message: `${rest.length} more problems not shown` });
  return shown;
}

/**
 * The document as plain data after `!include`s are spliced in and aliases expanded,
 * before any scenario rule: what PyYAML with Pipecat's loader would produce.
 */
export function loadRawDocument(path: string, options: LoadOptions = {}): unknown {
  const file = resolve(path);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const root = findScenarioRoot(file, options.fallbackRoot, options.rootCache);
  const read = readYamlFile(file, limits);
  if (!read.ok) throw new ScenarioError(file, read.diagnostics);
  const expander = new Expander({ limits, root, allowOutsideRoot: options.allowOutsideRoot === true });
  let real = file;
  try {
    real = realpathSync.native(file);
  } catch {
    // Keep the path as given.
  }
  const doc = expander.expand(read.source, real);
  if (!doc) throw new ScenarioError(file, expander.diagnostics);
  return toPlain(doc);
}

/**
 * Where a field of a loaded file was written (or its nearest written ancestor):
 * `locationOf(scenario, 'turns[2].expect[0]')` for a report pointing at a failed expectation.
 */
export function locationOf(loaded: Pick<LoadedFile, 'file' | 'locations'>, path: string): SourceLocation {
  return nearestLocation(loaded.locations, loaded.file, path);
}

/** Loads any of the three kinds; throws ScenarioError with every diagnostic when the file is not usable. */
export function loadFileSync(path: string, options: LoadOptions = {}): LoadedFile {
  const result = inspectFile(path, options);
  if (result.status === 'loaded') return result.loaded;
  throw new ScenarioError(result.file, result.diagnostics);
}

export async function loadFile(path: string, options: LoadOptions = {}): Promise<LoadedFile> {
  return loadFileSync(path, options);
}

function expectKind<K extends LoadedKind>(loaded: LoadedFile, kinds: readonly K[], what: string): Extract<LoadedFile, { kind: K }> {
  if ((kinds as readonly string[]).includes(loaded.kind)) return loaded as Extract<LoadedFile, { kind: K }>;
  const names: Record<LoadedKind, string> = { script: 'a scripted scenario', simulation: 'a simulation', manifest: 'a suite manifest' };
  throw new ScenarioError(loaded.file, [
    diagnosticAt('error', { file: loaded.file, line: 1, col: 1 }, '', `expected ${what}, but this file is ${names[loaded.kind]}`),
  ]);
}

export async function loadScenario(path: string, options: LoadOptions = {}): Promise<Scenario> {
  return expectKind(loadFileSync(path, options), ['script'], "a scripted scenario ('turns:')");
}

export async function loadSimulation(path: string, options: LoadOptions = {}): Promise<Simulation> {
  return expectKind(loadFileSync(path, options), ['simulation'], "a simulation ('persona:')");
}

/** A scripted scenario or a simulation: what `earshot run` and a manifest's `scenarios:` accept. */
export async function loadRunnable(path: string, options: LoadOptions = {}): Promise<Scenario | Simulation> {
  return expectKind(loadFileSync(path, options), ['script', 'simulation'], "a scenario ('turns:' or 'persona:')");
}

export async function loadManifest(path: string, options: LoadOptions = {}): Promise<Manifest> {
  return expectKind(loadFileSync(path, options), ['manifest'], "a suite manifest ('suite:')");
}
