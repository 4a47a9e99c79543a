/**
 * The services a scenario names, normalized: the TTS that speaks the caller (`user.speech`), the STT that hears the
 * bot (`judge.transcription`) and the LLMs (`judge.eval`, a simulation's `simulator`).
 */

/** `user.speech`: the TTS that speaks the user's turns. Extra keys pass through to a factory. */
export interface SpeechConfig {
  service?: string;
  voice?: string;
  model?: string;
  language?: string;
  /** Speaking rate (Kokoro), pauses included. */
  speed?: number;
  sample_rate?: number;
  api_key?: string;
  factory?: string;
  [extra: string]: unknown;
}

/** `judge.transcription`: the STT for the bot's audio. */
export interface TranscriptionConfig {
  service: string;
  model?: string;
  language?: string;
  padding_secs: number;
  device?: string;
  compute_type?: string;
  factory?: string;
  [extra: string]: unknown;
}

/** `judge.eval` and a simulation's `simulator`: an LLM service. */
export interface LlmConfig {
  service: string;
  model?: string;
  endpoint?: string;
  extra?: Record<string, unknown>;
  api_key?: string;
  factory?: string;
  [more: string]: unknown;
}

export type Modality = 'text' | 'audio';

export interface UserConfig {
  modality: Modality;
  speech?: SpeechConfig;
}

/**
 * `judge.eval`: the LLM (or, with `factory:`, the classifier) that decides
 * verdicts, and the explainer that gives reasons for the doubtful ones.
 */
export interface JudgeEvalConfig extends LlmConfig {
  /**
   * The LLM asked for the reason behind a `no` or an unsure verdict; `false`
   * for verdicts without reasons. Omitted: the judging LLM, or the default
   * LLM when a factory builds the classifier.
   */
  explainer?: LlmConfig | false;
  /** A verdict less sure than this (0..1) is explained too; 0: only `no`s; above 1: every verdict. */
  explain_below: number;
  /** Whether a reply may be judged `continue` (still working toward its answer); false: yes or no only. */
  allow_continue: boolean;
}

export interface JudgeConfig {
  modality: Modality;
  eval: JudgeEvalConfig;
  /** Present exactly when `modality` is audio. */
  transcription?: TranscriptionConfig;
  /** earshot extension: a second STT that checks the first (the second entry of a `transcription:` list). */
  transcription_check?: TranscriptionConfig;
  /** earshot extension: word error rate between the two transcripts above which they disagree (default 0.3). */
  transcription_disagreement?: number;
}
