/**
 * Turn-completion markers, as a Pipecat bot with `filter_incomplete_user_turns`
 * has its LLM write them: every response starts with a marker saying whether
 * the user's turn was complete (the answer follows), cut short or a request
 * for time (the bot says nothing and waits). The bot holds the marker back
 * from what it says and reports it per response, when asked, as RTVI
 * `bot-llm-marker` {text: the marker, kind, raw: the response as the LLM
 * wrote it, markers: every marker the protocol knows}.
 */

export const MARKER_KINDS = ['complete', 'short', 'long'] as const;
export type TurnMarkerKind = (typeof MARKER_KINDS)[number];

/** The marker each kind is written as. Pipecat's newest defaults, in its order: complete, short, long. */
export type MarkerSet = Readonly<Record<TurnMarkerKind, string>>;
export const DEFAULT_MARKERS: MarkerSet = Object.freeze({ complete: '●', short: '◐', long: '○' });

/** What the bot reports for one response (`bot-llm-marker`'s data). */
export interface ReplyMarker {
  text: string;
  kind: TurnMarkerKind;
  raw: string;
  markers: string[];
}

export function isMarkerKind(value: string): value is TurnMarkerKind {
  return (MARKER_KINDS as readonly string[]).includes(value);
}

/** The report of a response of `kind` whose spoken text is `text` (incomplete turns say nothing). */
export function markReply(markers: MarkerSet, kind: TurnMarkerKind, text: string): ReplyMarker {
  const marker = markers[kind];
  return {
    text: marker,
    kind,
    raw: kind === 'complete' && text !== '' ? `${marker} ${text}` : marker,
    markers: MARKER_KINDS.map((k) => markers[k]),
  };
}
