import { writeFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { parseBotUrl } from '../../protocol/index.js';
import {
  parseConditionSweep,
  parseSweepRange,
  renderBenchReport,
  runBench,
  type ConditionSweep,
  type SweepRange,
} from '../../tools/bench/index.js';
import { addAudioFlags, audioSettings, type AudioFlags } from '../audio-flags.js';
import type { CliCommand } from '../command.js';
import { positiveInt } from '../options.js';
import { addBotFlags, addTrustFlags, sessionSettings, type BotFlags, type TrustFlags } from '../session-flags.js';
import { abortOnSignals } from '../signals.js';

interface BenchFlags extends AudioFlags, BotFlags, TrustFlags {
  scenario?: string;
  strict?: boolean;
  repeat: number;
  concurrency: number;
  json?: string;
  sweepInterrupt?: SweepRange;
  sweepCondition?: ConditionSweep;
  out?: string;
  ascii?: boolean;
}

const HELP = `
Each run is its own session (its own connection); --concurrency C runs C at a time against the
same bot. Per latency metric (voice_to_voice_ms, llm_ttfb_ms, first_token_ms, speech_padding_ms,
bot_speech_ms, interruption_ms) the report gives count, p50, p90, p95, p99 and max (nearest rank:
each is a value some turn measured) over every turn of every run that measured it, a histogram,
and the same per turn in the JSON; then the pass rate of each turn over all runs.

--sweep-interrupt FROM:TO:STEP reruns the scenario with the barge-in turn's send_after delay_ms
set to each offset, --repeat times per offset, and adds the yield curve: per offset, how many runs
were a barge-in (bot audio playing when the user started), how many yielded, how many got a
bot-interrupted event, and the interruption latency.

--sweep-condition NAME=V1,V2,... (earshot extension) reruns each scenario at every level of one
channel condition on the caller's audio, --repeat times per level, and adds the condition curve:
per level, the pass rate, voice-to-voice p50/p95 and the bot's word error rate on the caller
(user_wer). NAME: snr (noise.snr_db, white noise unless the scenario names another), loss
(loss.rate), gain (gain.gain_db), rate (speaking_rate.factor), or any numeric --condition key.

A file holding several scenarios (a scenarios: list) is benched scenario by scenario, one
report each; -s picks one of them. --json then holds an array of reports, one per scenario
(a single report object when one scenario was benched). The file's warnings are printed
first; --strict makes them errors.

Exit 0 when every run passed, 1 when any failed or could not run, 2 for usage errors; the report
and --json are written either way.`;

/**
 * `earshot bench <scenario> --url ws://... --repeat N`: each scenario of the file N times, latency
 * distributions and pass rates per turn. Exit 0 when every run passed, 1 when any
 * failed, 2 for usage errors; the report (and --json) is written either way.
 */
export const benchCommand: CliCommand = {
  name: 'bench',
  register(program: Command): void {
    const command = program
      .command('bench')
      .description(
        'Run one scenario many times against a running bot: latency percentiles, histograms, pass rate per ' +
          'turn, barge-in yield curve',
      )
      .argument('<scenario>', 'one scenario file');
    addBotFlags(command)
      .option(
        '-s, --scenario <name>',
        'only this scenario of the file: its <file>/<scenario> name, either half of it, or a glob',
      )
      .option('--strict', 'treat every warning of the file as an error (exit 2 before anything runs)')
      .option('-r, --repeat <n>', 'runs (per offset with --sweep-interrupt)', positiveInt, 10)
      .option('-c, --concurrency <n>', 'sessions at a time, each its own connection', positiveInt, 1)
      .option('--json <file>', 'write the report as JSON')
      .option(
        '--sweep-interrupt <from:to:step>',
        'rerun the barge-in turn (the first with an event-anchored send_after) with its delay_ms at each ' +
          'offset from FROM to TO ms; reports the yield curve',
        (v: string) => parseSweepRange(v),
      )
      .option(
        '--sweep-condition <name=v1,v2,...>',
        "rerun each scenario at every level of a channel condition on the caller's audio (snr=30,20,10,5; " +
          'loss=0,0.05,0.1); reports the condition curve',
        (v: string) => parseConditionSweep(v),
      )
      .option('--out <dir>', 'keep results.jsonl, traces and recordings here')
      .option('--ascii', 'draw histograms with # instead of Unicode blocks')
      .addHelpText('after', HELP);
    addTrustFlags(command);
    addAudioFlags(command).action(async (path: string, flags: BenchFlags) => {
      parseBotUrl(flags.url);
      const signals = abortOnSignals();
      try {
        const outcome = await runBench({
          path,
          ...(flags.scenario !== undefined ? { scenario: flags.scenario } : {}),
          strict: flags.strict === true,
          url: flags.url,
          repeat: flags.repeat,
          concurrency: flags.concurrency,
          ...(flags.sweepInterrupt ? { sweep: flags.sweepInterrupt } : {}),
          ...(flags.sweepCondition ? { conditionSweep: flags.sweepCondition } : {}),
          ...(flags.out ? { outDir: flags.out } : {}),
          defaultWithinMs: flags.timeout,
          allowOutsideRoot: flags.allowOutsideRoot,
          audio: { ...audioSettings(flags), ...(flags.out ? {} : { record: false }) },
          session: sessionSettings(flags),
          signal: signals.signal,
          onProgress: (line) => void process.stderr.write(`${line}\n`),
        });
        const { reports } = outcome;
        process.stdout.write(`${reports.map((r) => renderBenchReport(r, { ascii: flags.ascii })).join('\n\n')}\n`);
        if (flags.json)
          await writeFile(flags.json, `${JSON.stringify(reports.length === 1 ? reports[0] : reports, null, 2)}\n`);
        // Exit 3: nothing failed, but some run was inconclusive (earshot could not hear the bot reliably).
        const allPassed =
          reports.length > 0 && reports.every((r) => r.runs > 0 && r.passed + r.inconclusive === r.runs);
        const doubtful = reports.some((r) => r.inconclusive > 0);
        process.exitCode = signals.exitCode() ?? (allPassed ? (doubtful ? 3 : 0) : 1);
      } finally {
        signals.dispose();
      }
    });
  },
};
