import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  calibrationJson,
  CALIBRATION_WIRES,
  DEFAULT_CALIBRATION_DELAYS_MS,
  DEFAULT_CALIBRATION_REPEAT,
  parseDelayList,
  parseWireList,
  renderCalibration,
  runCalibration,
  type CalibrationWire,
} from '../../tools/calibrate/index.js';
import type { CliCommand } from '../command.js';
import { positiveInt } from '../options.js';
import { abortOnSignals } from '../signals.js';

interface CalibrateFlags {
  repeat: number;
  delays: number[];
  wires: CalibrationWire[];
  json?: string;
  keep?: string;
  maxP95Ms: number;
  sentenceGapMs?: number;
  cacheDir?: string;
  cache?: boolean;
}

/** This CLI, to start the reference bot as a subprocess. */
const SELF = [process.execPath, fileURLToPath(new URL('../main.js', import.meta.url))];

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError(`expected a number of ms > 0, got "${value}"`);
  return n;
}

const HELP = `
What it does: for each wire and each delay, starts the reference bot (earshot refbot
--response-delay-ms D --truth-log FILE) in its own process and runs a fixed audio scenario
against it --repeat times: a spoken request (voice-to-voice latency of the reply), then a
question spoken over the bot's reply 1 s into it (interruption latency, and the voice-to-voice
latency of the answer). Each measurement is paired with the bot's own ground truth.
With --sentence-gap-ms N the bot speaks its sentences N ms apart and the question starts in
the first pause, where the bot stops: the barge-in a speaking window bridges.

The error of a sample is earshot's measured duration minus the bot's own duration for the
same turn. Each is a difference on one process's clock, so no clock mapping enters it. It
charges earshot with everything between its measurement points and the bot's: the
microphone's lateness (earshot times the user's speech by the samples' due times, the bot by
when it played them), loopback transit both ways, both event loops' delays, and any
disagreement about the first or last audible sample. The bot's own scheduling noise lands in
it too, so it is an upper bound on earshot's error. Turns are paired by time on the shared
Unix clock (performance.timeOrigin on both sides), never by order.

Exit 0 when every p95 |error| is within --max-p95-ms (default 10) and every row has samples;
1 otherwise; 2 for usage errors.`;

/** `earshot calibrate`: earshot's latency measurements held against the reference bot's ground truth. */
export const calibrateCommand: CliCommand = {
  name: 'calibrate',
  register(program: Command): void {
    program
      .command('calibrate')
      .description("Check earshot's latency measurements on this machine against the reference bot's ground truth")
      .option('-r, --repeat <n>', 'runs per wire and delay', positiveInt, DEFAULT_CALIBRATION_REPEAT)
      .addOption(
        new Option('--delays <ms,...>', 'response delays to start the bot with')
          .argParser(parseDelayList)
          .default([...DEFAULT_CALIBRATION_DELAYS_MS], DEFAULT_CALIBRATION_DELAYS_MS.join(',')),
      )
      .addOption(
        new Option('--wires <list>', 'wires to calibrate, comma-separated')
          .argParser(parseWireList)
          .default([...CALIBRATION_WIRES], CALIBRATION_WIRES.join(',')),
      )
      .option(
        '--json <file>',
        'write the table (rows with n, p50_ms, p95_ms, max_ms), the machine and every sample as JSON',
      )
      .option('--keep <dir>', 'keep the truth logs, bot logs, results, traces and recordings here')
      .option('--max-p95-ms <ms>', 'p95 |error| limit', positiveMs, 10)
      .option(
        '--sentence-gap-ms <ms>',
        'the bot speaks sentence by sentence with this much silence between them (as a Pipecat TTS does), and ' +
          'the barge-in starts in the first pause',
        positiveMs,
      )
      .option(
        '--cache-dir <dir>',
        'TTS utterance cache folder (default $EARSHOT_CACHE_DIR/tts or ~/.cache/earshot/tts)',
      )
      .option('--no-cache', 'synthesize every user utterance afresh (no TTS cache)')
      .addHelpText('after', HELP)
      .action(async (flags: CalibrateFlags) => {
        const signals = abortOnSignals();
        try {
          const outcome = await runCalibration({
            repeat: flags.repeat,
            delaysMs: flags.delays,
            wires: flags.wires,
            p95LimitMs: flags.maxP95Ms,
            ...(flags.sentenceGapMs !== undefined ? { sentenceGapMs: flags.sentenceGapMs } : {}),
            selfCommand: SELF,
            ...(flags.keep ? { keepDir: flags.keep } : {}),
            audio: {
              ...(flags.cacheDir ? { cacheDir: flags.cacheDir } : {}),
              ...(flags.cache === false ? { noCache: true } : {}),
            },
            signal: signals.signal,
            onProgress: (line) => void process.stderr.write(`${line}\n`),
          });
          process.stdout.write(`${renderCalibration(outcome)}\n`);
          if (flags.json) {
            const command = ['earshot', ...process.argv.slice(2)].join(' ');
            await writeFile(flags.json, `${JSON.stringify(calibrationJson(outcome, command), null, 2)}\n`);
          }
          process.exitCode = signals.exitCode() ?? (outcome.passed ? 0 : 1);
        } finally {
          signals.dispose();
        }
      });
  },
};
