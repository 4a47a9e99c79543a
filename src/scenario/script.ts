import { childPath, diagnosticAt } from './diagnostics.js';
import {
  BOT_AUDIO_EVENTS,
  isFunctionCallEvent,
  isTextEvent,
  JUDGEABLE_EVENTS,
  MARKER_KEYS,
  type EventName,
  type MarkerKind,
} from './events.js';
import { ABSENT_CONFLICTS, DTMF_KEYS } from './fields.js';
import { asRecord, normalizeCall, normalizeJudge, normalizeUser, type Normalizer } from './normalize.js';
import type {
  Expectation,
  JudgeConfig,
  LatencyAssertions,
  LatencyBound,
  Scenario,
  SendAfter,
  Turn,
  UserConfig,
} from './types.js';
import { LATENCY_METRICS } from './types.js';
import { normalizeTextChecks, normalizeTurnChecks } from './text-checks.js';
import { normalizeConditionFields } from './conditions.js';
import { normalizeBackchannel, normalizeProbe } from './probes.js';

/** Scripted scenarios: Pipecat's cross-field rules on top of the field table's type checks. */

export type ScriptBody = Omit<
  Scenario,
  'file' | 'root' | 'includes' | 'warnings' | 'locations' | 'requires_code' | 'code_hooks' | 'file_name' | 'index'
>;

/** Latency metrics measured from the bot's audio: meaningless when a text judge keeps the bot silent. */
const AUDIO_LATENCIES = new Set(['voice_to_voice_ms', 'speech_padding_ms', 'bot_speech_ms', 'interruption_ms']);

export function normalizeScript(raw: Record<string, unknown>, n: Normalizer, defaultWithinMs: number): ScriptBody {
  const user = normalizeUser(raw.user, n);
  const judge = normalizeJudge(raw.judge, n);
  const rawTurns = Array.isArray(raw.turns) ? raw.turns : [];
  const turns: Turn[] = [];
  rawTurns.forEach((t, i) => {
    const turn = asRecord(t);
    if (turn) turns.push(normalizeTurn(turn, `turns[${i}]`, n, user, judge, defaultWithinMs));
  });
  if (Array.isArray(raw.turns) && raw.turns.length === 0) n.warn('turns', 'the scenario has no turns');
  checkSpeechNeeded(turns, user, n);
  const context = (Array.isArray(raw.context) ? raw.context : []).filter(
    (m): m is Record<string, unknown> => asRecord(m) !== undefined,
  );
  return {
    kind: 'script',
    name: String(raw.name ?? ''),
    turns,
    context,
    user,
    judge,
    trigger_disconnect: raw.trigger_disconnect === true,
    stop_on_failure: raw.stop_on_failure !== false,
    ...normalizeConditionFields(raw, '', n, user),
  };
}

function normalizeTurn(
  raw: Record<string, unknown>,
  p: string,
  n: Normalizer,
  user: UserConfig,
  judge: JudgeConfig,
  defaultWithinMs: number,
): Turn {
  // Keys in the YAML's order (this is what `validate --json` prints); expect is added last.
  const turn = {} as Turn;
  if (typeof raw.user === 'string') turn.user = raw.user;
  if (typeof raw.dtmf === 'string') {
    const bad = [...raw.dtmf].findIndex((c) => !DTMF_KEYS.includes(c));
    if (bad >= 0) dtmfError(n, `${p}.dtmf`, raw.dtmf, bad);
    else turn.dtmf = raw.dtmf;
  }
  if (turn.user !== undefined && raw.dtmf !== undefined) {
    n.error(`${p}.dtmf`, "a turn has 'user:' (speak) or 'dtmf:' (press keys), not both");
  }
  if (typeof raw.audio === 'string') {
    const where = `${p}.audio`;
    if (raw.dtmf !== undefined) n.error(where, "a turn has 'audio:' (a recording) or 'dtmf:' (keys), not both");
    else if (raw.user === undefined) {
      n.error(
        where,
        "'audio:' needs 'user:' beside it: the text the recording says, which the judge and text_contains read",
      );
    } else if (user.modality !== 'audio') {
      n.error(where, "'audio:' plays a recording to the bot, which needs 'user.modality: audio'");
    }
    const file = n.localFile(where, raw.audio, 'audio file');
    if (file) turn.audio = file;
  }
  if (typeof raw.image === 'string') {
    const file = n.localFile(`${p}.image`, raw.image, 'image');
    if (file) turn.image = file;
  }
  const sendAfter = asRecord(raw.send_after);
  if (sendAfter) {
    const s = normalizeSendAfter(sendAfter, `${p}.send_after`, n, judge);
    if (s) turn.send_after = s;
    if (raw.user === undefined && raw.dtmf === undefined) {
      n.error(`${p}.send_after`, "'send_after:' schedules the turn's input, but the turn has no 'user:' or 'dtmf:'");
    }
  }
  turn.expect = [];
  (Array.isArray(raw.expect) ? raw.expect : []).forEach((e, i) => {
    const exp = asRecord(e);
    if (!exp) return;
    const normalized = normalizeExpectation(exp, `${p}.expect[${i}]`, n, judge, defaultWithinMs);
    if (normalized) turn.expect.push(normalized);
  });
  const latency = asRecord(raw.latency);
  if (latency) turn.latency = normalizeLatency(latency, `${p}.latency`, n, judge);
  normalizeTurnChecks(raw, turn, p, n, user);
  Object.assign(turn, normalizeConditionFields(raw, p, n, user));
  normalizeProbe(raw, turn, p, n, user, judge);
  normalizeBackchannel(raw, turn, p, n, user, judge);
  return turn;
}

function dtmfError(n: Normalizer, path: string, keys: string, index: number): void {
  // Point at the offending key when the value sits on one line.
  const start = n.check.textStart[path];
  const source = start ? { ...start, col: start.col + index } : n.locate(path);
  n.diagnostics.push(
    diagnosticAt(
      'error',
      source,
      path,
      `invalid keypad key ${JSON.stringify(keys[index])} in ${JSON.stringify(keys)}; expected only 0-9, * and #`,
      'keypad keys 0-9, * and #',
    ),
  );
}

function normalizeSendAfter(
  raw: Record<string, unknown>,
  p: string,
  n: Normalizer,
  judge: JudgeConfig,
): SendAfter | undefined {
  const delay = typeof raw.delay_ms === 'number' ? raw.delay_ms : 0;
  const event = typeof raw.event === 'string' ? (raw.event as EventName) : undefined;
  if (n.hasErrorAt(p)) return undefined;
  if (event === undefined && delay === 0) {
    n.error(p, "needs an 'event:' to wait for or a positive 'delay_ms:' (a zero delay with no event does nothing)");
    return undefined;
  }
  if (event && judge.modality === 'text' && (BOT_AUDIO_EVENTS as readonly string[]).includes(event)) {
    n.warn(
      `${p}.event`,
      `${event} needs the bot's audio, but judge.modality is text (the bot is silent): this send would never fire`,
    );
  }
  return event ? { event, delay_ms: delay } : { delay_ms: delay };
}

function normalizeExpectation(
  raw: Record<string, unknown>,
  p: string,
  n: Normalizer,
  judge: JudgeConfig,
  defaultWithinMs: number,
): Expectation | undefined {
  if (typeof raw.event !== 'string') return undefined;
  const declared = raw.event as EventName;
  const textJudge = judge.modality === 'text';
  let event: EventName = declared;
  if (declared === 'response' && textJudge) event = 'llm_response';
  if (declared === 'tts_response' && textJudge) {
    n.error(
      `${p}.event`,
      "tts_response needs the bot to speak, but judge.modality is text; use 'response' or 'llm_response', " +
        'or set judge.modality: audio',
    );
  } else if (textJudge && (BOT_AUDIO_EVENTS as readonly string[]).includes(declared)) {
    n.warn(
      `${p}.event`,
      `${declared} is measured from the bot's audio, but judge.modality is text (the bot is silent)`,
    );
  }
  const absent = raw.absent === true;
  const present = ABSENT_CONFLICTS.filter((k) => n.wrote(childPath(p, k)));
  if (absent && present.length > 0) {
    n.error(
      `${p}.absent`,
      `'absent: true' matches on the event type only; it cannot be combined with ` +
        `${present.map((k) => `'${k}'`).join(', ')}`,
    );
  }
  const exp: Expectation = {
    event,
    declared_event: declared,
    within_ms: typeof raw.within_ms === 'number' ? raw.within_ms : defaultWithinMs,
    absent,
  };
  for (const key of ['text_contains', 'text_excludes'] as const) {
    const value = raw[key];
    if (typeof value !== 'string') continue;
    exp[key] = value;
    if (!isTextEvent(declared))
      n.warn(
        `${p}.${key}`,
        `${declared} carries no text, so ${key} ${key === 'text_contains' ? 'can never match' : 'checks nothing'}`,
      );
  }
  normalizeTextChecks(raw, declared, exp, p, n);
  if (typeof raw.eval === 'string') normalizeEval(raw.eval, declared, exp, p, n);
  markerChecks(raw, declared, exp, p, n);
  const hasCallKeys = raw.calls !== undefined || raw.name !== undefined || raw.args !== undefined;
  if (isFunctionCallEvent(declared)) {
    if (!absent) {
      if (Array.isArray(raw.calls)) {
        exp.calls = raw.calls.filter((c) => c !== undefined).map(normalizeCall);
        if (raw.name !== undefined || raw.args !== undefined) {
          n.warn(
            raw.name !== undefined ? `${p}.name` : `${p}.args`,
            "ignored: 'calls:' is given, so the 'name:'/'args:' shorthand is not used",
          );
        }
      } else {
        exp.calls = [normalizeCall({ name: raw.name, args: raw.args })];
      }
    }
  } else if (hasCallKeys) {
    const key = raw.calls !== undefined ? 'calls' : raw.name !== undefined ? 'name' : 'args';
    n.warn(`${p}.${key}`, `ignored: '${key}:' applies to function_call and function_call_stopped, not ${declared}`);
  }
  return exp;
}

/** `eval:` is judged on the bot's words or a call's name and arguments; a stopped call has neither. */
function normalizeEval(criterion: string, declared: EventName, exp: Expectation, p: string, n: Normalizer): void {
  if (declared === 'function_call_stopped') {
    n.error(
      `${p}.eval`,
      "a stopped call carries no arguments to judge; put the 'eval:' on the 'function_call' instead",
    );
    return;
  }
  exp.eval = criterion;
  if (!(JUDGEABLE_EVENTS as readonly string[]).includes(declared)) {
    n.warn(
      `${p}.eval`,
      `the judge only makes sense on the bot's replies and calls (${JUDGEABLE_EVENTS.join(', ')}); ` +
        `on ${declared} it will run but is unlikely to be meaningful`,
    );
  }
}

/** `marker:`, `marker_first:`, `markers:`, `text_after:` check an `llm_marker` event's raw text, and nothing else. */
function markerChecks(
  raw: Record<string, unknown>,
  declared: EventName,
  exp: Expectation,
  p: string,
  n: Normalizer,
): void {
  const written = MARKER_KEYS.filter((k) => n.wrote(childPath(p, k)));
  if (written.length === 0) return;
  if (declared !== 'llm_marker') {
    const keys = written.map((k) => `'${k}:'`).join(', ');
    n.error(
      `${p}.${written[0]}`,
      `${keys} ${written.length > 1 ? 'apply' : 'applies'} only to the 'llm_marker' event, not ${declared}`,
    );
    return;
  }
  if (typeof raw.marker === 'string') exp.marker = raw.marker as MarkerKind;
  if (typeof raw.marker_first === 'boolean') exp.marker_first = raw.marker_first;
  if (typeof raw.markers === 'number') exp.markers = raw.markers;
  if (typeof raw.text_after === 'boolean') exp.text_after = raw.text_after;
}

function normalizeLatency(
  raw: Record<string, unknown>,
  p: string,
  n: Normalizer,
  judge: JudgeConfig,
): LatencyAssertions {
  const out: LatencyAssertions = {};
  for (const metric of LATENCY_METRICS) {
    const bound = asRecord(raw[metric]) as LatencyBound | undefined;
    if (!bound) continue;
    const where = `${p}.${metric}`;
    if (bound.min !== undefined && bound.max !== undefined && bound.min > bound.max) {
      n.error(where, `min (${bound.min}) is above max (${bound.max})`);
      continue;
    }
    if (judge.modality === 'text' && AUDIO_LATENCIES.has(metric)) {
      n.warn(where, `${metric} is measured from the bot's audio, but judge.modality is text (the bot is silent)`);
    }
    const b: LatencyBound = {};
    if (bound.min !== undefined) b.min = bound.min;
    if (bound.max !== undefined) b.max = bound.max;
    out[metric] = b;
  }
  return out;
}

/** `user.modality: audio` needs a TTS unless every spoken turn plays a recording. */
function checkSpeechNeeded(turns: Turn[], user: UserConfig, n: Normalizer): void {
  if (user.modality !== 'audio' || user.speech || n.hasErrorAt('user.speech')) return;
  const spoken = turns.flatMap((t, i) => (t.user !== undefined && t.audio === undefined ? [i] : []));
  if (spoken.length === 0) return;
  const where = n.check.locations['user.modality'] ? 'user.modality' : 'user';
  const what = `the TTS that speaks turn${spoken.length > 1 ? 's' : ''} ${spoken.join(', ')}`;
  const message = `needs a 'user.speech:' block (${what}), or an 'audio:' recording on each of them`;
  n.error(where, where === 'user.modality' ? `audio ${message}` : `user.modality: audio ${message}`);
}
