import { diagnosticAt, formatDiagnostic, type Diagnostic } from './diagnostics.js';
import { gaiaIdConflicts } from './gaia-ids.js';
import { inspectFile, locationOf, type Inspection, type LoadOptions } from './load.js';
import type { Manifest, ManifestScenarioRef, Runnable, SuiteEntry } from './types.js';

/**
 * A manifest's entries with every scenario their files hold (Pipecat's
 * `EvalManifest._runs`): an entry naming a file runs each scenario in it, and
 * one label may not run the same scenario twice. What a suite planner
 * multiplies by repeats, filters and shards.
 */

export interface ExpandedScenario {
  /** The manifest's reference to the file the scenario is in. */
  ref: ManifestScenarioRef;
  /** The scenario's name (`<file name>/<scenario name>`); the reference's display name when its file does not load. */
  id: string;
  /** The scenario, when its file loaded. */
  scenario?: Runnable;
}

export interface ExpandedEntry {
  /** Position in the manifest's `suite:`. */
  index: number;
  entry: SuiteEntry;
  /** Every scenario of every file the entry names, in manifest then file order. */
  scenarios: ExpandedScenario[];
}

export interface ManifestExpansion {
  manifest: Manifest;
  entries: ExpandedEntry[];
  /** Each scenario file the manifest names, inspected once, by absolute path. */
  files: Map<string, Inspection>;
  /**
   * Errors, located in the manifest: a named file that does not load (or is
   * not a scenario file), a label running one scenario twice. The scenario
   * files' own diagnostics are in `files`.
   */
  diagnostics: Diagnostic[];
}

export interface ExpandOptions extends LoadOptions {
  /** How to read a scenario file (validate passes its cached reader); default `inspectFile` with these options. */
  inspect?: (file: string) => Inspection;
}

export function expandManifest(manifest: Manifest, options: ExpandOptions = {}): ManifestExpansion {
  const files = new Map<string, Inspection>();
  const read = options.inspect ?? ((file: string) => inspectFile(file, options));
  const diagnostics: Diagnostic[] = [];
  const firstAt = new Map<string, string>();
  const entries = manifest.suite.map((entry, index): ExpandedEntry => {
    const scenarios: ExpandedScenario[] = [];
    entry.scenarios.forEach((ref, j) => {
      const where = `suite[${index}].scenarios[${j}]`;
      let r = files.get(ref.file);
      if (!r) {
        r = read(ref.file);
        files.set(ref.file, r);
      }
      const held = r.status === 'loaded' ? (r.scenario_file?.scenarios ?? []) : [];
      // A file that does not load still stands for one run, under the manifest's name for it, so the failure is
      // reported.
      const added: ExpandedScenario[] =
        held.length > 0 ? held.map((scenario) => ({ ref, id: scenario.name, scenario })) : [{ ref, id: ref.name }];
      if (held.length === 0) diagnostics.push(notLoading(manifest, where, ref, r));
      scenarios.push(...added);
      for (const s of added) {
        const key = JSON.stringify([entry.name, s.id]);
        const before = firstAt.get(key);
        if (before === undefined) firstAt.set(key, where);
        else {
          const message =
            `'${entry.name}' runs '${s.id}' ` + `twice (also from ${before}); give one of the entries a 'name:'`;
          diagnostics.push(diagnosticAt('error', locationOf(manifest, where), where, message));
        }
      }
    });
    return { index, entry, scenarios };
  });
  diagnostics.push(...idClashes(manifest, entries, diagnostics));
  return { manifest, entries, files, diagnostics };
}

/** GAIA ids are unique across a run: two files of the suite with one id clash, whichever entries run them. */
function idClashes(manifest: Manifest, entries: ExpandedEntry[], found: readonly Diagnostic[]): Diagnostic[] {
  const firstWhere = new Map<Runnable, string>();
  for (const e of entries)
    e.scenarios.forEach((s) => {
      const j = e.entry.scenarios.indexOf(s.ref);
      if (s.scenario && !firstWhere.has(s.scenario)) firstWhere.set(s.scenario, `suite[${e.index}].scenarios[${j}]`);
    });
  return gaiaIdConflicts([...firstWhere.keys()]).flatMap(({ scenario, diagnostic }) => {
    const where = firstWhere.get(scenario) as string;
    // The same label running both is already reported as running one scenario twice.
    if (found.some((d) => d.path === where)) return [];
    return [diagnosticAt('error', locationOf(manifest, where), where, `${formatDiagnostic(diagnostic)}`)];
  });
}

function notLoading(manifest: Manifest, where: string, ref: ManifestScenarioRef, r: Inspection): Diagnostic {
  const loc = locationOf(manifest, where);
  if (r.status === 'loaded')
    return diagnosticAt('error', loc, where, `${ref.ref} is a suite manifest, not a scenario file`);
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  const first = errors[0] ?? r.diagnostics[0];
  const why =
    r.status === 'fragment'
      ? 'is not a scenario file'
      : `does not load (${errors.length} error${errors.length === 1 ? '' : 's'})`;
  return diagnosticAt(
    'error',
    loc,
    where,
    `scenario file ${ref.ref} ${why}${first ? `: ${formatDiagnostic(first)}` : ''}`,
  );
}
