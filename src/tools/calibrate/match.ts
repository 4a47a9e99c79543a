import {
  isNum,
  type TruthConnection,
  type TruthReply,
  type TruthSpeechEdge,
  type TruthSpeechStart,
  type TruthStop,
} from './truth.js';

/**
 * Pairing earshot's per-turn measurements with the reference bot's ground
 * truth, for `earshot calibrate`.
 *
 * THE COMPARISON. The error of a sample is earshot's measured duration minus
 * the bot's own duration for the same turn (`voice_to_voice_ms` and
 * `interruption_ms` as the truth log derives them). Each duration is a
 * difference on one process's monotonic clock, so no clock mapping enters the
 * error itself. It charges earshot with everything between its measurement
 * points and the bot's: the microphone's lateness against its schedule
 * (earshot times the user's speech by the samples' due times, the bot by when
 * it played them), loopback transit both ways, both processes' event-loop
 * delays, and any disagreement about which sample is the first or last audible
 * one. It is an upper bound on earshot's error: the bot's own scheduling
 * noise lands in it too.
 *
 * MATCHING. A run's connection is the one the bot accepted while that session
 * ran. Within it, a turn is paired by time, not by order: earshot's end (or
 * start) of the user's speech, mapped onto the shared Unix-ms scale, must lie
 * within `toleranceMs` of the bot's voiced end (or barge-in start). Order
 * would silently pair the wrong turns when the bot splits or misses an
 * utterance; time cannot. The mapping (`epoch_ms` on the bot's side,
 * `performance.timeOrigin` + the session start on earshot's) only has to be
 * good to a few ms for this; the offsets it yields are kept per sample as a
 * diagnosis of where an error comes from (user side or bot side).
 */

export type CalibrationMetric = 'voice_to_voice_ms' | 'interruption_ms';
export const CALIBRATION_METRICS: readonly CalibrationMetric[] = ['voice_to_voice_ms', 'interruption_ms'];

/** The per-turn metrics calibration reads (structurally a results `TurnMetrics`). */
export interface ObservedTurnMetrics {
  voice_to_voice_ms?: number | null;
  interruption_ms?: number | null;
  yielded?: boolean | null;
  user_speech_start_at_ms?: number | null;
  user_speech_end_at_ms?: number | null;
  bot_audio_onset_at_ms?: number | null;
}

export interface ObservedRun {
  /** Ordinal of the run (for reports). */
  run: number;
  /** The session's clock origin (ms since session start = 0) on the shared Unix-ms scale. */
  sessionEpochMs: number;
  /** The run's connection was opened between these instants (Unix ms). */
  fromEpochMs: number;
  toEpochMs: number;
  turns: ReadonlyArray<{ index: number; metrics?: ObservedTurnMetrics }>;
}

export interface MatchedSample {
  run: number;
  metric: CalibrationMetric;
  /** earshot's turn index; null for a truth earshot measured in no turn. */
  turn_index: number | null;
  conn: number | null;
  /** The bot's turn number. */
  bot_turn: number | null;
  measured_ms: number | null;
  truth_ms: number | null;
  /** measured − truth; null when either is missing. */
  error_ms: number | null;
  /** earshot's user speech edge − the bot's (end for voice-to-voice, start for interruption), shared clock. */
  user_edge_offset_ms: number | null;
  /** earshot's bot audio edge − the bot's (first audible sample, or end of the interrupted audio), shared clock. */
  bot_edge_offset_ms: number | null;
  /** Why a side is missing. */
  note?: string;
}

export interface RunMatch {
  conn: number | null;
  samples: MatchedSample[];
}

export const DEFAULT_MATCH_TOLERANCE_MS = 300;

export interface MatchOptions {
  /** Within `toleranceMs` of each other, the two sides' speech edges are the same edge (default 300). */
  toleranceMs?: number;
  /** The sentence-gap mode: a barge-in counts only when the bot stopped in the pause the caller began in. */
  bargeInInPause?: boolean;
}

export function matchRun(
  run: ObservedRun,
  connections: readonly TruthConnection[],
  options: MatchOptions = {},
): RunMatch {
  const toleranceMs = options.toleranceMs ?? DEFAULT_MATCH_TOLERANCE_MS;
  const inWindow = connections.filter((c) => c.openEpochMs >= run.fromEpochMs && c.openEpochMs <= run.toEpochMs);
  // A connect retry can leave a connection that never got audio: prefer the one the session spoke on.
  const conn = inWindow.find((c) => c.speechStarts.length > 0 || c.speechStops.length > 0) ?? inWindow[0] ?? null;
  const samples: MatchedSample[] = [];
  const base = (metric: CalibrationMetric, turn: number | null): MatchedSample => ({
    run: run.run,
    metric,
    turn_index: turn,
    conn: conn?.conn ?? null,
    bot_turn: null,
    measured_ms: null,
    truth_ms: null,
    error_ms: null,
    user_edge_offset_ms: null,
    bot_edge_offset_ms: null,
  });
  const usedStops = new Set<TruthSpeechEdge>();
  const usedStarts = new Set<TruthSpeechStart>();
  const usedReplies = new Set<TruthReply>();
  const usedBargeStops = new Set<TruthStop>();
  const at = (ms: number | null | undefined): number | null => (isNum(ms) ? run.sessionEpochMs + ms : null);

  for (const t of run.turns) {
    const m = t.metrics;
    if (!m) continue;
    const end = at(m.user_speech_end_at_ms);
    const measuredV2v = isNum(m.voice_to_voice_ms) ? m.voice_to_voice_ms : null;
    if (end !== null) {
      const stop = conn ? nearest(conn.speechStops, end, toleranceMs, usedStops) : null;
      const reply =
        stop && conn ? (conn.replies.find((r) => r.turn === stop.turn && !usedReplies.has(r)) ?? null) : null;
      if (stop) usedStops.add(stop);
      if (reply) usedReplies.add(reply);
      if (measuredV2v !== null || reply) {
        const s = base('voice_to_voice_ms', t.index);
        s.bot_turn = stop?.turn ?? null;
        s.measured_ms = measuredV2v;
        s.truth_ms = reply?.voiceToVoiceMs ?? null;
        if (stop) s.user_edge_offset_ms = round3(end - stop.voicedEpochMs);
        const onset = at(m.bot_audio_onset_at_ms);
        if (reply && onset !== null && measuredV2v !== null)
          s.bot_edge_offset_ms = round3(onset - reply.audibleEpochMs);
        s.note = why(
          conn,
          stop,
          reply,
          measuredV2v,
          'no bot reply to this speech in the truth log',
          'earshot measured no voice-to-voice latency for this turn',
        );
        finish(s);
        samples.push(s);
      }
    }
    const start = at(m.user_speech_start_at_ms);
    const measuredInt = isNum(m.interruption_ms) ? m.interruption_ms : null;
    if (start !== null && (measuredInt !== null || m.yielded === false)) {
      const edge = conn
        ? nearest(
            conn.speechStarts.filter((e) => e.bargeIn),
            start,
            toleranceMs,
            usedStarts,
          )
        : null;
      const stop =
        edge && conn
          ? (conn.stops.find((x) => x.reason === 'barge_in' && x.seq > edge.seq && !usedBargeStops.has(x)) ?? null)
          : null;
      if (edge) usedStarts.add(edge as TruthSpeechStart);
      if (stop) usedBargeStops.add(stop);
      const s = base('interruption_ms', t.index);
      s.bot_turn = edge?.turn ?? null;
      s.measured_ms = measuredInt;
      s.truth_ms = stop?.interruptionMs ?? null;
      if (edge) s.user_edge_offset_ms = round3(start - edge.voicedEpochMs);
      const stopEdge = stop?.inPause ? stop.stoppedEpochMs : stop?.audibleEndEpochMs;
      if (stopEdge != null && measuredInt !== null) s.bot_edge_offset_ms = round3(start + measuredInt - stopEdge);
      s.note = why(
        conn,
        edge,
        stop,
        measuredInt,
        'the bot logged no barge-in stop after this speech',
        'earshot measured no interruption latency for this turn',
      );
      if (options.bargeInInPause && stop && !stop.inPause) {
        s.truth_ms = null;
        s.note =
          'the barge-in did not start in a sentence pause with the bot stopping there ' +
          '(the scenario timing missed the pause on this machine)';
      }
      finish(s);
      samples.push(s);
    }
  }

  // Truth nothing on earshot's side was paired with: earshot missed something the bot did.
  if (conn) {
    for (const r of conn.replies) {
      if (usedReplies.has(r)) continue;
      const s = base('voice_to_voice_ms', null);
      s.bot_turn = r.turn;
      s.truth_ms = r.voiceToVoiceMs;
      s.note = "the bot answered speech that no earshot turn measured (its end of speech matched none of earshot's)";
      samples.push(s);
    }
    for (const x of conn.stops) {
      if (x.reason !== 'barge_in' || usedBargeStops.has(x) || x.interruptionMs === null) continue;
      if (options.bargeInInPause && !x.inPause) continue;
      const s = base('interruption_ms', null);
      s.truth_ms = x.interruptionMs;
      s.note = 'the bot yielded to a barge-in that no earshot turn measured';
      samples.push(s);
    }
  }
  return { conn: conn?.conn ?? null, samples };
}

function nearest<T extends TruthSpeechEdge>(
  edges: readonly T[],
  atMs: number,
  toleranceMs: number,
  used: ReadonlySet<TruthSpeechEdge>,
): T | null {
  let best: T | null = null;
  for (const e of edges) {
    if (used.has(e)) continue;
    const d = Math.abs(e.voicedEpochMs - atMs);
    if (d <= toleranceMs && (best === null || d < Math.abs(best.voicedEpochMs - atMs))) best = e;
  }
  return best;
}

function why(
  conn: TruthConnection | null,
  edge: unknown,
  truth: unknown,
  measured: number | null,
  noTruth: string,
  noMeasure: string,
): string | undefined {
  if (!conn) return 'no connection in the truth log was opened during this run';
  if (!edge) return "the bot logged no speech edge near earshot's";
  if (!truth) return noTruth;
  if (measured === null) return noMeasure;
  return undefined;
}

function finish(s: MatchedSample): void {
  if (s.measured_ms !== null && s.truth_ms !== null) s.error_ms = round3(s.measured_ms - s.truth_ms);
  if (s.note === undefined) delete s.note;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
