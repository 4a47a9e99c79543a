import { InvalidArgumentError, Option, type Command } from 'commander';
import { parseCategories, parseNameList, parseSeverities, type RunnableFilter } from '../runner/index.js';
import {
  DEFAULT_JUDGE_THRESHOLD,
  DEFAULT_MIN_AGENT_TURNS,
  LLM_OVERRIDE_SERVICES,
  parseLlmOverride,
  type LlmConfig,
  type LlmOverrideFlag,
  type ScenarioSeverity,
} from '../scenario/index.js';
import { FUNCTION_CALL_REPORT_LEVELS, type CodecName, type FunctionCallReportLevel } from '../protocol/index.js';
import {
  DEFAULT_BOT_INPUT_RATE,
  DOCUMENTS_VIA,
  HANDSHAKE_MODES,
  type BotEnables,
  type DocumentsVia,
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
  documentsVia?: DocumentsVia;
  documentsTimeout?: number;
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
    )
    .addOption(
      new Option(
        '--documents-via <way>',
        "how a GAIA scenario's setup.index_documents reach the bot: message (an RTVI client-message the bot " +
          'acknowledges; the default wherever RTVI is), context (eval-context, --wire pipecat-eval only), or ' +
          'spawn (a suite writes them to the file its spawn: names with {documents})',
      ).choices([...DOCUMENTS_VIA]),
    )
    .option(
      '--documents-timeout <seconds>',
      'how long the bot gets to acknowledge documents sent by message (default 30)',
      secondsToMs,
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
    ...(flags.documentsVia !== undefined ? { documentsVia: flags.documentsVia } : {}),
    ...(flags.documentsTimeout !== undefined ? { documentsAckTimeoutMs: flags.documentsTimeout } : {}),
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
  /** `--domain a,b`: NeMo's name-prefix filter. */
  domain?: string[];
  /** `--scenarios x,y`: NeMo's run-by-name filter. */
  scenarios?: string[];
  /** `--corpus FILE`: the GAIA corpus manifest. */
  corpus?: string;
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
    )
    .option(
      '--domain <prefixes>',
      "only scenarios whose name starts with one of these prefixes followed by '__' (NeMo's --domain; " +
        'tau2_telecom keeps tau2_telecom__1, not tau2_telecom_workflow__1), comma-separated',
      usage((v) => parseNameList('--domain', v)),
    )
    .option(
      '--scenarios <names>',
      "only these scenarios, by name (a NeMo scenario's name, or <file name>/<name>), comma-separated",
      usage((v) => parseNameList('--scenarios', v)),
    );
}

export function addSimulationFlags(command: Command): Command {
  command
    .option(
      '--simulator <service:model[@url]>',
      `play every simulation's caller (and write every GAIA objective-only turn) with this LLM instead of its ` +
        `simulator: block (${LLM_SYNTAX}; e.g. ollama:llama3.2:3b)`,
      llmFlag('--simulator'),
    )
    .option(
      '--corpus <file>',
      "the GAIA corpus manifest (manifest.json) GAIA files' doc_id and fact_id refer to (default: the nearest " +
        'eval/corpus/manifest.json or corpus/manifest.json up to the scenario root)',
    );
  return addFilterFlags(command);
}

/** The filter the flags ask for, undefined when neither was given. */
export function filterOf(
  flags: Pick<SimulationFlags, 'category' | 'severity' | 'domain' | 'scenarios'>,
): RunnableFilter | undefined {
  if ([flags.category, flags.severity, flags.domain, flags.scenarios].every((f) => f === undefined)) return undefined;
  return {
    ...(flags.category ? { categories: flags.category } : {}),
    ...(flags.severity ? { severities: flags.severity } : {}),
    ...(flags.domain ? { domains: flags.domain } : {}),
    ...(flags.scenarios ? { names: flags.scenarios } : {}),
  };
}

/** NeMo's run flags (`earshot run`): the verdict's knobs and `--list`. */
export interface NemoRunFlags {
  list?: boolean;
  minAgentTurns?: number;
  /** `--duration`, seconds. */
  duration?: number;
  strictMatch?: boolean;
  judgeThreshold?: number;
}

function positiveSeconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('expected a number of seconds above 0');
  return n;
}

function unitInterval(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0 || n > 1)
    throw new InvalidArgumentError('expected a number from 0 to 1');
  return n;
}

export function addNemoRunFlags(command: Command): Command {
  return command
    .option('--list', 'list the scenarios grouped by domain (name prefix before __), with counts, and exit')
    .option(
      '--min-agent-turns <n>',
      'NeMo scenarios: a run with fewer bot turns fails the composite verdict ' +
        `(default ${DEFAULT_MIN_AGENT_TURNS}; 0 off)`,
      nonNegativeInt,
    )
    .option('--duration <seconds>', "cap every simulation's max_duration (NeMo's --duration)", positiveSeconds)
    .option('--strict-match', "NeMo's ACTION_MATCH requires an exact bijection (disallow_extra_items) everywhere")
    .option(
      '--judge-threshold <score>',
      `the 0..1 judge score NeMo's JUDGE_PASSED needs (default ${DEFAULT_JUDGE_THRESHOLD})`,
      unitInterval,
    );
}

/** The session settings NeMo's run flags carry (each only when given). */
export function nemoSettings(flags: NemoRunFlags): SessionSettingsOptions {
  return {
    ...(flags.minAgentTurns !== undefined ? { minAgentTurns: flags.minAgentTurns } : {}),
    ...(flags.duration !== undefined ? { durationCapS: flags.duration } : {}),
    ...(flags.strictMatch ? { strictMatch: true } : {}),
    ...(flags.judgeThreshold !== undefined ? { judgeThreshold: flags.judgeThreshold } : {}),
  };
}
