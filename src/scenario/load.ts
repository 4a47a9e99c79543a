import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import { diagnosticAt, ScenarioError, type SourceLocation } from './diagnostics.js';
import { inspectFile, type LoadOptions } from './inspect.js';
import { nearestLocation } from './normalize.js';
import { findScenarioRoot } from './root.js';
import { DEFAULT_LIMITS, readYamlFile } from './source.js';
import type { GaiaSpec } from './gaia-types.js';
import type { LoadedFile, LoadedKind, Manifest, Scenario, ScenarioFile, Simulation } from './types.js';
import { Expander, toPlain, type YNode } from './ynode.js';

export { DEFAULT_WITHIN_MS, inspectFile, type FileKind, type Inspection, type LoadOptions } from './inspect.js';

/**
 * The document as plain data after `!include`s are spliced in and aliases expanded,
 * before any scenario rule: what PyYAML with Pipecat's loader would produce.
 */
export function loadRawDocument(path: string, options: LoadOptions = {}): unknown {
  return toPlain(loadYamlTree(path, options));
}

/**
 * The document as located nodes, with the loader's guarantees (size and alias
 * budgets, `!include` kept inside the scenario root, standard tags only), for
 * earshot's other YAML inputs (judge labels) to check with file:line:col errors.
 * Throws ScenarioError when the file cannot be read or parsed.
 */
export function loadYamlTree(path: string, options: LoadOptions = {}): YNode {
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
  return doc;
}

/**
 * Where a field of a loaded file was written (or its nearest written ancestor):
 * `locationOf(scenario, 'turns[2].expect[0]')` for a report pointing at a failed expectation.
 */
export function locationOf(loaded: Pick<LoadedFile, 'file' | 'locations'>, path: string): SourceLocation {
  return nearestLocation(loaded.locations, loaded.file, path);
}

/**
 * Loads a manifest, or a scenario file holding one scenario; throws
 * ScenarioError with every diagnostic when the file is not usable, or holds
 * several scenarios (load those with `loadScenarioFile`).
 */
export function loadFileSync(path: string, options: LoadOptions = {}): LoadedFile {
  const result = inspectFile(path, options);
  if (result.status !== 'loaded') throw new ScenarioError(result.file, result.diagnostics);
  const held = result.scenario_file?.scenarios ?? [];
  if (held.length > 1) {
    const names = held.map((s) => s.name).join(', ');
    throw new ScenarioError(result.file, [
      diagnosticAt(
        'error',
        locationOf(held[1], 'name'),
        'scenarios',
        `this file holds ${held.length} scenarios (${names}), where one is expected; ` +
          `load them all with loadScenarioFile()`,
      ),
    ]);
  }
  return result.loaded;
}

export async function loadFile(path: string, options: LoadOptions = {}): Promise<LoadedFile> {
  return loadFileSync(path, options);
}

/**
 * Every scenario of a scenario file, scripted and simulations alike, in file
 * order, with the file's warnings (print them before a run; `strict` makes
 * them errors). Throws ScenarioError when any scenario is invalid (as Pipecat
 * refuses the file), or the file is a manifest or a fragment.
 */
export function loadScenarioFile(path: string, options: LoadOptions = {}): ScenarioFile {
  const result = inspectFile(path, options);
  if (result.status !== 'loaded') throw new ScenarioError(result.file, result.diagnostics);
  if (!result.scenario_file) {
    throw new ScenarioError(result.file, [
      diagnosticAt(
        'error',
        { file: result.file, line: 1, col: 1 },
        '',
        "expected a scenario file ('scenarios:'), but this file is a suite manifest",
      ),
    ]);
  }
  return result.scenario_file;
}

function expectKind<K extends LoadedKind>(
  loaded: LoadedFile,
  kinds: readonly K[],
  what: string,
): Extract<LoadedFile, { kind: K }> {
  if ((kinds as readonly string[]).includes(loaded.kind)) return loaded as Extract<LoadedFile, { kind: K }>;
  const names: Record<LoadedKind, string> = {
    script: 'a scripted scenario',
    simulation: 'a simulation',
    manifest: 'a suite manifest',
  };
  throw new ScenarioError(loaded.file, [
    diagnosticAt(
      'error',
      { file: loaded.file, line: 1, col: 1 },
      '',
      `expected ${what}, but this file is ${names[loaded.kind]}`,
    ),
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

/** An AMD GAIA scenario file: a scripted scenario with its `gaia` block (gaia-types.ts). */
export async function loadGaiaScenario(
  path: string,
  options: LoadOptions = {},
): Promise<Scenario & { gaia: GaiaSpec }> {
  const scenario = expectKind(loadFileSync(path, options), ['script'], "an AMD GAIA scenario ('id:', 'setup:')");
  if (scenario.gaia) return scenario as Scenario & { gaia: GaiaSpec };
  throw new ScenarioError(scenario.file, [
    diagnosticAt(
      'error',
      { file: scenario.file, line: 1, col: 1 },
      '',
      "expected an AMD GAIA scenario ('id:', 'setup:', turns with 'objective:'), but this file is a scripted scenario",
    ),
  ]);
}
