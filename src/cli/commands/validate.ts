import type { Command } from 'commander';
import { Redactor } from '../../core/redact.js';
import { UsageError } from '../../core/errors.js';
import {
  displayPath,
  formatDiagnostic,
  validatePaths,
  type Diagnostic,
  type FileValidation,
} from '../../scenario/index.js';
import { matchesFilter, validateScenarioModules, type RunnableFilter } from '../../runner/index.js';
import { isCodeModulePath } from '../../core/module-import.js';
import type { ScenarioSeverity } from '../../scenario/index.js';
import type { CliCommand } from '../command.js';
import { addFilterFlags, filterOf } from '../session-flags.js';

interface ValidateFlags {
  json?: boolean;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  domain?: string[];
  scenarios?: string[];
  strict?: boolean;
  corpus?: string;
  category?: string[];
  severity?: ScenarioSeverity[];
}

/** `earshot validate <files-or-dirs...>`: exit 0 when every file is valid, 1 when any is invalid, 2 on usage errors. */
export const validateCommand: CliCommand = {
  name: 'validate',
  register(program: Command): void {
    const command = program
      .command('validate')
      .description(
        'Check scenario files, simulations, AMD GAIA scenarios and suite manifests (folders are searched for ' +
          '*.yaml / *.yml)',
      )
      .argument('<paths...>', 'files or folders')
      .option(
        '--json',
        'print one JSON array: an object per scenario (normalized: includes resolved, defaults filled in), per ' +
          'manifest and per other file',
      )
      .option('--allow-outside-root', 'let !include, image: and audio: reach outside the scenario root')
      .option('--allow-code', 'import the NeMo scenario modules named (.ts, .mts, .js, .mjs): they run their code')
      .option('--strict', 'treat every warning as an error')
      .option(
        '--corpus <manifest.json>',
        "GAIA scenarios' corpus manifest (default: the nearest eval/corpus/manifest.json)",
      );
    addFilterFlags(command).action(async (paths: string[], flags: ValidateFlags) => {
      const modules = paths.filter(isCodeModulePath);
      const files = paths.filter((p) => !isCodeModulePath(p));
      const fromModules = await validateScenarioModules(modules, { allowCode: flags.allowCode === true });
      const fromFiles = files.length
        ? validatePaths(files, {
            allowOutsideRoot: flags.allowOutsideRoot === true,
            strict: flags.strict === true,
            ...(flags.corpus !== undefined ? { corpus: flags.corpus } : {}),
          })
        : [];
      const all = [...fromModules, ...fromFiles];
      if (all.length === 0) throw new UsageError(`no .yaml or .yml files found in ${paths.join(', ')}`);
      const filter = filterOf(flags);
      const results = filter ? selected(all, filter) : all;
      process.stdout.write(flags.json ? jsonReport(results) : humanReport(results, process.cwd()));
      process.exitCode = results.some((r) => r.status === 'invalid') ? 1 : 0;
    });
  },
};

/**
 * `--category` / `--severity`: a scenario file's scenarios that match (one
 * that did not load is kept, its errors are the point), and the files left
 * with none dropped; manifests and fragments stay.
 */
function selected(results: FileValidation[], filter: RunnableFilter): FileValidation[] {
  return results.flatMap((r) => {
    if (r.kind !== 'scenarios' || r.scenarios.length === 0) return [r];
    const kept = r.scenarios.filter((s) => !s.loaded || matchesFilter(s.loaded, filter));
    return kept.length ? [{ ...r, scenarios: kept }] : [];
  });
}

/** Counts for the last line: scenarios (and manifests) valid or invalid, and the fragments skipped. */
function counts(results: FileValidation[]): string {
  let valid = 0;
  let invalid = 0;
  let scripted = 0;
  let gaia = 0;
  let simulations = 0;
  let manifests = 0;
  let fragments = 0;
  for (const r of results) {
    if (r.status === 'skipped') fragments++;
    else if (r.kind === 'scenarios') {
      for (const s of r.scenarios) {
        if (s.status === 'valid') {
          valid++;
          if (s.format === 'gaia') gaia++;
          else if (s.kind === 'script') scripted++;
          else simulations++;
        } else invalid++;
      }
    } else if (r.status === 'valid') {
      valid++;
      manifests++;
    } else invalid++;
  }
  const files = results.filter((r) => r.status !== 'skipped').length;
  const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;
  const parts = [
    `${scripted} scripted`,
    ...(gaia > 0 ? [`${gaia} GAIA`] : []),
    plural(simulations, 'simulation'),
    plural(manifests, 'manifest'),
  ].join(', ');
  return (
    `${valid} valid, ${invalid} invalid (${parts}; ${plural(files, 'file')}), ` +
    `${plural(fragments, 'fragment')} skipped`
  );
}

function humanReport(results: FileValidation[], cwd: string): string {
  const lines: string[] = [];
  for (const r of results) {
    const file = displayPath(r.file, cwd);
    if (r.status === 'skipped') {
      const users = r.used_by ?? [];
      const first = users[0] ? displayPath(users[0], cwd) : '';
      const more = users.length > 1 ? ` and ${users.length - 1} more` : '';
      lines.push(`skipped  ${file} (include fragment, used by ${first}${more})`);
      continue;
    }
    lines.push(`${r.status.padEnd(8)} ${file}${summary(r)}`);
    for (const line of diagnosticLines(r, cwd)) lines.push(`  ${line}`);
  }
  lines.push('', counts(results));
  return `${lines.join('\n')}\n`;
}

/** `(manifest)`, `(script: greeting)`, `(3 scripted, 1 simulation: voicemail/a, ...)`. */
function summary(r: FileValidation): string {
  if (r.kind === 'manifest') return ' (manifest)';
  if (r.kind !== 'scenarios' || !r.scenarios.some((s) => s.kind)) return '';
  if (r.scenarios.length === 1 && r.scenarios[0].format === 'gaia') return ` (GAIA: ${r.scenarios[0].id})`;
  if (r.scenarios.length === 1 && r.scenarios[0].kind) return ` (${r.scenarios[0].kind}: ${r.scenarios[0].id})`;
  const scripted = r.scenarios.filter((s) => s.kind === 'script').length;
  const sims = r.scenarios.filter((s) => s.kind === 'simulation').length;
  const kinds = [scripted ? `${scripted} scripted` : '', sims ? `${sims} simulation${sims > 1 ? 's' : ''}` : '']
    .filter(Boolean)
    .join(', ');
  return ` (${kinds || `${r.scenarios.length} scenarios`}: ${r.scenarios.map((s) => s.id).join(', ')})`;
}

/** Each problem once; one that only some scenarios of a file have names them. */
function diagnosticLines(r: FileValidation, cwd: string): string[] {
  const whose = new Map<string, string[]>();
  const key = (d: Diagnostic): string => JSON.stringify([d.severity, d.file, d.line, d.col, d.path, d.message]);
  for (const s of r.scenarios) for (const d of s.diagnostics) whose.set(key(d), [...(whose.get(key(d)) ?? []), s.id]);
  return r.diagnostics.map((d) => {
    const ids = whose.get(key(d)) ?? [];
    const only =
      r.scenarios.length > 1 && ids.length > 0 && ids.length < r.scenarios.length ? ` [${ids.join(', ')}]` : '';
    return `${formatDiagnostic(d, { cwd })}${only}`;
  });
}

/**
 * One object per scenario: `id`, `file`, `kind` (script | simulation),
 * `status`, `diagnostics`, and the normalized model (source locations left
 * out); one per manifest (`kind: "manifest"`), per fragment (`"fragment"`)
 * and per file that is none of these (`kind: null`).
 */
function jsonReport(results: FileValidation[]): string {
  const entries = results.flatMap((r): Record<string, unknown>[] => {
    if (r.kind === 'scenarios' && r.scenarios.length > 0) {
      return r.scenarios.map((s) => {
        const model = s.loaded ? withoutSourceMaps(s.loaded) : {};
        const format = s.format ? { format: s.format } : {};
        return {
          ...model,
          id: s.id,
          file: s.file,
          kind: s.kind,
          ...format,
          status: s.status,
          diagnostics: s.diagnostics,
        };
      });
    }
    if (r.loaded) return [{ ...withoutSourceMaps(r.loaded), id: r.file, status: r.status, diagnostics: r.diagnostics }];
    const entry: Record<string, unknown> = {
      id: r.file,
      file: r.file,
      kind: r.kind,
      status: r.status,
      diagnostics: r.diagnostics,
    };
    if (r.used_by) entry.used_by = r.used_by;
    return [entry];
  });
  // A scenario may carry an api_key; the environment's secrets are masked too.
  return `${JSON.stringify(new Redactor(process.env).value(entries), null, 2)}\n`;
}

function withoutSourceMaps(model: object): Record<string, unknown> {
  const { locations: _locations, warnings: _warnings, ...rest } = model as Record<string, unknown>;
  return rest;
}
