/**
 * When earshot cannot trust what it heard the bot say. Under an audio judge a
 * `response` is earshot's own transcription of one spoken segment of the bot
 * (bot-started-speaking → bot-stopped-speaking). That transcription is in
 * doubt when
 *
 * - `empty_transcript`: the recognizer returned nothing although Silero VAD
 *   found at least `MIN_SPEECH_MS` of speech in the segment, or
 * - `transcribers_disagree`: a second recognizer (a second
 *   `judge.transcription` entry, or `--stt-check`) heard words whose word
 *   error rate against the first's exceeds the disagreement threshold.
 *
 * A check whose verdict rests on such a segment ends `inconclusive` rather
 * than failed (the session's match-hearing.ts decides), so a mishearing is
 * never reported as the bot's fault.
 */
export type HearingDoubt = 'empty_transcript' | 'transcribers_disagree';

/** VAD speech a segment must hold for an empty transcript to be in doubt (rather than a cough or a click). */
export const MIN_SPEECH_MS = 300;
/** Default word error rate between the two transcripts above which they disagree. */
export const DEFAULT_DISAGREEMENT_WER = 0.3;

/** One spoken segment of the bot that earshot could not hear reliably. */
export interface HearingEvidence {
  doubt: HearingDoubt;
  /** The first transcriber's text ('' when empty). */
  transcript: string;
  /** The second transcriber's text, when one ran. */
  check_transcript?: string;
  /** Word error rate of `check_transcript` against `transcript`, when both ran. */
  wer?: number;
  /** The threshold `wer` was held to. */
  max_wer?: number;
  /** The transcribers, as `provider:model`, first then check. */
  transcribers: string[];
  /** Silero VAD speech in the segment (32 ms frames at p ≥ 0.5). */
  speech_ms: number;
  /** Where the segment lies on the session clock, which is the recording's (`recording_started_at_ms` 0). */
  start_ms: number;
  end_ms: number;
  /** The segment's audio as a WAV beside the results (path relative to the results folder), when written. */
  snippet?: string;
}

/** Why an expectation is inconclusive: its verdict on each reading, and the segments in doubt. */
export interface InconclusiveCheck {
  /** The doubts of its segments, each once. */
  kinds: HearingDoubt[];
  /** What the check gave on each reading of the speech, in words. */
  reason: string;
  segments: HearingEvidence[];
}
