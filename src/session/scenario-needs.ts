import type { EvalConfigure, EvalConnectFlags, FunctionCallReportLevel } from '../protocol/index.js';
import type { Runnable } from '../scenario/index.js';

/**
 * What a scenario asks of the bot, derived once from the file: the URL flags,
 * the `eval-configure` message (only when needed), and which services the
 * harness must build.
 */

const CALL_EVENTS = new Set(['function_call', 'function_call_stopped']);
const VAD_EVENTS = new Set(['vad_user_started_speaking', 'vad_user_stopped_speaking']);

export function usesEval(scenario: Runnable): boolean {
  return scenario.kind === 'script' && scenario.turns.some((t) => t.expect.some((e) => e.eval !== undefined));
}

/**
 * `full` when any call expectation checks `args` or carries an `eval:` (the
 * judge is asked about the call's arguments: Pipecat's rule), or when the
 * scenario both asserts calls and uses `eval:` elsewhere (earshot's judge
 * prompt shows the calls); `name` when one only names a function; otherwise
 * nothing is asked and the bot's default holds.
 */
export function requiredReportLevel(scenario: Runnable): FunctionCallReportLevel | null {
  // A simulation's judge reads every call by name and arguments, and its measures compare them; so does a GAIA
  // turn's (tool selection, efficiency), though a wire that cannot show them only makes those not applicable.
  if (scenario.kind === 'simulation' || scenario.gaia !== undefined) return 'full';
  let needsName = false;
  let assertsCalls = false;
  for (const turn of scenario.turns) {
    for (const exp of turn.expect) {
      if (!CALL_EVENTS.has(exp.event)) continue;
      assertsCalls = true;
      if (exp.eval !== undefined) return 'full';
      for (const call of exp.calls ?? []) {
        if (call.args !== undefined) return 'full';
        if (call.name !== undefined) needsName = true;
      }
    }
  }
  if (assertsCalls && usesEval(scenario)) return 'full';
  return needsName ? 'name' : null;
}

export function needsVadEvents(scenario: Runnable): boolean {
  return (
    scenario.kind === 'script' &&
    scenario.turns.some(
      (t) =>
        (t.send_after?.event !== undefined && VAD_EVENTS.has(t.send_after.event)) ||
        t.expect.some((e) => VAD_EVENTS.has(e.event)),
    )
  );
}

/**
 * Whether the scenario reads the LLM's markers, which a bot reports only when
 * asked: an `llm_marker` expectation (Pipecat's rule), or a `send_after`
 * anchored on one (which would otherwise never fire).
 */
export function needsMarkerEvents(scenario: Runnable): boolean {
  return (
    scenario.kind === 'script' &&
    scenario.turns.some((t) => t.send_after?.event === 'llm_marker' || t.expect.some((e) => e.event === 'llm_marker'))
  );
}

export function evalConfigure(scenario: Runnable): EvalConfigure | null {
  const level = requiredReportLevel(scenario);
  const vad = needsVadEvents(scenario);
  const markers = needsMarkerEvents(scenario);
  if (level === null && !vad && !markers) return null;
  const config: EvalConfigure = {};
  if (level !== null) config.function_call_report_level = { '*': level };
  if (vad) config.vad_user_speaking = true;
  if (markers) config.bot_llm_marker = true;
  return config;
}

export interface ModeFlags {
  /** The bot speaks (judge modality audio); in text modality its TTS is skipped, greeting included. */
  botAudio: boolean;
  /** The harness is the microphone (user modality audio). */
  userAudio: boolean;
}

export function modeOf(scenario: Runnable): ModeFlags {
  return { botAudio: scenario.judge.modality === 'audio', userAudio: scenario.user.modality === 'audio' };
}

export function connectFlags(scenario: Runnable, opts: { triggerDisconnect?: boolean }): EvalConnectFlags {
  const mode = modeOf(scenario);
  return {
    skipTts: !mode.botAudio,
    userAudio: mode.userAudio,
    // Captured whenever the bot speaks: `response` transcripts, measured onsets and the recording all need it.
    captureBotAudio: mode.botAudio,
    triggerDisconnect: opts.triggerDisconnect === true || scenario.trigger_disconnect,
  };
}
