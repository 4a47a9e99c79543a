import type { EarshotEvent } from '../results/events.js';
import type { SimulationEntry } from '../results/index.js';

/**
 * A bot's function calls as lines of a conversation's transcript (a simulation's, a GAIA call's): a `function_call`
 * adds a `call` line; a cancelled `function_call_stopped` marks the call it stops (same id, else the latest open one
 * of that name). Other events leave the transcript alone.
 */
export function recordCallEvent(transcript: SimulationEntry[], event: EarshotEvent): void {
  if (event.name === 'function_call') {
    const entry: SimulationEntry = { kind: 'call', at_ms: Math.round(event.at_ms) };
    if (event.function_name !== undefined) entry.name = event.function_name;
    if (event.tool_call_id !== undefined) entry.tool_call_id = event.tool_call_id;
    if (event.args !== undefined) entry.args = event.args;
    transcript.push(entry);
  } else if (event.name === 'function_call_stopped' && event.cancelled) {
    for (let i = transcript.length - 1; i >= 0; i--) {
      const e = transcript[i];
      if (e.kind !== 'call' || e.cancelled) continue;
      const same =
        event.tool_call_id !== undefined ? e.tool_call_id === event.tool_call_id : e.name === event.function_name;
      if (same) {
        e.cancelled = true;
        return;
      }
    }
  }
}
