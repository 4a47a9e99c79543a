/**
 * earshot as a library: what the CLI does, callable from a CI script or a
 * test. `runScenarios` is `earshot run`, `runSuite` is `earshot suite`,
 * `mergeRuns` is `earshot merge`, `validatePaths` is `earshot validate`, and
 * `startRefbot` is `earshot refbot` in this process. Both runners run
 * simulations (`persona:` files) too; `runSimulation` is one simulated call
 * against one bot.
 *
 * This file is the package's semver surface: everything else under `dist/` is
 * internal (the `exports` map hides it). Add a name here only when a user
 * needs it; the option and result types reach further types that users may
 * read but not import by name.
 */

// Running scenarios.
/** Loads scenario files and folders as `earshot run` does; throws one EarshotError listing every located problem. */
export { loadScenarios } from './runner/index.js';
/** `earshot run`: scenarios one after another against one running bot; results stream to `<outDir>/results.jsonl`. */
export { runScenarios } from './runner/index.js';
/** Options of `runScenarios`: the files, the bot's `url`, `outDir`, `reporter` names, your own `reporters`. */
export type { RunScenariosOptions } from './runner/index.js';
/** What a run returns: its output dir, every result, the summary, and whether a signal stopped it. */
export type { RunScenariosOutcome } from './runner/index.js';
/** `earshot suite`: a Pipecat suite manifest, each run against a bot spawned for it, with repeats and shards. */
export { runSuite } from './runner/index.js';
/** Options of `runSuite`: the manifest path plus the `earshot suite` flags. */
export type { SuiteOptions } from './runner/index.js';
/** What `runSuite` returns: a run's outcome plus the plan it ran. */
export type { SuiteOutcome } from './runner/index.js';
/**
 * Loads scenario files and folders, simulations included (`Runnable`: a `Scenario` or a `Simulation`), and their
 * warnings.
 */
export { loadRunnables } from './runner/index.js';
/** What `loadRunnables` returns: every scenario and simulation in file order, and the files' warnings. */
export type { LoadedRunnables } from './runner/index.js';
/**
 * `--category` / `--severity` as `RunScenariosOptions.filter` / `SuiteOptions.filter` (earshot extension, GAIA's
 * fields).
 */
export type { RunnableFilter } from './runner/index.js';

// Simulated callers.
/**
 * One simulated call against a running bot (`options.url`): an LLM plays the caller from the
 * simulation's `persona` and `goal` until it hangs up (`end_call`) or a cap ends the call, then the
 * judge scores the whole conversation. The result's `simulation` holds the transcript and every score.
 */
export { runSimulation } from './drivers/index.js';
/**
 * Session settings of `runSimulation`: the bot's `url`, wire, media for audio modality, `simulatorOverride` /
 * `judgeOverride` (`openai:MODEL[@URL]`).
 */
export type { SessionOptions, SessionOutcome } from './session/index.js';
/**
 * What builds the caller and the judge of `runSimulation`: overrides as `LlmConfig` blocks, `--allow-code`, seeded
 * jitter, timeouts.
 */
export type { SimulationSetup } from './drivers/index.js';
/**
 * A simulation file's scenario, as loaded: persona, goal, success, metrics, caps, runs, and earshot's scorecard and
 * success signals.
 */
export type { Simulation, Runnable, LlmConfig } from './scenario/index.js';
/**
 * A simulation's part of its result: the conversation (`SimulationEntry`), how it ended, and every score with its
 * evidence.
 */
export type { SimulationResult, SimulationEntry, SimulationEndReason } from './results/index.js';

// AMD GAIA's scenarios (docs/guide/gaia.md).
/**
 * One GAIA scenario (a `Scenario` with a `gaia` block, as `loadRunnables` loads a GAIA file) against a running bot:
 * its turns played, each reply scored on GAIA's seven dimensions. The result's `gaia` holds every score.
 */
export { runGaia } from './drivers/index.js';
/** A GAIA file's block as loaded (persona, documents, turns with their ground truth, weights and threshold). */
export type { GaiaSpec, GaiaTurn, GaiaGroundTruth, CorpusFact } from './scenario/index.js';
/** A GAIA scenario's part of its result: per turn the reply, the calls, seven scores, the total and the verdict. */
export type { GaiaResult, GaiaTurnScore, GaiaDimensionScore, GaiaAutoZero } from './results/index.js';
/** GAIA's nine built-in personas (name → its description), for GAIA turns and Pipecat simulations alike. */
export { GAIA_PERSONAS } from './scenario/index.js';
/**
 * The documents a GAIA scenario sends a bot: the `client-message` type (`message` way), and the payload a bot reads
 * in the message, the `spawn` way's file, or the `context` way's system message.
 */
export { DOCUMENTS_MESSAGE, documentsContext, parseDocumentsContext } from './protocol/index.js';
export type { DocumentPayload, DocumentsFile, DocumentsMessageData, DocumentsAckData } from './protocol/index.js';

// NVIDIA NeMo's scenarios (docs/guide/coming-from-nemo.md).
/**
 * A NeMo scenario as a class: the user and agent sides (persona, task, actions, resources), `successSignals`, the
 * reference answer, the expected DB, assertions. Subclass it (a domain base stays abstract), then register the
 * concrete class; `earshot run --allow-code your-scenarios.ts` loads the module and runs what it registered.
 */
export { EvalScenario, registerEvalScenario, SuccessSignal, ScenarioDefinitionError } from './scenario/index.js';
/** A predicate over the bot's end-state DB for `DB_STATE_ASSERTION`, by domain and `func_name`. */
export { registerDbStatePredicate } from './scenario/index.js';
/** NeMo's data records, as the class's members return them. */
export type {
  Actions,
  DbStateAssertion,
  InitializationAction,
  Persona,
  Resources,
  SideSpec,
  Task,
  NemoSpec,
} from './scenario/index.js';
/** A NeMo scenario's part of a simulation result: every signal with its reason, the breakdown, the verdict. */
export type { NemoOutcome, NemoSignalValue } from './results/index.js';
/**
 * The canonical SHA-256 of a bot's DB (`get_scenario_summary`'s `db_hash`, `DB_STATE_MATCH`), for a bot written in
 * JavaScript: the same bytes as Python's `json.dumps(sort_keys=True)` of the canonical form.
 */
export { dbHash } from './core/db-hash.js';
/** NeMo's control messages a bot answers (`update_system_prompt`, `apply_initialization`, …) and their answers. */
export type { NemoControlData, ScenarioSummary, InitializationResult } from './protocol/index.js';

/** `earshot merge`: shard output dirs in, one result set and its reports out. */
export { mergeRuns } from './runner/index.js';
/** Options of `mergeRuns`. */
export type { MergeRunsOptions } from './runner/index.js';
/** What `mergeRuns` returns: the merged results, the summary, warnings and missing shards. */
export type { MergeRunsOutcome } from './runner/index.js';

// Checking files without running them.
/** `earshot validate`: checks scenario, simulation and manifest files and folders, one verdict per file. */
export { validatePaths } from './scenario/index.js';
/** Formats a diagnostic as one `file:line:col: severity: field: message` line. */
export { formatDiagnostic } from './scenario/index.js';
/** Options of `validatePaths`. */
export type { ValidatePathsOptions } from './scenario/index.js';
/** One file's verdict from `validatePaths`: valid, invalid or skipped, with its diagnostics. */
export type { FileValidation } from './scenario/index.js';
/** A located problem (error or warning) in a scenario, simulation or manifest file. */
export type { Diagnostic } from './scenario/index.js';

// The reference bot.
/** Starts the reference bot (a real RTVI voice bot) in this process; `port: 0` picks a free port. */
export { startRefbot } from './refbot/index.js';
/** Options of `startRefbot`: port, wire, brain, response delay, fault switches, voice. */
export type { RefbotOptions } from './refbot/index.js';
/** A running reference bot: its `url`, `close()`, and `closed` (why it stopped). */
export type { RefbotHandle } from './refbot/index.js';
/** Why the reference bot stopped, and the exit code the CLI would use. */
export type { RefbotExit } from './refbot/index.js';

// Reporters.
/**
 * The built-in reporters by name (`list`, `dot`, `json`, `jsonl`, `junit`, `html`, `github`): the names `reporter`
 * takes.
 */
export { REPORTERS } from './report/index.js';
/** A reporter of your own, passed in `reporters`: every hook optional, called in run order. */
export type { Reporter } from './report/index.js';
/** What `Reporter.onBegin` receives: planned total, start time, output dir. */
export type { RunStart } from './report/index.js';
/** Identifies a scenario run to `onScenarioStart` and `onTurnEnd`. */
export type { ScenarioStart } from './report/index.js';

// Results: values, serialized as they are into results.jsonl (snake_case, units in names).
/** One scenario run: status, turns, failures, events, artifacts. */
export type { ScenarioResult } from './results/index.js';
/**
 * `passed`, `failed`, `inconclusive` (earshot could not hear the bot reliably), `skipped` or `error` (earshot itself
 * could not finish the scenario).
 */
export type { ScenarioStatus } from './results/index.js';
/** One turn: what was sent, each expectation's result, latency metrics. */
export type { TurnResult } from './results/index.js';
/** One expectation of a turn: passed, failed, inconclusive or not run, and what matched it. */
export type { ExpectationResult } from './results/index.js';
/**
 * Why an expectation is inconclusive: each reading's verdict and the segments of bot speech in doubt (transcripts,
 * span, WAV).
 */
export type { InconclusiveCheck, HearingEvidence } from './results/index.js';
/** A failure of the bot under test, as a value: `kind`, where (turn, expectation) and why. */
export type { Failure } from './results/index.js';
/** The stable machine keys of failures (`timeout`, `text_mismatch`, `connect_failed`, …): added to, never renamed. */
export type { FailureKind } from './results/index.js';
/** A run's summary (summary.json): `ok`, counts, pass rate, per-scenario outcomes, failure kinds. */
export type { RunSummary } from './results/index.js';
/** One scenario's outcome across its repeats, in `RunSummary.scenarios`. */
export type { ScenarioOutcome } from './results/index.js';
/**
 * The exit status the CLI gives a run's summary: 0 passed, 1 something failed, 3 nothing failed but something was
 * inconclusive.
 */
export { exitCodeOf } from './results/index.js';
/** An event the session observed, with its time on the session clock (`at_ms`); narrow it by `name`. */
export type { EarshotEvent } from './results/index.js';

// Scenarios, as loaded (normalized: snake_case like the YAML, defaults filled in, paths absolute).
/** A scripted scenario: its turns, user and judge settings. */
export type { Scenario } from './scenario/index.js';
/** One turn: what to send (`user`, `dtmf`, `audio`), when (`send_after`), and what to expect. */
export type { Turn } from './scenario/index.js';
/** One expected event of a turn, with its budget (`within_ms`) and checks. */
export type { Expectation } from './scenario/index.js';
/** The event names a scenario may expect. */
export type { EventName } from './scenario/index.js';
/** earshot extension: a scenario's `conditions:` block (noise, telephony, loss, gain, speaking rate, seed). */
export type { ScenarioConditions } from './scenario/index.js';

// Channel conditions.
/**
 * The caller's audio as the bot would receive it through channel conditions: pure, seeded, chunk-wise (same seed, same
 * bytes).
 */
export { applyConditions } from './audio/index.js';
/** The conditions `applyConditions` takes (the scenario block's shape). */
export type { ChannelConditions } from './audio/index.js';

// Errors.
/** Base class of every error earshot raises on purpose: one clear `message`, and the CLI's `exitCode`. */
export { EarshotError } from './core/errors.js';
