import type { TextPattern } from './text-pattern.js';

/**
 * earshot's deterministic text checks beside the judge, as the loader
 * normalizes them (fields in fields.ts, rules in text-checks.ts): a regular
 * expression, a number in the reply, and word error rates with bounds.
 */
export type { TextPattern } from './text-pattern.js';

/** `number:` on an expectation: some number in the text lies within `tolerance_pct` % of `value` (inclusive). */
export interface NumberCheck {
  value: number;
  /** Percent of |value|; 0 (the default) asks for the value itself. */
  tolerance_pct: number;
}

/**
 * The word error rates a turn can bound: the bot's hearing of the caller, earshot's of the bot against `expected_text`.
 */
export const WER_METRICS = ['user_wer', 'bot_wer'] as const;
export type WerMetric = (typeof WER_METRICS)[number];

export interface WerBound {
  min?: number;
  max?: number;
}

/** A turn's `wer:` block; each bound failing fails the turn with `wer_exceeded`. */
export type WerAssertions = { [M in WerMetric]?: WerBound };

/** What an expectation adds to Pipecat's checks. */
export interface TextCheckFields {
  /** The event text must match this regular expression (text-pattern.ts). */
  text_matches?: TextPattern;
  number?: NumberCheck;
  /** On a reply: what the bot should say, the reference of the turn's `bot_wer`. */
  expected_text?: string;
}
