import type { CorpusFact } from '../scenario/gaia-types.js';
import type { ScorecardDimension } from '../scenario/types.js';
import type { ScorecardDimensionScore } from './simulation.js';

/**
 * What a GAIA scenario adds to its `ScenarioResult`: each turn scored on GAIA's seven dimensions, with the evidence
 * (what was said, the calls, the ground truth), the weighted totals and the verdicts. Serialized as it is into
 * results.jsonl and `traces/<id>.json`, so snake_case with units in the names.
 */

/** A GAIA automatic zero of correctness, and who decided it. */
export interface GaiaAutoZero {
  /**
   * `wrong_number`: a number more than 5 % off the expected answer (earshot). `guessed`: `expected_answer: null` and
   * the bot did not say it does not know (earshot). `lazy_refusal`: "I can't find that" with no call, where calls are
   * visible (earshot). `wrong_name` / `hallucinated_source`: the judge's finding.
   */
  rule: 'wrong_number' | 'guessed' | 'lazy_refusal' | 'wrong_name' | 'hallucinated_source';
  by: 'earshot' | 'judge';
  reason: string;
}

/** One dimension of one turn; `applicable: false` (score null, weight 0) where the wire cannot show what it needs. */
export interface GaiaDimensionScore extends ScorecardDimensionScore {
  applicable: boolean;
}

export interface GaiaCallSeen {
  name?: string;
  args?: Record<string, unknown>;
  cancelled?: boolean;
}

export interface GaiaTurnScore {
  /** GAIA's turn number (1-based); the scenario turn is `turn - 1`. */
  turn: number;
  objective: string;
  /** What the caller said (or typed). */
  user_message: string;
  /** `written`: the file's `user_message`; `generated`: the caller model wrote it from the objective. */
  user_message_source: 'written' | 'generated';
  /** The bot's reply as heard (transcribed in audio, its LLM text in text mode); empty when it said nothing. */
  reply: string;
  /** The function calls the bot reported during the turn (empty where the wire cannot show them). */
  calls: GaiaCallSeen[];
  expected_answer?: string | null;
  facts?: CorpusFact[];
  success_criteria?: string;
  /** The judge's verdict on `success_criteria`, when the turn has some. */
  success?: { verdict: 'yes' | 'no'; reason: string };
  dimensions: GaiaDimensionScore[];
  /** Weighted total over the applicable dimensions, 0..10. */
  total: number;
  passed: boolean;
  auto_zero?: GaiaAutoZero;
}

export interface GaiaResult {
  id: string;
  display_name?: string;
  persona: string;
  /** `setup.index_documents` as sent to the bot (corpus id and path), and how. */
  documents: Array<{ corpus_doc: string; path: string }>;
  documents_via?: 'context' | 'message' | 'spawn';
  weights: Record<ScorecardDimension, number>;
  pass_threshold: number;
  /** Whether the wire showed function calls (tool selection and efficiency scored), else they are not applicable. */
  calls_visible: boolean;
  /** Mean of the turn totals, 0..10. */
  total: number;
  passed: boolean;
  expected_outcome?: string;
  turns: GaiaTurnScore[];
  /** The LLM that wrote objective-only turns, safe to log; absent when every turn was written. */
  simulator?: string;
}
