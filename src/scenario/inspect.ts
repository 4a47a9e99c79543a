/**
 * Reading one file into an `Inspection`: what it is (scenario file, manifest or fragment), each scenario checked and
 * normalized, and its diagnostics in order. The loaders (load.ts) turn an inspection into a loaded file or a
 * ScenarioError.
 */
import { realpathSync } from 'node:fs';
import { basename, extname, resolve } from 'node:path';
import type { CorpusCache } from './corpus.js';
import { diagnosticAt, strictDiagnostics, type Diagnostic } from './diagnostics.js';
import { MANIFEST_SPEC, NEMO_SIMULATION_SPEC, SCRIPT_SPEC, SIMULATION_SPEC } from './file-fields.js';
import { normalizeNemoSimulation } from './nemo/yaml.js';
import { inspectGaiaFile } from './gaia.js';
import { isGaiaShape } from './gaia-shape.js';
import { normalizeManifest } from './manifest.js';
import { Normalizer } from './normalize.js';
import { findScenarioRoot, type RootCache } from './root.js';
import { isScenarioFileShape, missingScenarioMessage, splitScenarioFile, type RunnableKind } from './scenario-file.js';
import { normalizeScript } from './script.js';
import { normalizeSimulation } from './simulation.js';
import { normalizeTags } from './simulation-extensions.js';
import { DEFAULT_LIMITS, readYamlFile, type LoadLimits, type SourceCache } from './source.js';
import { check, INVALID, type CheckContext } from './spec.js';
import type { LoadedFile, Manifest, Runnable, ScenarioCheck, ScenarioFile } from './types.js';
import { entry, Expander, type YMap } from './ynode.js';

export interface LoadOptions {
  /** `within_ms` for expectations that set none (the CLI's --timeout). Default 60000. */
  defaultWithinMs?: number;
  /** Let `!include`, `image:` and `audio:` leave the scenario root (--allow-outside-root). */
  allowOutsideRoot?: boolean;
  /**
   * Root when no ancestor of the file is a project root: the folder named on the command line. Default: the file's
   * folder.
   */
  fallbackRoot?: string;
  limits?: Partial<LoadLimits>;
  /** Share root lookups across many loads (validatePaths passes one). */
  rootCache?: RootCache;
  /** Share parsed files (includes used by many scenarios) across many loads. */
  sourceCache?: SourceCache;
  /** --strict: every warning is an error, so a file with a misspelled key does not load. */
  strict?: boolean;
  /**
   * `--scenarios-dir`: a manifest's bare scenario names resolve here instead of its `scenarios_dir` (resolved against
   * the working directory).
   */
  scenariosDir?: string;
  /** `--corpus`: the GAIA corpus manifest; default the nearest `eval/corpus/manifest.json` up to the scenario root. */
  corpus?: string;
  /** Share corpus manifests across many loads (validatePaths passes one). */
  corpusCache?: CorpusCache;
}

export const DEFAULT_WITHIN_MS = 60_000;

/** What a file turned out to be: a scenario file, a manifest, or neither (a fragment some file may include). */
export type FileKind = 'scenarios' | 'manifest';

/**
 * The outcome of reading one file. `loaded` is the manifest, or the first
 * scenario of a scenario file (callers that take one); `scenario_file` has
 * them all, and `checks` says, scenario by scenario, what was found.
 * `includes` are the files pulled in; `named` every existing file an
 * `!include` named, refused ones too (what makes a file a fragment).
 */
export type Inspection =
  | {
      status: 'loaded';
      file: string;
      file_kind: FileKind;
      loaded: LoadedFile;
      scenario_file?: ScenarioFile;
      checks: ScenarioCheck[];
      includes: string[];
      named: string[];
    }
  | {
      status: 'invalid';
      file: string;
      file_kind: FileKind | null;
      diagnostics: Diagnostic[];
      checks: ScenarioCheck[];
      includes: string[];
      named: string[];
    }
  | { status: 'fragment'; file: string; diagnostics: Diagnostic[] };

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
  const finish = (d: Diagnostic[]): Diagnostic[] => sorted(file, options.strict ? strictDiagnostics(d) : d);
  if (!read.ok)
    return {
      status: 'invalid',
      file,
      file_kind: null,
      diagnostics: read.diagnostics,
      checks: [],
      includes: [],
      named: [],
    };

  const expander = new Expander({
    limits,
    root,
    allowOutsideRoot: options.allowOutsideRoot === true,
    sources: options.sourceCache,
  });
  const doc = expander.expand(read.source, real);
  const diagnostics = expander.diagnostics;
  const { includes, named } = expander;
  if (!doc)
    return { status: 'invalid', file, file_kind: null, diagnostics: finish(diagnostics), checks: [], includes, named };
  if (doc.kind !== 'map') {
    // A list or a value: not a scenario, but maybe a fragment (shared turns:, context:) some file includes.
    const what =
      doc.kind === 'scalar' && doc.type === 'null'
        ? 'empty file: nothing to load'
        : `the top level must be a mapping (name:, scenarios:, ...), ` +
          `got ${doc.kind === 'seq' ? 'a list' : 'a single value'}`;
    return { status: 'fragment', file, diagnostics: [diagnosticAt('error', doc.loc, '', what)] };
  }
  if (isGaiaShape(doc)) return inspectGaia(doc, file, root, options, expander, finish);
  const suite = entry(doc, 'suite');
  const scenarioKey = doc.entries.find((e) => e.key === 'scenarios' || e.key === 'turns' || e.key === 'persona');
  if (suite && scenarioKey) {
    diagnostics.push(
      diagnosticAt(
        'error',
        scenarioKey.keyLoc,
        scenarioKey.key,
        `a file is a scenario file ('${scenarioKey.key}:') or a suite manifest ('suite:'), not both`,
      ),
    );
    return { status: 'invalid', file, file_kind: null, diagnostics: finish(diagnostics), checks: [], includes, named };
  }
  if (suite) {
    const manifest = normalizeManifestFile(doc, file, root, options, diagnostics);
    const all = finish(diagnostics);
    if (!manifest || all.some((d) => d.severity === 'error'))
      return { status: 'invalid', file, file_kind: 'manifest', diagnostics: all, checks: [], includes, named };
    manifest.includes = includes;
    manifest.warnings = all;
    return { status: 'loaded', file, file_kind: 'manifest', loaded: manifest, checks: [], includes, named };
  }
  if (!isScenarioFileShape(doc)) {
    // Not a scenario file; a fragment if some file includes it (even one with a name:, such as a metric).
    const message = entry(doc, 'name')
      ? missingScenarioMessage(doc, false)
      : "not a scenario: a scenario file needs 'name:' and 'scenarios:' (or, deprecated, 'turns:' or 'persona:'), " +
        "a manifest 'suite:'";
    diagnostics.push(diagnosticAt('error', doc.loc, '', message));
    return { status: 'fragment', file, diagnostics: sorted(file, diagnostics) };
  }
  return inspectScenarioFile(doc, { file, root, options, includes, named, fileDiagnostics: diagnostics, finish });
}

function inspectGaia(
  doc: YMap,
  file: string,
  root: string,
  options: LoadOptions,
  expander: Expander,
  finish: (d: Diagnostic[]) => Diagnostic[],
): Inspection {
  const { includes, named } = expander;
  const g = inspectGaiaFile(doc, {
    file,
    root,
    allowOutsideRoot: options.allowOutsideRoot === true,
    corpus: options.corpus,
    corpusCache: options.corpusCache,
    limits: options.limits,
    defaultWithinMs: options.defaultWithinMs ?? DEFAULT_WITHIN_MS,
    includes,
    fileDiagnostics: expander.diagnostics,
    finish,
  });
  const common = { file, file_kind: 'scenarios' as const, checks: [g.check], includes, named };
  if (!g.scenario_file) return { status: 'invalid', ...common, diagnostics: g.diagnostics };
  return { status: 'loaded', ...common, loaded: g.scenario_file.scenarios[0], scenario_file: g.scenario_file };
}

interface ScenarioFileContext {
  file: string;
  root: string;
  options: LoadOptions;
  includes: string[];
  named: string[];
  fileDiagnostics: Diagnostic[];
  finish: (d: Diagnostic[]) => Diagnostic[];
}

function inspectScenarioFile(doc: YMap, c: ScenarioFileContext): Inspection {
  const split = splitScenarioFile(doc, basename(c.file, extname(c.file)));
  const maxNodes = c.options.limits?.maxNodes ?? DEFAULT_LIMITS.maxNodes;
  if (split.nodes > maxNodes) {
    // Defaults are checked once per scenario: a big default times many scenarios is a bomb of its own.
    const at = entry(doc, 'scenarios')?.keyLoc ?? doc.loc;
    const message =
      `the file-level defaults repeated over its ${split.parts.length} scenarios come to more than ${maxNodes} nodes ` +
      `(a YAML bomb?)`;
    return {
      status: 'invalid',
      file: c.file,
      file_kind: 'scenarios',
      diagnostics: [diagnosticAt('error', at, 'scenarios', message)],
      checks: [],
      includes: c.includes,
      named: c.named,
    };
  }
  const fileLevel = [...c.fileDiagnostics, ...split.diagnostics];
  const checks: ScenarioCheck[] = split.parts.map((part) => {
    const own = [...part.diagnostics];
    const loaded = part.kind
      ? normalizeRunnable(
          part.kind,
          part.map,
          c,
          own,
          { file_name: split.name ?? part.id, index: part.index },
          part.nemo,
        )
      : undefined;
    const diagnostics = c.finish([...fileLevel, ...own]);
    const ok = loaded !== undefined && !diagnostics.some((d) => d.severity === 'error');
    const check: ScenarioCheck = {
      id: part.id,
      file: c.file,
      kind: part.kind ?? null,
      status: ok ? 'valid' : 'invalid',
      diagnostics,
    };
    if (ok && loaded) {
      loaded.includes = c.includes;
      loaded.warnings = diagnostics;
      check.loaded = loaded;
    }
    return check;
  });
  if (checks.length === 0) {
    checks.push({
      id: split.name ?? basename(c.file, extname(c.file)),
      file: c.file,
      kind: null,
      status: 'invalid',
      diagnostics: c.finish(fileLevel),
    });
  }
  const all = c.finish(unique(checks.flatMap((k) => k.diagnostics)));
  const scenarios = checks.flatMap((k) => (k.loaded ? [k.loaded] : []));
  if (checks.some((k) => k.status === 'invalid') || scenarios.length === 0) {
    return {
      status: 'invalid',
      file: c.file,
      file_kind: 'scenarios',
      diagnostics: all,
      checks,
      includes: c.includes,
      named: c.named,
    };
  }
  const scenarioFile: ScenarioFile = {
    file: c.file,
    name: split.name ?? scenarios[0].name,
    format: split.format,
    scenarios,
    includes: c.includes,
    warnings: all,
  };
  return {
    status: 'loaded',
    file: c.file,
    file_kind: 'scenarios',
    loaded: scenarios[0],
    scenario_file: scenarioFile,
    checks,
    includes: c.includes,
    named: c.named,
  };
}

/** Each diagnostic once: a file-level default shared by several scenarios is reported once for the file. */
function unique(diagnostics: Diagnostic[]): Diagnostic[] {
  const seen = new Set<string>();
  return diagnostics.filter((d) => {
    const key = JSON.stringify([d.severity, d.file, d.line, d.col, d.path, d.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function normalizeManifestFile(
  doc: YMap,
  file: string,
  root: string,
  options: LoadOptions,
  diagnostics: Diagnostic[],
): Manifest | undefined {
  const ctx: CheckContext = { diagnostics, locations: {}, textStart: {} };
  const raw = check(doc, MANIFEST_SPEC, '', ctx);
  if (raw === INVALID || raw === null || typeof raw !== 'object') return undefined;
  const n = new Normalizer(file, root, options.allowOutsideRoot === true, ctx);
  const body = normalizeManifest(
    raw as Record<string, unknown>,
    n,
    options.scenariosDir !== undefined ? { scenariosDir: options.scenariosDir } : {},
  );
  return { ...body, file, root, includes: [], warnings: [], locations: ctx.locations };
}

function normalizeRunnable(
  kind: RunnableKind,
  map: YMap,
  c: ScenarioFileContext,
  diagnostics: Diagnostic[],
  meta: { file_name: string; index: number },
  nemo = false,
): Runnable | undefined {
  const ctx: CheckContext = { diagnostics, locations: {}, textStart: {} };
  const spec = kind === 'script' ? SCRIPT_SPEC : nemo ? NEMO_SIMULATION_SPEC : SIMULATION_SPEC;
  const raw = check(map, spec, '', ctx);
  if (raw === INVALID || raw === null || typeof raw !== 'object') return undefined;
  const fields = raw as Record<string, unknown>;
  const n = new Normalizer(c.file, c.root, c.options.allowOutsideRoot === true, ctx);
  const body =
    kind === 'script'
      ? normalizeScript(fields, n, c.options.defaultWithinMs ?? DEFAULT_WITHIN_MS)
      : nemo
        ? normalizeNemoSimulation(fields, n, meta.file_name)
        : normalizeSimulation(fields, n);
  const base = {
    file: c.file,
    root: c.root,
    includes: [] as string[],
    warnings: [] as Diagnostic[],
    ...meta,
    ...normalizeTags(fields),
  };
  const code = { requires_code: n.hooks.some((h) => h.runtime === 'node'), code_hooks: n.hooks };
  return { ...body, ...base, ...code, locations: ctx.locations } as Runnable;
}

/**
 * Beyond this many diagnostics per file the rest are summarized: a generated file can hold thousands of unknown keys.
 */
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
  shown.push({
    severity,
    file: last.file,
    line: last.line,
    col: last.col,
    path: '',
    message: `${rest.length} more problems not shown`,
  });
  return shown;
}
