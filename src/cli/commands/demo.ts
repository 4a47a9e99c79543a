import type { Command } from 'commander';
import { fileURLToPath } from 'node:url';
import type { CodecName } from '../../protocol/index.js';
import { describeDemo, runDemo } from '../../tools/demo.js';
import { addAudioFlags, audioSettings, type AudioFlags } from '../audio-flags.js';
import type { CliCommand } from '../command.js';
import { reporterOption, wireOption } from '../options.js';
import { abortOnSignals } from '../signals.js';

interface DemoFlags extends AudioFlags {
  out?: string;
  wire: CodecName;
  reporter: string;
  verbose?: boolean;
}

/** This CLI, to start the reference bot as a subprocess. */
const SELF = [process.execPath, fileURLToPath(new URL('../main.js', import.meta.url))];

/**
 * `earshot demo`: starts the reference bot, runs the bundled audio scenarios
 * against it (real speech both ways, offline), prints the results, where the
 * results and recordings are, and each spoken turn's voice-to-voice latency.
 * Exit 0 when all pass, 1 when any fails, 2 for usage errors.
 */
export const demoCommand: CliCommand = {
  name: 'demo',
  register(program: Command): void {
    const command = program
      .command('demo')
      .description('Start the reference bot and run the bundled audio scenarios against it (offline)')
      .option('--out <dir>', 'output folder for results.jsonl, recordings and traces (default runs/<timestamp>)')
      .addOption(wireOption())
      .addOption(reporterOption())
      .option('-v, --verbose', 'print the debug trace as it happens');
    addAudioFlags(command).action(async (flags: DemoFlags) => {
      const signals = abortOnSignals();
      try {
        const outcome = await runDemo({
          outDir: flags.out,
          wire: flags.wire,
          reporter: flags.reporter,
          selfCommand: SELF,
          audio: audioSettings(flags),
          verbose: flags.verbose,
          signal: signals.signal,
        });
        process.stdout.write(`${describeDemo(outcome).join('\n')}\n`);
        process.exitCode =
          signals.exitCode() ??
          (outcome.results.length > 0 && outcome.results.every((r) => r.status === 'passed') ? 0 : 1);
      } finally {
        signals.dispose();
      }
    });
  },
};
