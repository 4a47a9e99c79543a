import type { LlmConfig } from './service-types.js';
import type { ScorecardDimension } from './scorecard-types.js';

/**
 * AMD GAIA's scenario format (`../shared/anchors/gaia-scenario-authoring.md`), as earshot runs it: a GAIA file
 * loads as a scripted scenario (one turn per GAIA turn, `name` = GAIA's `id`) that carries this block. The GAIA
 * driver plays the turns (each turn's `user_message`, or one the caller model writes from `objective` + `persona`),
 * collects each reply, and the judge scores every turn on the seven dimensions.
 */

/** A document the bot must have indexed before the call (`setup.index_documents[i]`). */
export interface GaiaDocumentRef {
  /** The manifest's document id (or an adversarial document's). */
  corpus_doc: string;
  /** Absolute path of the file (written relative to the scenario root, GAIA's "repo root"). */
  path: string;
  /** The path as written. */
  written_path: string;
  /** From the corpus manifest, when the document is in it. */
  filename?: string;
  format?: string;
}

/** One fact of a corpus document (`manifest.json` `documents[].facts[]`). */
export interface CorpusFact {
  doc_id: string;
  id: string;
  question: string;
  answer: string;
  difficulty?: 'easy' | 'medium' | 'hard';
}

export interface GaiaGroundTruth {
  doc_id?: string;
  /** `fact_id` and `fact_ids` merged, in written order. */
  fact_ids?: string[];
  /**
   * The answer the bot should give. `null` (written so): the bot must say it does not know. Absent: none given
   * (the facts, the behaviour or the criteria decide).
   */
  expected_answer?: string | null;
  expected_behavior?: string;
  note?: string;
  /** The facts `fact_ids` name, resolved from the corpus manifest (empty when none could be). */
  facts: CorpusFact[];
  /** When `doc_id` names an adversarial document: the manifest's `expected_behavior` for it. */
  adversarial_behavior?: string;
}

export interface GaiaTurn {
  /** GAIA's turn number, 1-based and sequential. */
  turn: number;
  objective: string;
  /** What the caller says, as written; absent: the caller model writes it from the objective. */
  user_message?: string;
  ground_truth?: GaiaGroundTruth;
  success_criteria?: string;
  /** How long the reply may take, from the send (the scenario's default budget unless written). */
  within_ms: number;
}

export interface GaiaPersona {
  /** As written (`power_user`, or any free text). */
  name: string;
  /** GAIA's description for a built-in persona; the text itself for any other. */
  description: string;
  builtin: boolean;
}

export interface GaiaScoring {
  /** Weight per dimension (GAIA's 25/20/20/15/10/5/5 unless written), normalized when scoring. */
  weights: Record<ScorecardDimension, number>;
  /** Weighted total (0..10) a turn needs to pass. */
  pass_threshold: number;
}

/** The GAIA block of a scripted scenario loaded from a GAIA file. */
export interface GaiaSpec {
  /** GAIA's `id` (also the scenario's `name`). */
  id: string;
  /** GAIA's `name:` (free text). */
  display_name?: string;
  description?: string;
  persona: GaiaPersona;
  /** `setup.index_documents`, resolved. */
  documents: GaiaDocumentRef[];
  /** One per scenario turn, same order. */
  turns: GaiaTurn[];
  expected_outcome?: string;
  /** Absolute path of the corpus manifest used, when one was found. */
  corpus?: string;
  /** The LLM that writes objective-only turns (the file's `simulator:`, `--simulator`, or the default). */
  simulator: LlmConfig;
  scoring: GaiaScoring;
}
