import { EarshotError } from '../../core/errors.js';

/**
 * Reading the reference bot's ground-truth log (`earshot refbot --truth-log
 * FILE`, documented in src/refbot/truth.ts) for `earshot calibrate`. The tools
 * may not import the bot's code, so the few line shapes used here are
 * re-declared structurally and every field is read defensively: a line that
 * lacks what calibration needs is skipped, never trusted.
 *
 * Every line carries `t_ms` (the bot's monotonic clock) and `epoch_ms`
 * (`performance.timeOrigin + t_ms`). `epoch_ms − t_ms` is therefore the bot's
 * clock origin on the shared Unix-ms scale, and any `*_ms` time the bot logs
 * maps onto it by adding that origin.
 */

/** The truth log cannot be read or has a malformed line. */
export class TruthLogError extends EarshotError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    readonly problem: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${problem}`);
    this.name = 'TruthLogError';
  }
}

export interface TruthLine {
  event: string;
  t_ms: number;
  epoch_ms: number;
  conn?: number;
  [field: string]: unknown;
}

/**
 * Parses JSONL. A last line without its newline is ignored when it does not
 * parse (a bot killed mid-write); any other bad line is an error naming it.
 */
export function parseTruthLog(text: string, file: string): TruthLine[] {
  const lines = text.split('\n');
  const out: TruthLine[] = [];
  for (const [i, raw] of lines.entries()) {
    if (raw.trim() === '') continue;
    const last = i === lines.length - 1;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      if (last) continue;
      throw new TruthLogError(file, i + 1, 'not a JSON object');
    }
    if (!isRecord(value) || typeof value.event !== 'string' || !isNum(value.t_ms) || !isNum(value.epoch_ms)) {
      throw new TruthLogError(file, i + 1, 'a truth line needs `event`, `t_ms` and `epoch_ms`');
    }
    out.push(value as TruthLine);
  }
  return out;
}

export interface TruthSpeechEdge {
  /** The bot's turn number. */
  turn: number;
  /** Play time of the voiced start (started) or end (stopped), on the shared epoch scale. */
  voicedEpochMs: number;
  /** Position of the line in the log (orders facts within a connection). */
  seq: number;
}

export interface TruthSpeechStart extends TruthSpeechEdge {
  bargeIn: boolean;
}

export interface TruthReply {
  reply: number;
  turn: number;
  /** The bot's own voice-to-voice latency (first audible sample sent − end of voiced user speech played). */
  voiceToVoiceMs: number;
  /** Send time of the reply's first audible sample, epoch scale. */
  audibleEpochMs: number;
  seq: number;
}

export interface TruthStop {
  reply: number;
  reason: string;
  /**
   * End of the bot's audio (its last audible sample, or in a pause its last frame) − start of the interrupting voiced
   * speech; barge-in stops only.
   */
  interruptionMs: number | null;
  /** When the last audible sample finished playing, epoch scale. */
  audibleEndEpochMs: number | null;
  /** When the last frame finished playing (the end of the bot's stream), epoch scale. */
  stoppedEpochMs: number | null;
  /**
   * The user began after the last audible sample: the bot stopped in a pause, and `interruptionMs` runs to the stream's
   * end.
   */
  inPause: boolean;
  seq: number;
}

/** What one connection's lines say, in log order. */
export interface TruthConnection {
  conn: number;
  /** When the bot accepted it, epoch scale. */
  openEpochMs: number;
  speechStarts: TruthSpeechStart[];
  speechStops: TruthSpeechEdge[];
  /** Replies to user speech (greetings and replies to text or keys have no voice-to-voice and are left out). */
  replies: TruthReply[];
  stops: TruthStop[];
}

/** Groups the lines by connection id; connections without a `connection_open` line are left out. */
export function truthConnections(lines: readonly TruthLine[]): TruthConnection[] {
  const byConn = new Map<number, TruthConnection>();
  const get = (line: TruthLine): TruthConnection | undefined => (isNum(line.conn) ? byConn.get(line.conn) : undefined);
  for (const [seq, line] of lines.entries()) {
    const origin = line.epoch_ms - line.t_ms;
    const epochOf = (v: unknown): number | null => (isNum(v) ? origin + v : null);
    if (line.event === 'connection_open' && isNum(line.conn)) {
      byConn.set(line.conn, {
        conn: line.conn,
        openEpochMs: line.epoch_ms,
        speechStarts: [],
        speechStops: [],
        replies: [],
        stops: [],
      });
      continue;
    }
    const c = get(line);
    if (!c) continue;
    if (line.event === 'user_speech_started') {
      const at = epochOf(line.voiced_start_ms);
      if (at !== null && isNum(line.turn))
        c.speechStarts.push({ turn: line.turn, voicedEpochMs: at, bargeIn: line.barge_in === true, seq });
    } else if (line.event === 'user_speech_stopped') {
      const at = epochOf(line.voiced_end_ms);
      if (at !== null && isNum(line.turn)) c.speechStops.push({ turn: line.turn, voicedEpochMs: at, seq });
    } else if (line.event === 'bot_audio_started') {
      const at = epochOf(line.audible_ms);
      if (at !== null && isNum(line.turn) && isNum(line.voice_to_voice_ms) && isNum(line.reply)) {
        c.replies.push({
          reply: line.reply,
          turn: line.turn,
          voiceToVoiceMs: line.voice_to_voice_ms,
          audibleEpochMs: at,
          seq,
        });
      }
    } else if (line.event === 'bot_audio_stopped' && isNum(line.reply) && typeof line.reason === 'string') {
      c.stops.push({
        reply: line.reply,
        reason: line.reason,
        interruptionMs: isNum(line.interruption_ms) ? line.interruption_ms : null,
        audibleEndEpochMs: epochOf(line.audible_end_ms),
        stoppedEpochMs: epochOf(line.stopped_ms),
        inPause: line.in_pause === true,
        seq,
      });
    }
  }
  return [...byConn.values()];
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function isNum(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}
