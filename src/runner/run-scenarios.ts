import { UsageError } from '../core/errors.js';
import { formatDiagnostic, validatePaths, type Scenario } from '../scenario/index.js';
import { runSession, type AudioEngineOptions } from '../session/index.js';
import { artifactStem, defaultOutDir, keepArtifacts, sessionOptions } from './artifacts.js';
import { executeRuns, type RunnerIo, type RunOutcome, type RunSource, type SessionDefaults } from './execute.js';

export interface RunScenariosOptions extends RunnerIo {
  paths: readonly string[];
  url: string;
  outDir?: string;
  reporter?: string;
  /** Default `within_ms` for expectations that set none (`--timeout`, seconds × 1000). */
  defaultWithinMs?: number;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  /**
   * Runs of each scenario (`--repeat N`, default 1), every scenario once and then
   * again, as a suite orders its repeats; each result carries its `run.repeat_index`
   * and the summary gives each scenario's pass rate with its Wilson interval.
   */
  repeat?: number;
  session?: Omit<SessionDefaults, 'triggerDisconnect'>;
  /**
   * Audio settings (`--tts`, `--stt`, `--record`, `--cache-dir`, `--no-cache`): the run makes one
   * AudioEngine from them (unless `session.media` is given) and closes it at the end. Recordings go
   * beside results.jsonl as `<stem>.wav`.
   */
  audio?: AudioEngineOptions;
}

export type RunScenariosOutcome = RunOutcome;

/** Loads scenario files, throwing one UsageError that lists every located problem. */
export function loadScenarios(paths: readonly string[], opts: { defaultWithinMs?: number; allowOutsideRoot?: boolean; cwd?: string } = {}): Scenario[] {
  const checked = validatePaths(paths, { defaultWithinMs: opts.defaultWithinMs, allowOutsideRoot: opts.allowOutsideRoot });
  const problems: string[] = [];
  const scenarios: Scenario[] = [];
  for (const file of checked) {
    if (file.status === 'invalid') {
      problems.push(...file.diagnostics.filter((d) => d.severity === 'error').map((d) => formatDiagnostic(d, { cwd: opts.cwd })));
    } else if (file.status === 'valid' && file.loaded) {
      if (file.loaded.kind === 'script') scenarios.push(file.loaded);
      else if (file.loaded.kind === 'manifest') problems.push(`${file.file}: is a suite manifest; run it with \`earshot suite ${file.file}\``);
      else problems.push(`${file.file}: is a simulation (persona:); simulations run with \`earshot suite\` or a later \`earshot simulate\``);
    }
  }
  if (problems.length) throw new UsageError(`invalid scenario input:\n${problems.join('\n')}`);
  if (!scenarios.length) throw new UsageError(`no scenarios found in ${paths.join(', ')}`);
  return scenarios;
}

/**
 * `earshot run`: scenarios one after another against one running bot. Each
 * result is appended to results.jsonl the moment its scenario ends; a signal
 * stops the run between (or inside) scenarios and keeps what is finished.
 */
export async function runScenarios(options: RunScenariosOptions): Promise<RunScenariosOutcome> {
  const scenarios = loadScenarios(options.paths, options);
  const repeat = options.repeat ?? 1;
  if (!Number.isInteger(repeat) || repeat < 1) throw new UsageError(`--repeat must be a whole number ≥ 1, got ${repeat}`);
  const runs = Array.from({ length: repeat }, (_, r) =>
    scenarios.map((scenario, i): ListedRun => ({ scenario, ordinal: r * scenarios.length + i, ...(repeat > 1 ? { repeat_index: r } : {}) })),
  ).flat();
  return executeRuns({
    ...options,
    runs,
    source: runningBot(options.url, options.stopBot),
    outDir: options.outDir ?? defaultOutDir(),
    // One bot serves them all: a second session at once would talk over the first.
    concurrency: 1,
    title: 'earshot run',
  });
}

interface ListedRun {
  scenario: Scenario;
  ordinal: number;
  /** Set only with --repeat above 1, so a plain run's results stay as they were. */
  repeat_index?: number;
}

/** The source of `earshot run`: every session connects to the one bot at `url`. */
function runningBot(url: string, stopBot: boolean | undefined): RunSource<ListedRun> {
  return {
    describe: ({ scenario, repeat_index }) => ({
      name: scenario.name,
      file: scenario.file,
      turn_count: scenario.turns.length,
      ...(repeat_index === undefined ? {} : { repeat_index }),
    }),
    async run({ scenario, ordinal, repeat_index }, info, ctx) {
      const stem = artifactStem(scenario.name, ordinal);
      let outcome;
      try {
        outcome = await runSession(scenario, {
          ...sessionOptions(ctx, info, stem, ctx.echo),
          url,
          stopBot,
          ...(repeat_index === undefined ? {} : { run: { repeat_index } }),
        });
      } catch (err) {
        if (ctx.signal?.aborted) return null;
        throw err;
      }
      return keepArtifacts(ctx.outDir, stem, outcome.result, outcome.trace, outcome.recording);
    },
  };
}
