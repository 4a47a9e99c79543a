import {
  CODECS,
  type CodecName,
  type EvalConfigure,
  type FunctionCallReportLevel,
  type WireCapability,
} from '../protocol/index.js';
import {
  formatDiagnostic,
  locationOf,
  type Diagnostic,
  type EventName,
  type LatencyMetric,
  type Runnable,
  type Scenario,
} from '../scenario/index.js';
import { documentsOf, type DocumentsVia } from './documents.js';
import { nemoStateNeed } from './nemo-needs.js';
import { needsMarkerEvents, needsVadEvents, requiredReportLevel, usesEval } from './scenario-needs.js';

/**
 * Whether a scenario can run on the chosen wire, decided before connecting.
 *
 * Each codec declares what it carries (`CodecFactory.capabilities`). A
 * scenario that needs what the wire lacks is refused up front, pointing at
 * the field that needs it, because the alternative is worse: Pipecat's
 * production transport drops the eval-* control messages without an error, so
 * a `context:` would pass without the context ever being applied. Where
 * standard RTVI has an equivalent, it is used instead: `disconnect-bot` ends
 * a bot (`--stop-bot`), `append-to-context` seeds a context on bots that still
 * read it (Pipecat before 1.0, learnt from `bot-ready`'s `about`).
 *
 * What the wire cannot ask for, the bot may have enabled itself (its
 * RTVIObserver's `function_call_report_level`, `vad_user_speaking_enabled`,
 * `bot_llm_marker_enabled`): `BotEnables` says so (`--bot-report-level`,
 * `--bot-vad-events`, `--bot-llm-markers`).
 *
 * Without RTVI at all (`--handshake none`: a bot that only speaks audio
 * frames), the user turns must be spoken and only what the bot's audio shows
 * can be expected: `response` (transcribed), `bot_audio_started`,
 * `bot_audio_stopped`.
 */

/**
 * `rtvi`: client-ready → bot-ready, then RTVI both ways. `none`: a bot with no RTVI; the session starts on connect.
 */
export type HandshakeMode = 'rtvi' | 'none';
export const HANDSHAKE_MODES: readonly HandshakeMode[] = ['rtvi', 'none'];

/** What the bot under test enables on its own, where the wire cannot ask for it. */
export interface BotEnables {
  /** The report level its RTVIObserver uses for every function (`function_call_report_level`). */
  reportLevel?: FunctionCallReportLevel;
  /** Its RTVIObserver sends `vad-user-*-speaking` (`vad_user_speaking_enabled=True`). */
  vadEvents?: boolean;
  /** Its RTVIObserver sends `bot-llm-marker` (`bot_llm_marker_enabled=True`). */
  llmMarkers?: boolean;
}

export interface WireSettings {
  codec: CodecName;
  handshake: HandshakeMode;
  bot?: BotEnables;
  /** How a GAIA scenario's documents reach the bot (`--documents-via`); unset: `message` wherever RTVI is. */
  documentsVia?: DocumentsVia;
}

export interface WirePlan {
  /** The `eval-configure` to send after bot-ready; null when nothing is asked or the wire cannot carry it. */
  configure: EvalConfigure | null;
  /**
   * How `context:` is seeded: `append-to-context` only once bot-ready says the bot reads it (`appendToContextProblem`).
   */
  context: 'none' | 'eval-context' | 'append-to-context';
  /** How `--stop-bot` ends the bot. */
  stop: 'eval-cancel' | 'disconnect-bot' | 'none';
  /** How a GAIA scenario's documents reach the bot; `none` when it lists none. */
  documents: 'none' | DocumentsVia;
}

export interface WireCheck {
  plan: WirePlan;
  /** One located error per field the wire cannot serve; the scenario must not run when there is any. */
  problems: Diagnostic[];
}

const LEVEL_RANK: Record<FunctionCallReportLevel, number> = { disabled: 0, none: 1, name: 2, full: 3 };
/** What a bot without RTVI can show: its audio only. */
const AUDIO_EVENTS: ReadonlySet<EventName> = new Set<EventName>(['response', 'bot_audio_started', 'bot_audio_stopped']);
/** Latency metrics measured from RTVI reports (the rest come from audio). */
const RTVI_METRICS: readonly LatencyMetric[] = ['llm_ttfb_ms', 'first_token_ms', 'speech_padding_ms'];
const CALL_EVENTS = new Set<string>(['function_call', 'function_call_stopped']);
const VAD_EVENTS = new Set<string>(['vad_user_started_speaking', 'vad_user_stopped_speaking']);
const MARKER_EVENTS = new Set<string>(['llm_marker']);

const EVAL_ONLY =
  "is read only by Pipecat's eval transport (RTVIEvalSerializer); a production transport drops it without an error";

export function checkWire(scenario: Runnable, settings: WireSettings): WireCheck {
  const caps = CODECS[settings.codec].capabilities;
  const has = (c: WireCapability): boolean => caps.has(c);
  const problems: Diagnostic[] = [];
  const at = (path: string, message: string): void => void problems.push(diagnostic(scenario, path, message));
  const rtvi = settings.handshake === 'rtvi';
  const plan: WirePlan = {
    configure: null,
    context: 'none',
    stop: !rtvi ? 'none' : has('cancel') ? 'eval-cancel' : 'disconnect-bot',
    documents: 'none',
  };

  if (!rtvi) {
    if (!has('bare_audio'))
      at(
        '',
        '--handshake none needs a wire whose audio frames stand without RTVI (--wire protobuf); ' +
          `${settings.codec} carries RTVI messages only`,
      );
    checkWithoutRtvi(scenario, at);
  }

  const level = requiredReportLevel(scenario);
  const vad = needsVadEvents(scenario);
  const markers = needsMarkerEvents(scenario);
  const configure: EvalConfigure = {};
  if (level !== null && rtvi) {
    const declared = settings.bot?.reportLevel;
    if (has('report_level')) configure.function_call_report_level = { '*': level };
    else if (scenario.kind === 'script' && scenario.gaia !== undefined) {
      // Not refused: GAIA's tool selection and efficiency become not applicable (gaiaCallsVisible).
    } else if (declared === undefined || LEVEL_RANK[declared] < LEVEL_RANK[level]) {
      const path = reportLevelPath(scenario, level);
      const given = declared === undefined ? '' : ` (--bot-report-level ${declared} is not enough)`;
      at(
        path,
        `needs the bot to report function calls at level '${level}'${given}, and the ${settings.codec} wire ` +
          `cannot ask for it: eval-configure ${EVAL_ONLY}. ` +
          'Raise it in the bot (RTVIObserverParams(function_call_report_level={"*": ' +
          `RTVIFunctionCallReportLevel.${level.toUpperCase()}})) and pass --bot-report-level ${level}, or run ` +
          "the bot's eval transport (--wire pipecat-eval)",
      );
    }
  }
  if (vad && rtvi) {
    if (has('vad_events')) configure.vad_user_speaking = true;
    else if (settings.bot?.vadEvents !== true) {
      at(
        eventPath(scenario, VAD_EVENTS),
        `raw VAD events are off unless the bot turns them on, and the ${settings.codec} wire cannot ask for ` +
          `them: eval-configure ${EVAL_ONLY}. ` +
          'Enable them in the bot (RTVIObserverParams(vad_user_speaking_enabled=True)) and pass ' +
          "--bot-vad-events, or run the bot's eval transport (--wire pipecat-eval)",
      );
    }
  }
  if (markers && rtvi) {
    if (has('markers')) configure.bot_llm_marker = true;
    else if (settings.bot?.llmMarkers !== true) {
      at(
        eventPath(scenario, MARKER_EVENTS),
        `the bot reports its LLM's markers only when they are turned on, and the ${settings.codec} wire cannot ` +
          `ask for them: eval-configure ${EVAL_ONLY}. ` +
          'Enable them in the bot (RTVIObserverParams(bot_llm_marker_enabled=True)) and pass ' +
          "--bot-llm-markers, or run the bot's eval transport (--wire pipecat-eval)",
      );
    }
  }
  if (Object.keys(configure).length) plan.configure = configure;

  if (contextOf(scenario).length && rtvi) plan.context = has('context') ? 'eval-context' : 'append-to-context';
  checkDocuments(scenario, settings, plan, at);
  if (!has('images')) {
    turnsOf(scenario).forEach((t, i) => {
      if (t.image !== undefined)
        at(
          `turns[${i}].image`,
          `the ${settings.codec} wire cannot register an image: eval-image ${EVAL_ONLY}. Run this scenario ` +
            "against the bot's eval transport (--wire pipecat-eval)",
        );
    });
  }
  return { plan, problems };
}

/**
 * Whether a GAIA turn's judge can see the bot's function calls on this wire: the wire can ask for them
 * (eval-configure), or the bot reports them itself (`--bot-report-level name|full`). Else tool selection and
 * efficiency are not applicable, never scored 0.
 */
export function gaiaCallsVisible(settings: WireSettings): boolean {
  if (settings.handshake !== 'rtvi') return false;
  if (CODECS[settings.codec].capabilities.has('report_level')) return true;
  const declared = settings.bot?.reportLevel;
  return declared !== undefined && LEVEL_RANK[declared] >= LEVEL_RANK.name;
}

/** How the documents a GAIA scenario lists reach the bot, or the located error when no way can. */
function checkDocuments(
  scenario: Runnable,
  settings: WireSettings,
  plan: WirePlan,
  at: (path: string, message: string) => void,
): void {
  if (!documentsOf(scenario).length) return;
  const rtvi = settings.handshake === 'rtvi';
  const via = settings.documentsVia ?? (rtvi ? 'message' : undefined);
  const path = 'setup.index_documents';
  if (via === undefined) {
    at(
      path,
      'lists documents the bot must index, and a bot without RTVI (--handshake none) cannot be sent them: give ' +
        'each run a bot started with them (earshot suite, {documents} in spawn:, --documents-via spawn)',
    );
  } else if (via === 'message' && !rtvi) {
    at(path, '--documents-via message sends an RTVI client-message; a bot without RTVI (--handshake none) gets none');
  } else if (via === 'context' && (!rtvi || !CODECS[settings.codec].capabilities.has('context'))) {
    at(
      path,
      `--documents-via context seeds the bot's context with eval-context, which ${EVAL_ONLY}: use ` +
        "--documents-via message (an RTVI client-message the bot acknowledges) or spawn, or run the bot's eval " +
        'transport (--wire pipecat-eval)',
    );
  } else {
    plan.documents = via;
    if (via === 'context') plan.context = 'eval-context';
  }
}

/**
 * After bot-ready: the located error for a `context:` the bot cannot take, or
 * null when it reads `append-to-context` (Pipecat before 1.0, by `about`).
 */
export function appendToContextProblem(
  scenario: Runnable,
  codec: CodecName,
  about: Record<string, unknown> | undefined,
): Diagnostic | null {
  if (readsAppendToContext(about)) return null;
  const who =
    about && typeof about.library === 'string'
      ? `${about.library}${typeof about.library_version === 'string' ? ` ${about.library_version}` : ''}`
      : 'one whose bot-ready names no library';
  return diagnostic(
    scenario,
    'context',
    `the ${codec} wire cannot seed the bot's context: eval-context ${EVAL_ONLY}, and this bot (${who}) does ` +
      'not read append-to-context (Pipecat removed it in 1.0). ' +
      "Run this scenario against the bot's eval transport (bot.py -t eval, --wire pipecat-eval), or seed the " +
      'context in the bot',
  );
}

/** Pipecat answered append-to-context until 1.0.0 (deprecated since 0.0.85). */
export function readsAppendToContext(about: Record<string, unknown> | undefined): boolean {
  if (about?.library !== 'pipecat-ai' || typeof about.library_version !== 'string') return false;
  const m = /^(\d+)\.\d+\.\d+/.exec(about.library_version);
  return m !== null && Number(m[1]) < 1;
}

/** Problems as the session's error text: one located line each. */
export function formatProblems(problems: readonly Diagnostic[]): string {
  return problems.map((d) => formatDiagnostic(d)).join('\n');
}

function checkWithoutRtvi(scenario: Runnable, at: (path: string, message: string) => void): void {
  const none = 'a bot without RTVI (--handshake none)';
  if (scenario.judge.modality !== 'audio') {
    at(
      'judge.modality',
      `${none} is judged from its audio: set judge.modality: audio (text mode reads the bot's LLM text, which ` +
        'only RTVI carries)',
    );
  }
  if (contextOf(scenario).length) at('context', `${none} cannot have its context seeded: that takes RTVI`);
  const nemoNeed = scenario.kind === 'simulation' && scenario.nemo ? nemoStateNeed(scenario.nemo) : null;
  if (nemoNeed)
    at(
      nemoNeed.path,
      `needs the bot's scenario state (${nemoNeed.why}), and ${none} cannot be asked for it: ` +
        'apply_initialization and get_scenario_summary are RTVI client messages',
    );
  if (scenario.kind === 'simulation' && scenario.user.modality !== 'audio') {
    at('user.modality', `${none} cannot take typed text: the simulated caller must speak (user.modality: audio)`);
  }
  turnsOf(scenario).forEach((turn, i) => {
    const p = `turns[${i}]`;
    if (turn.user !== undefined && turn.audio === undefined && scenario.user.modality !== 'audio') {
      at(
        `${p}.user`,
        `${none} cannot take typed text: speak the turn (user.modality: audio) or play a recording (audio:)`,
      );
    }
    if (turn.dtmf !== undefined) at(`${p}.dtmf`, `keypad input is an RTVI message; ${none} cannot receive it`);
    if (turn.send_after?.event !== undefined && !AUDIO_EVENTS.has(turn.send_after.event)) {
      at(
        `${p}.send_after.event`,
        `'${turn.send_after.event}' is an RTVI report; ${none} sends only audio: anchor on bot_audio_started ` +
          'or bot_audio_stopped',
      );
    }
    turn.expect.forEach((exp, j) => {
      if (!AUDIO_EVENTS.has(exp.event)) {
        at(
          `${p}.expect[${j}].event`,
          `'${exp.event}' is an RTVI report; ${none} sends only audio: expect response (its speech, ` +
            'transcribed), bot_audio_started or bot_audio_stopped',
        );
      }
    });
    for (const metric of RTVI_METRICS) {
      if (turn.latency?.[metric] !== undefined)
        at(`${p}.latency.${metric}`, `${metric} is measured from the bot's RTVI reports; ${none} sends none`);
    }
  });
}

/**
 * The first call expectation that needs `level`, for the error's location (a simulation's judge reads every call: its
 * `persona`).
 */
function reportLevelPath(scenario: Runnable, level: FunctionCallReportLevel): string {
  if (scenario.kind === 'simulation') return 'persona';
  const judged = usesEval(scenario);
  for (const [i, turn] of scenario.turns.entries()) {
    for (const [j, exp] of turn.expect.entries()) {
      if (!CALL_EVENTS.has(exp.event)) continue;
      const calls = exp.calls ?? [];
      const needs =
        level === 'full' ? judged || calls.some((c) => c.args !== undefined) : calls.some((c) => c.name !== undefined);
      if (needs) return `turns[${i}].expect[${j}]`;
    }
  }
  return 'turns';
}

/** The first anchor or expectation on one of `events`, for the error's location. */
function eventPath(scenario: Runnable, events: ReadonlySet<string>): string {
  for (const [i, turn] of turnsOf(scenario).entries()) {
    if (turn.send_after?.event !== undefined && events.has(turn.send_after.event))
      return `turns[${i}].send_after.event`;
    const j = turn.expect.findIndex((e) => events.has(e.event));
    if (j >= 0) return `turns[${i}].expect[${j}].event`;
  }
  return 'turns';
}

/** A simulation's turns are made up during the call, and it seeds no context. */
function turnsOf(scenario: Runnable): Scenario['turns'] {
  return scenario.kind === 'script' ? scenario.turns : [];
}

function contextOf(scenario: Runnable): Scenario['context'] {
  return scenario.kind === 'script' ? scenario.context : [];
}

function diagnostic(scenario: Runnable, path: string, message: string): Diagnostic {
  const loc = locationOf(scenario, path);
  const d: Diagnostic = { severity: 'error', file: loc.file, line: loc.line, col: loc.col, path, message };
  if (loc.included_from)
    d.included_from = `${loc.included_from.file}:${loc.included_from.line}:${loc.included_from.col}`;
  return d;
}
