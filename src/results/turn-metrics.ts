import type { BotTokenUsage as MetricsTokenUsage, ServiceMetrics } from '../metrics/index.js';
import { LATENCY_METRICS, type LatencyMetric } from '../scenario/types.js';

/**
 * Per-turn latency metrics every result line carries (issue 5). All times are
 * milliseconds on the session's one monotonic clock. A metric that could not be
 * measured in a turn (no audio captured, no barge-in) is `null` or absent, never 0:
 * a 0 would read as "instant" in a percentile.
 */

/**
 * The bot's own RTVI `metrics` reports for one service during a turn, as src/metrics
 * fills them; `reports` is optional because result lines written before it existed
 * (and merged shard outputs) may lack it.
 */
export type BotServiceMetrics = Omit<ServiceMetrics, 'reports'> & { reports?: number };
/** LLM token usage summed over the turn, as src/metrics sums it. */
export type BotTokenUsage = Omit<MetricsTokenUsage, 'reports'> & { reports?: number };

export interface TurnMetrics {
  /** Bot audio onset (measured from captured audio) − end of user speech. */
  voice_to_voice_ms?: number | null;
  /** `llm_started` − end of user speech (or the text send). */
  llm_ttfb_ms?: number | null;
  /** First LLM text chunk − end of user speech (or the text send). */
  first_token_ms?: number | null;
  /** The bot's `bot-started-speaking` report → audible onset in its captured audio. */
  speech_padding_ms?: number | null;
  /** Bot audio onset → offset within the turn. */
  bot_speech_ms?: number | null;
  /** Barge-in turns: start of the user's interrupting speech → bot audio offset. */
  interruption_ms?: number | null;
  /** Barge-in turns: whether the bot stopped speaking (within the yield window); null when the turn is no barge-in. */
  yielded?: boolean | null;
  /** How much bot audio that began during the user's speech overlapped it. Not a latency. */
  talk_over_ms?: number | null;
  /**
   * Pause turns (earshot extension): bot audio onset − end of the caller's speech; negative when the bot began before
   * the caller finished.
   */
  response_gap_ms?: number | null;
  /** Pause turns: whether the bot began speaking before the caller had finished (it took the turn in the pause). */
  takeover?: boolean | null;
  /** Pause turns: bot audio (begun after the caller did) that played before the caller finished. */
  overlap_ms?: number | null;
  /** Backchannel turns: whether the bot's audio stopped within the yield window after the murmur began. */
  backchannel_yielded?: boolean | null;
  /**
   * Backchannel turns: murmur onset → the end of the bot audio it played over, when it stopped in the window
   * (Full-Duplex-Bench v1.5's stop latency).
   */
  yield_ms?: number | null;
  /** Word error rate of the bot's transcription against a reference text, 0..1, where one exists. */
  word_error_rate?: number | null;
  /**
   * Word error rate of the bot's own transcription of the caller (its `user_transcription`s in the turn) against the
   * turn's `user:`.
   */
  user_wer?: number | null;
  /**
   * Word error rate of the bot's reply as earshot got it (transcribed, under an audio judge) against `expected_text`.
   */
  bot_wer?: number | null;
  /** The anchors the metrics derive from, ms since session start; drawn on the report timeline. */
  user_speech_start_at_ms?: number | null;
  user_speech_end_at_ms?: number | null;
  bot_audio_onset_at_ms?: number | null;
  bot_audio_offset_at_ms?: number | null;
  /** The bot's own RTVI `metrics` reports during the turn, per service. */
  bot_metrics?: Record<string, BotServiceMetrics>;
  bot_tokens?: BotTokenUsage | null;
}

/** Names of the numeric duration metrics, in the order reports show them (the scenario `latency:` keys). */
export { LATENCY_METRICS };
export type LatencyMetricName = LatencyMetric;
