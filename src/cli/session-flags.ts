import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseJudgeOverride } from '../judge/index.js';
import type { CodecName } from '../protocol/index.js';
import { secondsToMs } from './options.js';

/** How to reach a running bot and how long to wait on it: `earshot run` and `earshot bench`. */
export interface BotFlags {
  url: string;
  wire: CodecName;
  timeout?: number;
  connectTimeout?: number;
  handshakeTimeout?: number;
  sendAfterTimeout?: number;
}

export function addBotFlags(command: Command): Command {
  return command
    .requiredOption('--url <ws-url>', 'the bot WebSocket URL, e.g. ws://127.0.0.1:7860')
    .addOption(new Option('--wire <codec>', 'wire codec').choices(['pipecat-eval', 'protobuf']).default('pipecat-eval'))
    .option('--timeout <seconds>', 'default within_ms for expectations without one (default 60)', secondsToMs)
    .option('--connect-timeout <seconds>', 'how long to retry connecting (default 10)', secondsToMs)
    .option('--handshake-timeout <seconds>', 'how long to wait for bot-ready (default 10)', secondsToMs)
    .option('--send-after-timeout <seconds>', 'how long an event-anchored send_after waits for its event (default 30)', secondsToMs);
}

/** What a scenario may reach and whether judge verdicts are cached: every command that runs scenarios. */
export interface TrustFlags {
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  /** A folder, or false for --no-judge-cache. */
  judgeCache?: string | false;
  /** `--judge SERVICE:MODEL[@URL]`: the judge in place of every file's judge.eval. */
  judge?: string;
}

/** Commander parser for `--judge`: checked up front, kept as written (the session parses it again where it applies it). */
export function judgeOverride(value: string): string {
  try {
    parseJudgeOverride(value);
  } catch (err) {
    throw new InvalidArgumentError((err as Error).message.replace(/^--judge \S+: /, ''));
  }
  return value;
}

export function addTrustFlags(command: Command): Command {
  return command
    .option('--allow-outside-root', 'let !include, image: and audio: reach outside the scenario root')
    .option('--allow-code', 'load factory: code hooks named by scenarios')
    .option(
      '--judge <service:model[@url]>',
      "judge every eval: with this LLM instead of the scenario's judge.eval (openai:MODEL[@URL], ollama:MODEL[@URL]; e.g. openai:gpt-4o-mini@http://127.0.0.1:8000/v1)",
      judgeOverride,
    )
    .option('--judge-cache <dir>', 'judge verdict cache folder (default ~/.cache/earshot/judge)')
    .option('--no-judge-cache', 'ask the judge every time (no verdict cache)');
}

/** The session settings these flags carry (each left out when its flag was not given). */
export function sessionSettings(flags: BotFlags & TrustFlags): {
  codec: CodecName;
  connectTimeoutMs?: number;
  handshakeTimeoutMs?: number;
  sendAfterMaxWaitMs?: number;
  judgeCacheDir?: string;
  noJudgeCache: boolean;
  judgeOverride?: string;
} {
  return {
    codec: flags.wire,
    ...(flags.connectTimeout ? { connectTimeoutMs: flags.connectTimeout } : {}),
    ...(flags.handshakeTimeout ? { handshakeTimeoutMs: flags.handshakeTimeout } : {}),
    ...(flags.sendAfterTimeout ? { sendAfterMaxWaitMs: flags.sendAfterTimeout } : {}),
    ...(typeof flags.judgeCache === 'string' ? { judgeCacheDir: flags.judgeCache } : {}),
    noJudgeCache: flags.judgeCache === false,
    ...(flags.judge !== undefined ? { judgeOverride: flags.judge } : {}),
  };
}
