import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseCategories, parseSeverities, type RunnableFilter } from '../runner/index.js';
import {
  LLM_OVERRIDE_SERVICES,
  parseLlmOverride,
  type LlmConfig,
  type LlmOverrideFlag,
  type ScenarioSeverity,
} from '../scenario/index.js';
import { FUNCTION_CALL_REPORT_LEVELS, type CodecName, type FunctionCallReportLevel } from '../protocol/index.js';
import {
  DEFAULT_BOT_INPUT_RATE,
  HANDSHAKE_MODES,
  type BotEnables,
  type HandshakeMode,
  type SessionSettingsOptions,
} from '../session/index.js';
import { nonNegativeInt, positiveInt, secondsToMs, wireOption } from './options.js';

/** What the bot under test is and takes, beyond its URL: every command that talks to bots. */
export interface WireFlags {
  handshake: HandshakeMode;
  botInputRate: number;
  botReportLevel?: FunctionCallReportLevel;
  botVadEvents?: boolean;
  botLlmMarkers?: boolean;
  bargeInGapMs?: number;
}

export function addWireFlags(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--handshake <mode>',
        'rtvi (client-ready → bot-ready), or none for a bot without RTVI that only speaks audio frames ' +
          '(--wire protobuf)',
      )
        .choices([...HANDSHAKE_MODES])
        .default('rtvi'),
    )
    .option(
      '--bot-input-rate <hz>',
      "the bot pipeline's input sample rate: the caller's audio is resampled to it (Pipecat does not resample)",
      positiveInt,
      DEFAULT_BOT_INPUT_RATE,
    )
    .addOption(
      new Option(
        '--bot-report-level <level>',
        "the function-call report level the bot's RTVIObserver uses (for wires that cannot raise it: protobuf)",
      ).choices([...FUNCTION_CALL_REPORT_LEVELS]),
    )
    .option(
      '--bot-vad-events',
      'the bot sends raw VAD events itself (RTVIObserverParams(vad_user_speaking_enabled=True)), for wires ' +
        'that cannot ask (protobuf)',
    )
    .option(
      '--bot-llm-markers',
      "the bot reports its LLM's markers itself (RTVIObserverParams(bot_llm_marker_enabled=True)), for wires " +
        'that cannot ask (protobuf)',
    )
    .option(
      '--barge-in-gap-ms <ms>',
      "a pause in the bot's speech up to this long still counts as it talking, while its speaking window is " +
        'open (default 1000)',
      nonNegativeInt,
    );
}

/** The session settings the wire flags carry. */
export function wireSettings(flags: WireFlags): SessionSettingsOptions {
  const bot: BotEnables = {
    ...(flags.botReportLevel !== undefined ? { reportLevel: flags.botReportLevel } : {}),
    ...(flags.botVadEvents ? { vadEvents: true } : {}),
    ...(flags.botLlmMarkers ? { llmMarkers: true } : {}),
  };
  return {
    handshake: flags.handshake,
    botInputRate: flags.botInputRate,
    ...(Object.keys(bot).length ? { botEnables: bot } : {}),
    ...(flags.bargeInGapMs !== undefined ? { bargeInGapMs: flags.bargeInGapMs } : {}),
  };
}

/** How to reach a running bot and how long to wait on it: `earshot run` and `earshot bench`. */
export interface BotFlags extends WireFlags {
  url: string;
  wire: CodecName;
  timeout?: number;
  connectTimeout?: number;
  handshakeTimeout?: number;
  sendAfterTimeout?: number;
}

export function addBotFlags(command: Command): Command {
  const bot = command
    .requiredOption('--url <ws-url>', 'the bot WebSocket URL, e.g. ws://127.0.0.1:7860')
    .addOption(wireOption())
    .option('--timeout <seconds>', 'default within_ms for expectations without one (default 60)', secondsToMs)
    .option('--connect-timeout <seconds>', 'how long to retry connecting (default 10)', secondsToMs)
    .option('--handshake-timeout <seconds>', 'how long to wait for bot-ready (default 10)', secondsToMs)
    .option(
      '--send-after-timeout <seconds>',
      'how long an event-anchored send_after waits for its event (default 30)',
      secondsToMs,
    );
  return addWireFlags(bot);
}

/** What a scenario may reach and whether judge verdicts are cached: every command that runs scenarios. */
export interface TrustFlags {
  allowOutsideRoot?: boolean;
  allowCode?: boolean;
  /** A folder, or false for --no-judge-cache. */
  judgeCache?: string | false;
  /** `--judge SERVICE:MODEL[@URL]`, parsed: the judge in place of every file's judge.eval. */
  judge?: LlmConfig;
}

/** Commander parser for an LLM flag (`--judge`, `--simulator`): parsed here, once, into its `LlmConfig`. */
export function llmFlag(flag: LlmOverrideFlag): (value: string) => LlmConfig {
  return (value) => {
    try {
      return parseLlmOverride(flag, value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message.replace(/^--\S+ \S+: /, ''));
    }
  };
}

/** How an LLM flag is written, from the services it takes. */
const LLM_SYNTAX = LLM_OVERRIDE_SERVICES.map((s) => `${s}:MODEL[@URL]`).join(', ');

export function addTrustFlags(command: Command): Command {
  return command
    .option('--allow-outside-root', 'let !include, image: and audio: reach outside the scenario root')
    .option('--allow-code', 'load factory: code hooks named by scenarios')
    .option(
      '--judge <service:model[@url]>',
      `judge every eval: with this LLM instead of the scenario's judge.eval (${LLM_SYNTAX}; ` +
        'e.g. openai:gpt-4o-mini@http://127.0.0.1:8000/v1)',
      llmFlag('--judge'),
    )
    .option('--judge-cache <dir>', 'judge verdict cache folder (default ~/.cache/earshot/judge)')
    .option('--no-judge-cache', 'ask the judge every time (no verdict cache)');
}

/** What the trust flags say of every session: code hooks, the judge and its cache. */
export function trustSettings(flags: TrustFlags): SessionSettingsOptions {
  return {
    ...(flags.allowCode ? { allowCode: true } : {}),
    ...(flags.judge !== undefined ? { judgeOverride: flags.judge } : {}),
    ...(typeof flags.judgeCache === 'string' ? { judgeCacheDir: flags.judgeCache } : {}),
    noJudgeCache: flags.judgeCache === false,
  };
}

/** Every session setting the flags of a command that talks to a running bot carry (each only when given). */
export function sessionSettings(flags: BotFlags & TrustFlags): SessionSettingsOptions {
  return {
    ...wireSettings(flags),
    ...trustSettings(flags),
    codec: flags.wire,
    ...(flags.connectTimeout ? { connectTimeoutMs: flags.connectTimeout } : {}),
    ...(flags.handshakeTimeout ? { handshakeTimeoutMs: flags.handshakeTimeout } : {}),
    ...(flags.sendAfterTimeout ? { sendAfterMaxWaitMs: flags.sendAfterTimeout } : {}),
  };
}

/** `--simulator` and the GAIA filters: the commands that run simulations (run, suite). */
export interface SimulationFlags {
  /** `--simulator SERVICE:MODEL[@URL]`, parsed: the caller's LLM in place of every simulation's simulator:. */
  simulator?: LlmConfig;
  category?: string[];
  severity?: ScenarioSeverity[];
}

function usage<T>(parse: (v: string) => T): (v: string) => T {
  return (value) => {
    try {
      return parse(value);
    } catch (err) {
      throw new InvalidArgumentError((err as Error).message.replace(/^--\S+ "[^"]*": /, ''));
    }
  };
}

/** `--category` and `--severity` alone (validate lists what they keep). */
export function addFilterFlags(command: Command): Command {
  return command
    .option(
      '--category <list>',
      "only scenarios whose category: is one of these, comma-separated (earshot extension, GAIA's field)",
      usage(parseCategories),
    )
    .option(
      '--severity <list>',
      'only scenarios whose severity: is one of these: critical, high, medium, low, comma-separated (earshot ' +
        "extension, GAIA's field)",
      usage(parseSeverities),
    );
}

export function addSimulationFlags(command: Command): Command {
  command.option(
    '--simulator <service:model[@url]>',
    `play every simulation's caller with this LLM instead of its simulator: block (${LLM_SYNTAX}; ` +
      'e.g. ollama:llama3.2:3b)',
    llmFlag('--simulator'),
  );
  return addFilterFlags(command);
}

/** The filter the flags ask for, undefined when neither was given. */
export function filterOf(flags: Pick<SimulationFlags, 'category' | 'severity'>): RunnableFilter | undefined {
  if (flags.category === undefined && flags.severity === undefined) return undefined;
  return {
    ...(flags.category ? { categories: flags.category } : {}),
    ...(flags.severity ? { severities: flags.severity } : {}),
  };
}
