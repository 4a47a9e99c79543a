import { InvalidArgumentError, type Command } from 'commander';
import { fileURLToPath } from 'node:url';
import type { CodecName } from '../../protocol/index.js';
import { UsageError } from '../../core/errors.js';
import {
  describePlan,
  parseShard,
  prepareSuite,
  replacedBlocks,
  resolveRunSettings,
  runSuite,
  unrunnableLines,
  warningLines,
  type ScenarioKind,
  type ShardSpec,
  type SuiteOptions,
} from '../../runner/index.js';
import { addAudioFlags, audioSettings, type AudioFlags } from '../audio-flags.js';
import { exitCodeOf } from '../../results/index.js';
import type { CliCommand } from '../command.js';
import { nonNegativeInt, positiveInt, reporterOption, secondsToMs, wireOption } from '../options.js';
import {
  addSimulationFlags,
  addTrustFlags,
  addWireFlags,
  filterOf,
  trustSettings,
  wireSettings,
  type SimulationFlags,
  type TrustFlags,
  type WireFlags,
} from '../session-flags.js';
import { abortOnSignals } from '../signals.js';

interface SuiteFlags extends AudioFlags, TrustFlags, WireFlags, SimulationFlags {
  pattern?: string;
  scenario?: string;
  kind?: ScenarioKind;
  scenariosDir?: string;
  /** -a: record conversation audio (Pipecat's flag; the same as --record). */
  audio?: boolean;
  strict?: boolean;
  concurrency?: number;
  repeat?: number;
  shard?: string;
  out?: string;
  name?: string;
  runsDir?: string;
  reporter: string;
  wire: CodecName;
  spawn?: string;
  python?: string;
  basePort?: number;
  botsDir?: string;
  spawnTimeout?: number;
  connectTimeout?: number;
  stopTimeout?: number;
  spawnStagger?: number;
  /** false: `--no-history` (order by turns, not by earlier durations). */
  history: boolean;
  timeout?: number;
  triggerDisconnect?: boolean;
  list?: boolean;
  verbose?: boolean;
}

/** This CLI, for spawn templates whose program is `earshot`. */
const SELF = [process.execPath, fileURLToPath(new URL('../main.js', import.meta.url))];

/**
 * `earshot suite <manifest>`: Pipecat's suite manifests, each run against a bot spawned for it.
 * Exit 0 when every scenario is ok, 1 when any is not, 3 when none failed but some verdict was
 * inconclusive, 2 for usage errors, 130/143 on SIGINT/SIGTERM.
 */
export const suiteCommand: CliCommand = {
  name: 'suite',
  register(program: Command): void {
    const command = program
      .command('suite')
      .description('Spawn the bots of a suite manifest (Pipecat format) and run their scenarios, several at a time')
      .argument('<manifest>', 'suite manifest (YAML with suite:)')
      .option('-p, --pattern <text>', 'only entries whose name: or bot: path contains this')
      .option(
        '-s, --scenario <name>',
        'only this scenario: its <file>/<scenario> name, or either half of it (a file name selects all its ' +
          'scenarios), or a glob',
      )
      .option('-k, --kind <kind>', 'only scenarios of this kind: script or simulation', kindArg)
      .option('-c, --concurrency <n>', 'runs at once (overrides the manifest)', positiveInt)
      .option(
        '-r, --repeat <n>',
        "run each (entry, scenario) n times (overrides the manifest; also replaces each simulation's runs:)",
        positiveInt,
      )
      .option('--shard <I/N>', 'run only shard I of N of the expanded run list (deterministic, balanced)')
      .option(
        '--out <dir>',
        'the output folder itself, not with -n/--runs-dir (default <runs_dir>/<name>; runs_dir default runs)',
      )
      .option('-n, --name <name>', 'name of the run folder under runs_dir (default a timestamp)')
      .option('--runs-dir <dir>', "base folder for runs (overrides the manifest's runs_dir)")
      .addOption(reporterOption())
      .addOption(wireOption())
      .option('--spawn <template>', 'spawn template (overrides the manifest); {python}, {bot}, {port}')
      .option('--python <path>', 'interpreter for {python} (overrides the manifest; default python3)')
      .option('--base-port <n>', 'first port to try (overrides the manifest); busy ports are skipped', positiveInt)
      .option('--bots-dir <dir>', "folder bot: paths resolve in (overrides the manifest's bots_dir)")
      .option('--scenarios-dir <dir>', "folder bare scenario names resolve in (overrides the manifest's scenarios_dir)")
      .option('-a, --audio', 'record conversation audio (as --record)')
      .option(
        '--strict',
        'treat every warning of the manifest and its scenario files as an error (exit 2 before anything runs)',
      )
      .option('--spawn-timeout <seconds>', 'how long a bot may take to accept connections (default 60)', secondsToMs)
      .option('--connect-timeout <seconds>', 'WebSocket connect budget once the port accepts (default 10)', secondsToMs)
      .option(
        '--spawn-stagger <ms>',
        "start at most one bot per core per this many ms (default 250, about a reference bot's start-up CPU; " +
          '0: all at once)',
        nonNegativeInt,
      )
      .option(
        '--no-history',
        'order the runs by their turns, not longest first by the durations in earlier results beside the output folder',
      )
      .option(
        '--stop-timeout <seconds>',
        'how long a bot may take to exit after eval-cancel (disconnect-bot on protobuf) before SIGTERM (default 10)',
        secondsToMs,
      )
      .option('-t, --timeout <seconds>', 'default within_ms for expectations without one (default 60)', secondsToMs)
      .option('--trigger-disconnect', "fire the bot's on_client_disconnected handler when each scenario ends")
      .option('--list', 'print the runs this invocation would make (after -p, -s, -k, --shard) and exit')
      .option('-v, --verbose', 'print every run’s debug trace as it happens, prefixed with bot and scenario');
    addWireFlags(command);
    addTrustFlags(command);
    addSimulationFlags(command);
    addAudioFlags(command).action(async (manifestPath: string, flags: SuiteFlags) => {
      if (flags.audio && flags.record === false)
        throw new UsageError('-a/--audio records audio; it cannot go with --no-record');
      const shard: ShardSpec | undefined = flags.shard === undefined ? undefined : parseShard(flags.shard);
      const options: SuiteOptions = {
        manifest: manifestPath,
        pattern: flags.pattern,
        scenario: flags.scenario,
        kind: flags.kind,
        scenariosDir: flags.scenariosDir,
        strict: flags.strict === true,
        ...(filterOf(flags) ? { filter: filterOf(flags) } : {}),
        concurrency: flags.concurrency,
        repeat: flags.repeat,
        shard,
        outDir: flags.out,
        name: flags.name,
        runsDir: flags.runsDir,
        reporter: flags.reporter,
        spawn: flags.spawn,
        python: flags.python,
        basePort: flags.basePort,
        botsDir: flags.botsDir,
        spawnTimeoutMs: flags.spawnTimeout,
        connectTimeoutMs: flags.connectTimeout,
        stopTimeoutMs: flags.stopTimeout,
        ...(flags.spawnStagger !== undefined ? { spawnStaggerMs: flags.spawnStagger } : {}),
        ...(flags.history === false ? { knownDurations: new Map() } : {}),
        defaultWithinMs: flags.timeout,
        allowOutsideRoot: flags.allowOutsideRoot,
        ...(flags.corpus !== undefined ? { corpus: flags.corpus } : {}),
        selfCommand: SELF,
        verbose: flags.verbose,
        audio: { ...audioSettings(flags), ...(flags.audio ? { record: true } : {}) },
        session: {
          ...wireSettings(flags),
          ...trustSettings(flags),
          codec: flags.wire,
          ...(flags.simulator !== undefined ? { simulatorOverride: flags.simulator } : {}),
          ...(flags.triggerDisconnect ? { triggerDisconnect: true } : {}),
        },
      };
      if (flags.list) {
        const plan = await prepareSuite(options);
        const cwd = process.cwd();
        for (const line of warningLines(plan.warnings, cwd)) process.stderr.write(`${line}\n`);
        // A dry run: what would refuse the run is said, but the plan is listed either way.
        const replaced = replacedBlocks(resolveRunSettings(options), options.audio);
        const refused = unrunnableLines([...new Set(plan.runs.map((r) => r.loaded))], replaced, cwd);
        if (refused.length)
          process.stderr.write(`a run would refuse to start (cannot run in Node):\n${refused.join('\n')}\n`);
        process.stdout.write(`${describePlan(plan).join('\n')}\n`);
        return;
      }
      const signals = abortOnSignals();
      try {
        const outcome = await runSuite({ ...options, signal: signals.signal });
        process.exitCode = signals.exitCode() ?? exitCodeOf(outcome.summary);
      } finally {
        signals.dispose();
      }
    });
  },
};

function kindArg(value: string): ScenarioKind {
  if (value === 'script' || value === 'simulation') return value;
  throw new InvalidArgumentError(`expected script or simulation, got "${value}"`);
}
