import type { Command } from 'commander';
import { parseBotUrl } from '../../protocol/index.js';
import { listByDomain, loadRunnablesWithModules, runScenarios, selectRunnables } from '../../runner/index.js';
import { UsageError } from '../../core/errors.js';
import { addAudioFlags, audioSettings, type AudioFlags } from '../audio-flags.js';
import { exitCodeOf } from '../../results/index.js';
import type { CliCommand } from '../command.js';
import { positiveInt, reporterOption } from '../options.js';
import {
  addBotFlags,
  addNemoRunFlags,
  addSimulationFlags,
  addTrustFlags,
  filterOf,
  nemoSettings,
  sessionSettings,
  type BotFlags,
  type NemoRunFlags,
  type SimulationFlags,
  type TrustFlags,
} from '../session-flags.js';
import { abortOnSignals } from '../signals.js';

interface RunFlags extends AudioFlags, BotFlags, TrustFlags, SimulationFlags, NemoRunFlags {
  strict?: boolean;
  out?: string;
  reporter: string;
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  verbose?: boolean;
  repeat?: number;
}

/**
 * `earshot run <scenarios...> --url ws://...`: every scenario and simulation of every file; exit 0
 * when all pass (a simulation: every one of its runs), 1 when any fails, 3 when none failed but some verdict was
 * inconclusive, 2 for usage errors (`--strict`: any warning).
 */
export const runCommand: CliCommand = {
  name: 'run',
  register(program: Command): void {
    const command = program
      .command('run')
      .description('Run scenarios one after another against a running bot')
      .argument(
        '<scenarios...>',
        'scenario files or folders, and NeMo scenario modules (.ts, .mts, .js, .mjs: with --allow-code)',
      );
    addBotFlags(command)
      .option('--out <dir>', 'output folder for results.jsonl, summary.json, traces (default runs/<timestamp>)')
      .addOption(reporterOption())
      .option(
        '--stop-bot',
        'ask the bot to shut down after each scenario (eval-cancel; RTVI disconnect-bot on protobuf)',
      )
      .option('--trigger-disconnect', "fire the bot's on_client_disconnected handler when each scenario ends")
      .option('--strict', 'treat every warning of the files as an error (exit 2 before anything runs)')
      .option(
        '-r, --repeat <n>',
        "run every scenario n times (pass rates with Wilson intervals at the end; replaces each simulation's runs:)",
        positiveInt,
      )
      .option('-v, --verbose', 'print the debug trace as it happens');
    addTrustFlags(command);
    addSimulationFlags(command);
    addNemoRunFlags(command);
    // --list reaches no bot, so --url is checked here rather than by commander.
    command.options.find((o) => o.long === '--url')?.makeOptionMandatory(false);
    addAudioFlags(command).action(async (paths: string[], flags: RunFlags) => {
      if (flags.list) {
        const loaded = await loadRunnablesWithModules(paths, {
          allowOutsideRoot: flags.allowOutsideRoot,
          allowCode: flags.allowCode === true,
          ...(flags.corpus !== undefined ? { corpus: flags.corpus } : {}),
        });
        const filter = filterOf(flags);
        const kept = filter ? selectRunnables(loaded.scenarios, filter, paths.join(', ')) : loaded.scenarios;
        process.stdout.write(listByDomain(kept));
        process.exitCode = 0;
        return;
      }
      if (flags.url === undefined) throw new UsageError("required option '--url <ws-url>' not specified");
      parseBotUrl(flags.url);
      const signals = abortOnSignals();
      try {
        const outcome = await runScenarios({
          paths,
          url: flags.url,
          outDir: flags.out,
          reporter: flags.reporter,
          defaultWithinMs: flags.timeout,
          allowOutsideRoot: flags.allowOutsideRoot,
          allowCode: flags.allowCode === true,
          ...(flags.corpus !== undefined ? { corpus: flags.corpus } : {}),
          strict: flags.strict === true,
          ...(filterOf(flags) ? { filter: filterOf(flags) } : {}),
          stopBot: flags.stopBot,
          repeat: flags.repeat,
          verbose: flags.verbose,
          signal: signals.signal,
          audio: audioSettings(flags),
          session: {
            ...sessionSettings(flags),
            ...nemoSettings(flags),
            ...(flags.simulator !== undefined ? { simulatorOverride: flags.simulator } : {}),
            ...(flags.triggerDisconnect ? { triggerDisconnect: true } : {}),
          },
        });
        const signalled = signals.exitCode();
        process.exitCode = signalled ?? exitCodeOf(outcome.summary);
      } finally {
        signals.dispose();
      }
    });
  },
};
