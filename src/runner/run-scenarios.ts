import { UsageError } from '../core/errors.js';
import { formatDiagnostic, validatePaths, type Scenario } from '../scenario/index.js';
import { runSession, type AudioEngineOptions } from '../session/index.js';
import { artifactStem, defaultOutDir, keepArtifacts, sessionOptions } from './artifacts.js';
import { executeRuns, type RunnerIo, type RunOutcome, type RunSource, type SessionDefaults } from './execute.js';
import { explainRefusedReconnect, runWarnings } from './preflight.js';

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
  if (options.stopBot && options.session?.handshake === 'none') {
    throw new UsageError('--stop-bot: a bot without RTVI (--handshake none) cannot be asked to stop; stop it yourself, or run it under `earshot suite`');
  }
  const stderr = options.stderr ?? process.stderr;
  for (const line of runWarnings(scenarios, { codec: options.session?.codec ?? 'pipecat-eval', botInputRate: options.session?.botInputRate, oneBot: true })) {
    stderr.write(`${line}\n`);
  }
  return executeRuns({
    ...options,
    runs: scenarios.map((scenario, ordinal) => ({ scenario, ordinal })),
    source: runningBot(options.url, options.stopBot === true),
    outDir: options.outDir ?? defaultOutDir(),
    // One bot serves them all: a second session at once would talk over the first.
    concurrency: 1,
    title: 'earshot run',
  });
}

interface ListedRun {
  scenario: Scenario;
  ordinal: number;
}

/** The source of `earshot run`: every session connects to the one bot at `url`. */
function runningBot(url: string, stopBot: boolean): RunSource<ListedRun> {
  let connected = false;
  return {
    describe: ({ scenario }) => ({ name: scenario.name, file: scenario.file, turn_count: scenario.turns.length }),
    async run({ scenario, ordinal }, info, ctx) {
      const stem = artifactStem(scenario.name, ordinal);
      let outcome;
      try {
        outcome = await runSession(scenario, { ...sessionOptions(ctx, info, stem, ctx.echo), url, stopBot });
      } catch (err) {
        if (ctx.signal?.aborted) return null;
        throw err;
      }
      explainRefusedReconnect(outcome.result, connected, stopBot);
      if (!outcome.result.failures.some((f) => f.kind === 'connect_failed') && outcome.result.error === undefined) connected = true;
      return keepArtifacts(ctx.outDir, stem, outcome.result, outcome.trace, outcome.recording);
    },
  };
}
