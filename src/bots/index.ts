/**
 * Bot processes: spawning a bot in its own process group with its log kept,
 * waiting until it accepts connections, stopping it (eval-cancel grace, then
 * SIGTERM, then SIGKILL); free ports; and Pipecat's spawn templates.
 */
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
export { SpawnTemplateError } from './errors.js';
