/**
 * Suites: Pipecat manifests run with spawned bots (one per run, on its own free
 * port), concurrency, repeats and shards; merging shard outputs; and `earshot
 * run`'s plain list of scenarios against one running bot.
 */
export {
  runSuite,
  loadSuiteManifest,
  describePlan,
  DEFAULT_SPAWN_TIMEOUT_MS,
  DEFAULT_STOP_TIMEOUT_MS,
  DEFAULT_TERM_TIMEOUT_MS,
  DEFAULT_BOT_HOST,
  DEFAULT_PYTHON,
  type SuiteOptions,
  type SuiteOutcome,
} from './run-suite.js';
export { planSuite, executionOrder, runKey, runWeight, type PlannedRun, type PlanOptions, type SuitePlan } from './plan.js';
export { mergeRuns, missingShards, type MergeRunsOptions, type MergeRunsOutcome } from './merge-runs.js';
export { runStem } from './run-one.js';
export {
  BotProcess,
  describeExit,
  readTail,
  type BotExit,
  type BotSpawnOptions,
  type ReadyOutcome,
  type StopOptions,
  type StopOutcome,
} from './bot-process.js';
export { PortAllocator, NoFreePortError, isPortFree, canListen } from './ports.js';
export {
  splitCommandLine,
  expandSpawn,
  checkSpawnTemplate,
  resolveSelfCommand,
  SPAWN_PLACEHOLDERS,
  type SpawnValues,
  type SpawnCommand,
  type ExpandOptions,
  type SpawnPlaceholder,
} from './spawn-template.js';
export { SpawnTemplateError, NoRunsError } from './errors.js';
export {
  parseShard,
  formatShard,
  partition,
  selectShard,
  ShardSpecError,
  ShardWeightError,
  type ShardSpec,
  type ShardOptions,
} from './shard.js';
export {
  runList,
  loadScenarios,
  artifactStem,
  defaultOutDir,
  type RunListOptions,
  type RunListOutcome,
} from './run-list.js';
export { runDemo, describeDemo, DemoSetupError, DEMO_SCENARIOS_DIR, type DemoOptions, type DemoOutcome } from './demo.js';
