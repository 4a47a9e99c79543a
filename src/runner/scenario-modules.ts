import { relative, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';
import { importModule } from '../core/module-import.js';
import {
  compileNemo,
  listEvalScenarios,
  type Diagnostic,
  type FileValidation,
  type RegisteredScenario,
  type Simulation,
} from '../scenario/index.js';

/**
 * NeMo scenarios written as TypeScript or JavaScript modules (`restaurant.ts` registering classes with
 * `registerEvalScenario`). Importing one runs its author's code, so it happens only with `--allow-code` (the consent
 * `factory:` hooks need). Each module's scenarios are the registry entries its import added (the registry is diffed
 * around each import); each is compiled to a `Simulation` with its `nemo` block. A definition error (a class without
 * signals, a signal with no data) fails the import: one located line, exit 2, before any bot is reached.
 */
export interface ScenarioModulesOptions {
  /** `--allow-code`: the user's consent to run the modules' code. */
  allowCode: boolean;
  /** For shorter paths in messages (default the working directory). */
  cwd?: string;
}

export async function loadScenarioModules(
  paths: readonly string[],
  options: ScenarioModulesOptions,
): Promise<Simulation[]> {
  const cwd = options.cwd ?? process.cwd();
  const shown = (p: string): string => {
    const r = relative(cwd, p);
    return r && !r.startsWith('..') ? r : p;
  };
  if (paths.length && !options.allowCode)
    throw new UsageError(
      `${shown(paths[0])}:1:1: a scenario module runs its own code: pass --allow-code to load it ` +
        `(as for factory: hooks)`,
    );
  const seen = new Set<string>();
  const simulations: Simulation[] = [];
  for (const path of paths) {
    const before = new Set<RegisteredScenario>(listEvalScenarios());
    try {
      await importModule(path);
    } catch (err) {
      throw asUsage(err, shown(path), cwd);
    }
    const added = listEvalScenarios().filter((e) => !before.has(e) && !seen.has(e.name));
    if (added.length === 0)
      throw new UsageError(
        `${shown(path)}:1:1: registers no scenario (apply registerEvalScenario to a class that extends EvalScenario)`,
      );
    for (const entry of added) {
      seen.add(entry.name);
      try {
        simulations.push(compileNemo(entry.scenario, entry.where));
      } catch (err) {
        throw asUsage(err, shown(path), cwd);
      }
    }
  }
  return simulations;
}

/** A definition error keeps its location (made relative); anything else the module threw is named with its file. */
function asUsage(err: unknown, shown: string, cwd: string): UsageError {
  // By shape, not instanceof: a module loaded through tsx has its own copy of earshot's error classes.
  if (err instanceof Error && (err as { exitCode?: unknown }).exitCode === 2) {
    return new UsageError(err.message.split(`${cwd}/`).join(''));
  }
  const why = err instanceof Error ? err.message.split('\n')[0] : String(err);
  return new UsageError(`${shown}:1:1: importing the scenario module failed: ${why}`);
}

/**
 * `earshot validate` of scenario modules: each module checked on its own (one module's definition error does not
 * hide another's scenarios), as the YAML files' validations. Without `allowCode` it throws (exit 2), as `run` does.
 */
export async function validateScenarioModules(
  paths: readonly string[],
  options: ScenarioModulesOptions,
): Promise<FileValidation[]> {
  const out: FileValidation[] = [];
  for (const path of paths) {
    const file = resolve(path);
    try {
      const sims = await loadScenarioModules([path], options);
      out.push({
        file,
        status: 'valid',
        kind: 'scenarios',
        diagnostics: [],
        scenarios: sims.map((s) => ({
          id: s.name,
          file,
          kind: 'simulation',
          status: 'valid',
          diagnostics: [],
          loaded: s,
        })),
      });
    } catch (err) {
      if (!options.allowCode || !(err instanceof UsageError)) throw err;
      const m = /^(.+?):(\d+):(\d+): ([\s\S]*)$/.exec(err.message);
      const diagnostic: Diagnostic = m
        ? {
            severity: 'error',
            file: resolve(options.cwd ?? '.', m[1]),
            line: Number(m[2]),
            col: Number(m[3]),
            path: '',
            message: m[4],
          }
        : { severity: 'error', file, line: 1, col: 1, path: '', message: err.message };
      out.push({
        file,
        status: 'invalid',
        kind: 'scenarios',
        diagnostics: [diagnostic],
        scenarios: [{ id: file, file, kind: 'simulation', status: 'invalid', diagnostics: [diagnostic] }],
      });
    }
  }
  return out;
}
