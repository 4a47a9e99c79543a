import { UsageError } from '../core/errors.js';
import type { ScenarioResult } from '../results/index.js';
import { formatDiagnostic, validatePaths, type Diagnostic, type Runnable, type Scenario } from '../scenario/index.js';
import type { AudioEngineOptions, SessionSettingsOptions } from '../session/index.js';
import { artifactStem, defaultOutDir, keepArtifacts } from './artifacts.js';
import { executeRuns, type RunnerIo, type RunOutcome, type RunSource } from './execute.js';
import { explainRefusedReconnect, printWarnings, refuseUnrunnable, replacedBlocks, runWarnings } from './preflight.js';
import { resolveRunSettings, sessionFor } from './run-config.js';
import { refuseDocuments } from './documents-file.js';
import { runRunnable } from './run-kind.js';
import { runnableTags } from '../drivers/index.js';
import { selectRunnables, type RunnableFilter } from './select.js';
import { isCodeModulePath } from '../core/module-import.js';
import { loadScenarioModules } from './scenario-modules.js';

export interface RunScenariosOptions extends RunnerIo {
  paths: readonly string[];
  url: string;
  outDir?: string;
  reporter?: string;
  /** Default `within_ms` for expectations that set none (`--timeout`, seconds × 1000). */
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  /** `--corpus`: the GAIA corpus manifest for every GAIA file (default: the nearest one, per file). */
  corpus?: string;
  allowCode?: boolean;
  /** `--strict`: every warning of the files is an error, and nothing runs. */
  strict?: boolean;
  /**
   * `--judge openai:MODEL[@URL]` / `--judge ollama:MODEL`: replaces every scenario's judge (so a
   * Python `factory:` judge is no obstacle).
   */
  judge?: string;
  /**
   * `--simulator openai:MODEL[@URL]` / `ollama:MODEL[@URL]`: the caller's LLM in place of every simulation's
   * `simulator:`.
   */
  simulator?: string;
  /** `--category` / `--severity` (earshot extensions, GAIA's fields): only the scenarios that match. */
  filter?: RunnableFilter;
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  /**
   * Runs of each scenario (`--repeat N`, default 1), every scenario once and then
   * again, as a suite orders its repeats; each result carries its `run.repeat_index`
   * and the summary gives each scenario's pass rate with its Wilson interval.
   * Unset, a simulation runs its own `runs:` times (every run must pass); set, it
   * replaces `runs:`, as in a suite.
   */
  repeat?: number;
  /** What every session shares (wire, timeouts, media...); the flags above win over it. */
  session?: SessionSettingsOptions;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): the run makes one
   * AudioEngine from them (unless `session.media` is given) and closes it at the end. Recordings go
   * beside results.jsonl as `<stem>.wav`.
   */
  audio?: AudioEngineOptions;
  /** For shorter paths in warnings and errors (default the working directory). */
  cwd?: string;
}

export type RunScenariosOutcome = RunOutcome;

export interface LoadScenariosOptions {
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  /** `--corpus`: the GAIA corpus manifest for every GAIA file (default: the nearest one, per file). */
  corpus?: string;
  strict?: boolean;
  cwd?: string;
}

/** Every scenario of every file, in file then list order, and the files' warnings (each once). */
export interface LoadedRunnables {
  scenarios: Runnable[];
  warnings: Diagnostic[];
}

/**
 * Loads scenario files and folders, every scenario of each (`scenarios:`
 * lists), simulations included; throws one UsageError that lists every
 * located problem (with `strict`, the warnings too).
 */
export function loadRunnables(paths: readonly string[], opts: LoadScenariosOptions = {}): LoadedRunnables {
  const checked = validatePaths(paths, {
    defaultWithinMs: opts.defaultWithinMs,
    allowOutsideRoot: opts.allowOutsideRoot,
    strict: opts.strict,
    ...(opts.corpus !== undefined ? { corpus: opts.corpus } : {}),
  });
  const problems: string[] = [];
  const scenarios: Runnable[] = [];
  const warnings: Diagnostic[] = [];
  for (const file of checked) {
    if (file.status === 'invalid') {
      problems.push(
        ...file.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, { cwd: opts.cwd })),
      );
    } else if (file.status === 'valid' && file.kind === 'manifest') {
      problems.push(`${file.file}: is a suite manifest; run it with \`earshot suite ${file.file}\``);
    } else if (file.status === 'valid') {
      scenarios.push(...file.scenarios.flatMap((s) => (s.loaded ? [s.loaded] : [])));
      warnings.push(...file.diagnostics);
    }
  }
  if (problems.length) throw new UsageError(`invalid scenario input:\n${problems.join('\n')}`);
  if (!scenarios.length) throw new UsageError(`no scenarios found in ${paths.join(', ')}`);
  return { scenarios, warnings };
}

export interface LoadWithModulesOptions extends LoadScenariosOptions {
  /** `--allow-code`: consent to import scenario modules (`.ts`, `.js`...). */
  allowCode?: boolean;
}

/**
 * `earshot run` / `validate`'s loading: NeMo scenario modules (named on the command line, by extension; imported only
 * with `allowCode`) beside the YAML files and folders, whose loader stays synchronous. Modules' scenarios come first.
 */
export async function loadRunnablesWithModules(
  paths: readonly string[],
  opts: LoadWithModulesOptions = {},
): Promise<LoadedRunnables> {
  const modules = paths.filter(isCodeModulePath);
  const files = paths.filter((p) => !isCodeModulePath(p));
  const compiled: Runnable[] = await loadScenarioModules(modules, {
    allowCode: opts.allowCode === true,
    ...(opts.cwd !== undefined ? { cwd: opts.cwd } : {}),
  });
  if (files.length === 0) return { scenarios: compiled, warnings: [] };
  const loaded = loadRunnables(files, opts);
  return { scenarios: [...compiled, ...loaded.scenarios], warnings: loaded.warnings };
}

/**
 * Loads scenario files and folders: every scripted scenario of each, in order; a simulation is a usage error here (load
 * it with `loadRunnables`).
 */
export function loadScenarios(paths: readonly string[], opts: LoadScenariosOptions = {}): Scenario[] {
  const { scenarios } = loadRunnables(paths, opts);
  const simulations = scenarios.filter((s) => s.kind === 'simulation');
  if (simulations.length) {
    const names = simulations.map((s) => `${s.name} (${s.file})`).join(', ');
    throw new UsageError(
      `these are simulations (persona:), not scripted scenarios; load them with loadRunnables: ${names}`,
    );
  }
  return scenarios as Scenario[];
}

/**
 * `earshot run`: every scenario of the files, one after another, against one
 * running bot. The files' warnings and the run's own (a speech rate the bot
 * does not take, a text scenario before an audio one) are printed first; a
 * Python `factory:` no flag replaces refuses the run before it starts. Each result is appended to
 * results.jsonl the moment its scenario ends; a simulation's caller is played
 * by its LLM (runSimulation); a signal stops the run between (or inside)
 * scenarios and keeps what is finished.
 */
export async function runScenarios(options: RunScenariosOptions): Promise<RunScenariosOutcome> {
  const cwd = options.cwd ?? process.cwd();
  const loaded = await loadRunnablesWithModules(options.paths, {
    ...options,
    allowCode: options.allowCode === true || options.session?.allowCode === true,
    cwd,
  });
  const warnings = loaded.warnings;
  const settings = resolveRunSettings(options);
  // `--duration` and `--strict-match` travel in the session settings (the suite path has them only there).
  const scenarios = options.filter
    ? selectRunnables(loaded.scenarios, options.filter, options.paths.join(', '))
    : loaded.scenarios;
  if (options.stopBot && settings.handshake === 'none') {
    throw new UsageError(
      '--stop-bot: a bot without RTVI (--handshake none) cannot be asked to stop; ' +
        'stop it yourself, or run it under `earshot suite`',
    );
  }
  printWarnings(
    warnings,
    options.stderr ?? process.stderr,
    cwd,
    runWarnings(scenarios, settings, { oneBot: true, cwd }),
  );
  refuseUnrunnable(scenarios, replacedBlocks(settings, options.audio), cwd);
  refuseDocuments(scenarios, settings, null, cwd);
  const repeat = options.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1)
    throw new UsageError(`--repeat must be a whole number ≥ 1, got ${repeat}`);
  // A simulation's own `runs:` when no --repeat was given; every run is listed once per round, as a suite orders them.
  const countOf = (s: Runnable): number => (options.repeat === undefined && s.kind === 'simulation' ? s.runs : repeat);
  const rounds = Math.max(...scenarios.map(countOf));
  const runs: ListedRun[] = [];
  for (let r = 0; r < rounds; r++) {
    scenarios.forEach((scenario, i) => {
      const count = countOf(scenario);
      if (r < count)
        runs.push({ scenario, ordinal: r * scenarios.length + i, ...(count > 1 ? { repeat_index: r } : {}) });
    });
  }
  return executeRuns({
    ...options,
    runs,
    source: runningBot(options.url, options.stopBot === true),
    outDir: options.outDir ?? defaultOutDir(),
    // One bot serves them all: a second session at once would talk over the first.
    concurrency: 1,
    title: 'earshot run',
    settings,
  });
}

interface ListedRun {
  scenario: Runnable;
  ordinal: number;
  /** Set only with --repeat above 1, so a plain run's results stay as they were. */
  repeat_index?: number;
}

/** The source of `earshot run`: every session connects to the one bot at `url`. */
function runningBot(url: string, stopBot: boolean): RunSource<ListedRun> {
  let connected = false;
  return {
    describe: ({ scenario, repeat_index }) => ({
      name: scenario.name,
      file: scenario.file,
      turn_count: scenario.kind === 'script' ? scenario.turns.length : 0,
      ...runnableTags(scenario),
      ...(repeat_index === undefined ? {} : { repeat_index }),
    }),
    async run({ scenario, ordinal, repeat_index }, info, ctx): Promise<ScenarioResult | null> {
      const stem = artifactStem(scenario.name, ordinal);
      const run = {
        ...(repeat_index === undefined ? {} : { repeat_index }),
        ...(scenario.kind === 'simulation' ? { pass_threshold: scenario.pass_threshold } : {}),
      };
      let outcome: Awaited<ReturnType<typeof runRunnable>>;
      try {
        const bot = { url, stopBot, ...(Object.keys(run).length ? { run } : {}) };
        outcome = await runRunnable(scenario, sessionFor(ctx, info, stem, bot));
      } catch (err) {
        if (ctx.signal?.aborted) return null;
        throw err;
      }
      explainRefusedReconnect(outcome.result, connected, stopBot);
      if (!outcome.result.failures.some((f) => f.kind === 'connect_failed') && outcome.result.error === undefined)
        connected = true;
      return keepArtifacts(ctx.outDir, stem, outcome.result, outcome.trace, outcome.recording, {}, outcome.evidence);
    },
  };
}
