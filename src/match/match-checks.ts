import type { EarshotEvent } from '../results/events.js';
import type { FailureKind } from '../results/types.js';
import type { EventName, MarkerKind } from '../scenario/events.js';

/**
 * The payload checks of an expectation that need no waiting, as Pipecat's
 * matcher makes them: substring checks that ignore spacing, the
 * `text_excludes` mirror of `text_contains`, and the checks on an
 * `llm_marker` event (the marker's kind and the shape of the raw response).
 */

/** What a payload check found wrong: the failure kind and its reason. */
export interface CheckProblem {
  kind: FailureKind;
  reason: string;
}

/** Collapses every run of whitespace to one space and trims: "a  b\n" → "a b". */
function squash(text: string): string {
  return text.split(/\s+/).filter(Boolean).join(' ');
}

/** Whether `needle` occurs in `content`, ignoring spacing (Pipecat's `_text_contains`). */
export function textContains(content: string, needle: string): boolean {
  return squash(content).includes(squash(needle));
}

/** The `text_excludes` failure when `content` holds it, else null. */
export function excludedText(content: string, excludes: string | undefined): CheckProblem | null {
  if (excludes === undefined || !textContains(content, excludes)) return null;
  return {
    kind: 'text_present',
    reason: `text ${JSON.stringify(content.trim())} contains ${JSON.stringify(excludes)}`,
  };
}

/** The marker fields of an expectation. */
export interface MarkerChecks {
  marker?: MarkerKind;
  marker_first?: boolean;
  markers?: number;
  text_after?: boolean;
}

/** The kinds `marker:` accepts: `incomplete` is either of `short` and `long`. */
function wantedKinds(marker: MarkerKind): readonly string[] {
  return marker === 'incomplete' ? ['short', 'long'] : [marker];
}

/** The first marker failure of an `llm_marker` event, or null (Pipecat's `_check_payload` marker part). */
export function markerProblem(event: EarshotEvent, exp: MarkerChecks): CheckProblem | null {
  if (event.name !== 'llm_marker') return null;
  if (exp.marker !== undefined && (event.kind === undefined || !wantedKinds(exp.marker).includes(event.kind))) {
    return {
      kind: 'marker_mismatch',
      reason: `marker ${JSON.stringify(event.text)} is ${event.kind ?? 'of no known kind'}, expected ${exp.marker}`,
    };
  }
  const format = markerFormatProblem(event.raw, event.markers, exp);
  return format === null ? null : { kind: 'marker_format', reason: format };
}

/**
 * What is wrong with the shape of the raw response, read against every marker
 * the bot recognizes: how many markers it holds, whether the first comes
 * before any text, whether text follows it.
 */
export function markerFormatProblem(raw: string, known: readonly string[], exp: MarkerChecks): string | null {
  if (exp.marker_first === undefined && exp.markers === undefined && exp.text_after === undefined) return null;
  const found = known
    .filter((m) => m !== '' && raw.includes(m))
    .map((m) => ({ at: raw.indexOf(m), m }))
    .sort((a, b) => a.at - b.at || (a.m < b.m ? -1 : 1));
  const count = known.filter((m) => m !== '').reduce((n, m) => n + raw.split(m).length - 1, 0);
  const first = found[0];
  const excerpt = JSON.stringify(raw.slice(0, 80));
  if (exp.markers !== undefined && count !== exp.markers)
    return `raw text holds ${count} marker(s), expected ${exp.markers}: ${excerpt}`;
  if (exp.marker_first !== undefined) {
    const isFirst = first !== undefined && raw.slice(0, first.at).trim() === '';
    if (isFirst !== exp.marker_first) {
      return (
        `raw text ${isFirst ? 'starts' : 'does not start'} with a marker, expected it ` +
        `${exp.marker_first ? 'to' : 'not to'}: ${excerpt}`
      );
    }
  }
  if (exp.text_after !== undefined) {
    if (first === undefined) return `raw text holds no marker to check text after: ${excerpt}`;
    const hasAfter = raw.slice(first.at + first.m.length).trim() !== '';
    if (hasAfter !== exp.text_after) {
      return (
        `raw text has ${hasAfter ? 'text' : 'nothing'} after the marker, expected ` +
        `${exp.text_after ? 'text' : 'nothing'}: ${excerpt}`
      );
    }
  }
  return null;
}

export const CALL_EVENTS: ReadonlySet<EventName> = new Set<EventName>(['function_call', 'function_call_stopped']);

export function eventText(e: EarshotEvent): string {
  return 'text' in e && typeof e.text === 'string' ? e.text : '';
}

/**
 * The name/args view a call expectation checks; `function_call_stopped` exposes `{tool_call_id, cancelled}` as args.
 */
export function callView(e: EarshotEvent): { name?: string; args: Record<string, unknown> } {
  if (e.name === 'function_call') return { name: e.function_name, args: e.args ?? {} };
  if (e.name === 'function_call_stopped') {
    return { name: e.function_name, args: { tool_call_id: e.tool_call_id, cancelled: e.cancelled } };
  }
  return { args: {} };
}

export { argsSubset, deepEqual } from '../core/equal.js';

export function summarize(e: EarshotEvent): string {
  if (CALL_EVENTS.has(e.name)) {
    const { name, args } = callView(e);
    const sig = Object.entries(args)
      .map(([k, v]) => `${k}=${JSON.stringify(v)}`)
      .join(', ');
    return `${name ?? '?'}(${sig})`;
  }
  return eventText(e);
}

export function noJudge(ctx: { noJudgeReason?: string }): string {
  return `scenario uses 'eval:' but no judge could be built${ctx.noJudgeReason ? `: ${ctx.noJudgeReason}` : ''}`;
}
