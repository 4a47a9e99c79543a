import type { EventName } from '../scenario/events.js';

/**
 * The per-turn timeline: what happened in one turn, on the session's one clock
 * (ms since session start). Plain data, JSON-serializable, so a session can keep
 * it, log it or hand it to `deriveTurnMetrics`.
 */

/**
 * What the turn sent: `audio` (spoken user turn), `text` (a typed user turn),
 * `dtmf` (keypad tones) or `none` (observation-only: nothing sent, the turn only waits).
 */
export type TurnKind = 'audio' | 'text' | 'dtmf' | 'none';
export const TURN_KINDS: readonly TurnKind[] = ['audio', 'text', 'dtmf', 'none'];

/**
 * Event names the timeline records arrival times for: the session's event names
 * plus `llm_text`, one mark per `bot-llm-text` chunk (the first one after the
 * anchor is the "first token"; the session's `llm_response` arrives only once the
 * LLM has finished, so it cannot time the first token).
 *
 * `bot_stream_end` marks where a run of the bot's audio frames ended (no frame
 * followed): the end of its output, silence included, which is where a bot
 * interrupted in a pause between sentences stopped.
 *
 * `bot_audio_started` / `bot_audio_stopped` are not kept as marks: they open and
 * close the turn's bot audio bursts.
 */
export type TimelineEventName = EventName | 'llm_text' | 'bot_stream_end';

/** One stretch of audible bot audio, measured from captured audio. */
export interface BotAudioBurst {
  onset_at_ms: number;
  /** null while still playing (or when the session ended before it stopped). */
  offset_at_ms: number | null;
}

/**
 * The bot's own RTVI `metrics` reports for one service (Pipecat's `processor`,
 * e.g. `OpenAILLMService#0`) during a turn. Pipecat reports seconds; these are
 * converted to ms. A service reports TTFB once per request (per sentence for a
 * TTS), so the first report is the one that times the turn's response; processing
 * time and usage add up over the turn.
 */
export interface ServiceMetrics {
  model?: string;
  /** First `ttfb` report in the turn. */
  ttfb_ms?: number;
  /** First `ttfa` report (TTS: TTFB plus leading silence). */
  ttfa_ms?: number;
  /** First `ttfat` report (LLM: TTFB plus thinking time). */
  ttfat_ms?: number;
  /** Sum of `processing` reports in the turn. */
  processing_ms?: number;
  /** Sum of TTS `characters` reports. */
  characters?: number;
  /** Sum of `stt_usage` audio seconds, in ms. */
  stt_audio_ms?: number;
  /** Number of report entries merged into this record. */
  reports: number;
}

/** LLM token usage summed over the turn (Pipecat's `tokens` entries name no service). */
export interface BotTokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  reasoning_tokens?: number;
  cache_read_input_tokens?: number;
  /** Number of `tokens` entries summed. */
  reports: number;
}

/**
 * An RTVI `metrics` message's `data` (lists keyed by kind: `ttfb`, `processing`,
 * `ttfa`, `ttfat`, `tokens`, `characters`, `stt_usage`, …). Structurally accepts
 * the protocol's parsed `MetricsData`; entries are read defensively, since the bot
 * under test wrote them.
 */
export interface RtviMetricsInput {
  readonly [kind: string]: unknown;
}

export interface TurnTimeline {
  index: number;
  kind: TurnKind;
  /** The turn's send (start of streaming for audio), or its anchor for `none`. */
  send_at_ms: number;
  /** Where the turn's window ends: the next turn's send, or the session end. null while open. */
  window_end_at_ms: number | null;
  /** First voiced sample of the user's audio, as due at real-time pace. */
  user_speech_start_at_ms: number | null;
  /** Last voiced sample of the user's audio, as due at real-time pace. */
  user_speech_end_at_ms: number | null;
  /**
   * The most recent bot audio burst that began before this turn's send, if it was
   * still playing at the send (the audio a barge-in interrupts).
   */
  bot_audio_carried: BotAudioBurst | null;
  /**
   * The most recent burst that began before the send, playing or not: a user who
   * starts in a pause right after it may still be talking over the bot.
   */
  bot_audio_before_send?: BotAudioBurst | null;
  /**
   * The bot's speaking reports (bot_started_speaking: open, bot_stopped_speaking:
   * closed) from the last one at or before the send to the end of the window:
   * its speaking window at any time of the turn. Kept by time, so a report that
   * arrived before the turn began is still here.
   */
  bot_speaking_reports?: Array<{ at_ms: number; open: boolean }>;
  /** `bot_stream_end` times from the last one at or before the send to the end of the window. */
  bot_stream_ends?: number[];
  /** Bursts whose onset falls inside this turn's window, in time order. */
  bot_audio: BotAudioBurst[];
  /** Arrival times per event name inside the window, ascending, at most `maxMarksPerName` each. */
  events: Partial<Record<TimelineEventName, number[]>>;
  /** Marks (and bursts) that arrived beyond the caps and were not kept, per name. */
  dropped: Partial<Record<TimelineEventName | 'bot_audio' | 'bot_metrics', number>>;
  /** The bot's own `metrics` reports received during the window, per service. */
  bot_metrics: Record<string, ServiceMetrics>;
  bot_tokens: BotTokenUsage | null;
  /** True when the record was completed by the session's end rather than by settling. */
  closed_by_session_end: boolean;
}
