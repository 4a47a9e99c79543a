import { Option, type Command } from 'commander';
import { isCodecName, parseBotUrl, type CodecName } from '../../protocol/index.js';
import { runList } from '../../suite/run-list.js';
import { addAudioFlags, audioSettings, type AudioFlags } from '../audio-flags.js';
import type { CliCommand } from '../command.js';
import { secondsToMs } from '../options.js';
import { abortOnSignals } from '../signals.js';

interface RunFlags extends AudioFlags {
  url: string;
  wire: CodecName;
  timeout?: number;
  connectTimeout?: number;
  handshakeTimeout?: number;
  sendAfterTimeout?: number;
  out?: string;
  reporter: string;
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  /** A folder, or false for --no-judge-cache. */
  judgeCache?: string | false;
  verbose?: boolean;
}

/** `earshot run <scenarios...> --url ws://...`: exit 0 when all pass, 1 when any fails, 2 for usage errors. */
export const runCommand: CliCommand = {
  name: 'run',
  register(program: Command): void {
    const command = program
      .command('run')
      .description('Run scenarios one after another against a running bot')
      .argument('<scenarios...>', 'scenario files or folders')
      .requiredOption('--url <ws-url>', 'the bot WebSocket URL, e.g. ws://127.0.0.1:7860')
      .addOption(new Option('--wire <codec>', 'wire codec').choices(['pipecat-eval', 'protobuf']).default('pipecat-eval'))
      .option('--timeout <seconds>', 'default within_ms for expectations without one (default 60)', secondsToMs)
      .option('--connect-timeout <seconds>', 'how long to retry connecting (default 10)', secondsToMs)
      .option('--handshake-timeout <seconds>', 'how long to wait for bot-ready (default 10)', secondsToMs)
      .option('--send-after-timeout <seconds>', 'how long an event-anchored send_after waits for its event (default 30)', secondsToMs)
      .option('--out <dir>', 'output folder for results.jsonl, summary.json, traces (default runs/<timestamp>)')
      .option('--reporter <list>', 'comma list: list, dot, json, jsonl, junit, html, github (name=PATH sets a file)', 'list')
      .option('--stop-bot', 'ask the bot to shut down (eval-cancel) after each scenario')
      .option('--trigger-disconnect', "fire the bot's on_client_disconnected handler when each scenario ends")
      .option('--allow-outside-root', 'let !include, image: and audio: reach outside the scenario root')
      .option('--allow-code', 'load factory: code hooks named by scenarios')
      .option('--judge-cache <dir>', 'judge verdict cache folder (default ~/.cache/earshot/judge)')
      .option('--no-judge-cache', 'ask the judge every time (no verdict cache)')
      .option('-v, --verbose', 'print the debug trace as it happens');
    addAudioFlags(command).action(async (paths: string[], flags: RunFlags) => {
      parseBotUrl(flags.url);
      if (!isCodecName(flags.wire)) throw new Error(`unknown wire ${flags.wire}`);
      const signals = abortOnSignals();
      try {
        const outcome = await runList({
          paths,
          url: flags.url,
          outDir: flags.out,
          reporter: flags.reporter,
          defaultWithinMs: flags.timeout,
          allowOutsideRoot: flags.allowOutsideRoot,
          allowCode: flags.allowCode,
          stopBot: flags.stopBot,
          triggerDisconnect: flags.triggerDisconnect,
          verbose: flags.verbose,
          signal: signals.signal,
          audio: audioSettings(flags),
          session: {
            codec: flags.wire,
            ...(flags.connectTimeout ? { connectTimeoutMs: flags.connectTimeout } : {}),
            ...(flags.handshakeTimeout ? { handshakeTimeoutMs: flags.handshakeTimeout } : {}),
            ...(flags.sendAfterTimeout ? { sendAfterMaxWaitMs: flags.sendAfterTimeout } : {}),
            ...(typeof flags.judgeCache === 'string' ? { judgeCacheDir: flags.judgeCache } : {}),
            noJudgeCache: flags.judgeCache === false,
          },
        });
        const signalled = signals.exitCode();
        process.exitCode = signalled ?? (outcome.results.every((r) => r.status === 'passed') ? 0 : 1);
      } finally {
        signals.dispose();
      }
    });
  },
};
