import type { SimulationEndReason, SimulationEntry } from '../../results/index.js';
import type { NemoSignalValue } from '../../results/nemo.js';
import { SuccessSignal } from '../../scenario/nemo/types.js';

/**
 * CLEAN_EXIT, NeMo's strict form: true only when the bot itself called an exit tool (`EndConversationTool`, a
 * terminal transfer). A normal socket close, a cap, a silence or the caller hanging up is false with the stop
 * reason, so a timed-out conversation never scores as a win by inaction. (The legacy YAML map form's `clean_exit`
 * also counts a normal close: simulate/signals.ts.)
 */
export function cleanExit(
  exitTools: readonly string[],
  transcript: readonly SimulationEntry[],
  endedBy: SimulationEndReason,
  endDetail: string,
): NemoSignalValue {
  const signal = SuccessSignal.CLEAN_EXIT;
  const exit = transcript.find(
    (e) => e.kind === 'call' && !e.cancelled && e.name !== undefined && exitTools.includes(e.name),
  );
  if (exit?.kind === 'call')
    return { signal, value: true, reason: `the bot called ${exit.name} at ${(exit.at_ms / 1000).toFixed(1)} s` };
  return {
    signal,
    value: false,
    reason:
      `the call ended by ${endedBy} (${endDetail}), ` + `not by the bot calling an exit tool (${exitTools.join(', ')})`,
  };
}

/** NeMo's `stop_reason`: `[EXIT]` for a bot exit, `[TIMEOUT]` at max_duration, else earshot's end reason. */
export function stopReason(endedBy: SimulationEndReason): string {
  if (endedBy === 'bot_exit') return '[EXIT]';
  if (endedBy === 'max_duration') return '[TIMEOUT]';
  return endedBy;
}
