/**
 * Running scenarios: one executor (engine, reporters, artifacts, concurrency,
 * signals, summary) behind `earshot run` (a list of scenarios against one
 * running bot) and `earshot suite` (Pipecat manifests, a bot spawned for each
 * run, repeats and shards); planning, sharding and merging shard outputs.
 */
export {
  executeRuns,
  type ExecuteOptions,
  type RunContext,
  type RunnerIo,
  type RunOutcome,
  type RunnerStreams,
  type RunSource,
} from './execute.js';
export { resolveRunSettings, sessionFor, type RunSettingsInput } from './run-config.js';
export { runPool, type PoolCap } from './pool.js';
export { artifactStem, defaultOutDir, keepArtifacts, safeName } from './artifacts.js';
export {
  runScenarios,
  loadScenarios,
  loadRunnables,
  loadRunnablesWithModules,
  type LoadWithModulesOptions,
  type LoadedRunnables,
  type LoadScenariosOptions,
  type RunScenariosOptions,
  type RunScenariosOutcome,
} from './run-scenarios.js';
export {
  printWarnings,
  warningLines,
  refuseUnrunnable,
  unrunnableLines,
  replacedBlocks,
  scenarioMatches,
} from './preflight.js';
export {
  runSuite,
  prepareSuite,
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
export { SpawnedBots, runStem, type BotSettings } from './run-one.js';
export {
  planSuite,
  executionOrder,
  runKey,
  runWeight,
  type PlannedRun,
  type PlanOptions,
  type ScenarioKind,
  type SuitePlan,
} from './plan.js';
export { mergeRuns, missingShards, type MergeRunsOptions, type MergeRunsOutcome } from './merge.js';
export { NoRunsError } from './errors.js';
export {
  matchesFilter,
  selectRunnables,
  describeFilter,
  parseCategories,
  parseSeverities,
  parseNameList,
  listByDomain,
  nemoName,
  type RunnableFilter,
} from './select.js';
export {
  loadScenarioModules,
  validateScenarioModules,
  type ScenarioModulesOptions,
} from './scenario-modules.js';
export { runRunnable } from './run-kind.js';
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
