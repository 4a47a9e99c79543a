import { SCORECARD_DIMENSIONS } from '../scenario/types.js';
import { failure } from './fixtures.testutil.js';
import type { GaiaAutoZero, GaiaResult, GaiaTurnScore } from './gaia.js';
import type { ScenarioResult } from './types.js';

/**
 * Hand-built GAIA results for the tests of results/, report/ and tools/compare/: what the GAIA driver writes, with
 * the totals computed here the way GAIA weighs them (GAIA's weights in percent, renormalized over the applicable
 * dimensions), so a test states only the scores.
 */

const WEIGHTS = {
  correctness: 25,
  tool_selection: 20,
  context_retention: 20,
  completeness: 15,
  efficiency: 10,
  personality: 5,
  error_recovery: 5,
};

export interface GaiaTurnSpec {
  /** Scores in SCORECARD_DIMENSIONS order (C T R Cm E P ER); null = not applicable. */
  scores: Array<number | null>;
  objective?: string;
  user_message?: string;
  reply?: string;
  auto_zero?: GaiaAutoZero;
  success?: { verdict: 'yes' | 'no'; reason: string };
}

export function gaiaTurn(turn: number, spec: GaiaTurnSpec, pass_threshold = 7): GaiaTurnScore {
  const applicable = SCORECARD_DIMENSIONS.filter((_, i) => spec.scores[i] !== null);
  const sum = applicable.reduce((s, d) => s + WEIGHTS[d], 0);
  const dimensions = SCORECARD_DIMENSIONS.map((dimension, i) => {
    const score = spec.scores[i];
    const zeroed = dimension === 'correctness' && spec.auto_zero !== undefined;
    return {
      dimension,
      weight: score === null ? 0 : WEIGHTS[dimension] / sum,
      score,
      judge_score: zeroed ? 9 : score,
      reason: score === null ? 'function calls are not visible on this wire' : `${dimension} ok`,
      applicable: score !== null,
      ...(zeroed ? { cap: { max: 0, reason: spec.auto_zero!.reason } } : {}),
    };
  });
  const total = dimensions.reduce((s, d) => s + d.weight * (d.score ?? 0), 0);
  const out: GaiaTurnScore = {
    turn,
    objective: spec.objective ?? `objective ${turn}`,
    user_message: spec.user_message ?? `question ${turn}`,
    user_message_source: 'written',
    reply: spec.reply ?? `reply ${turn}`,
    calls: [],
    dimensions,
    total,
    passed: spec.auto_zero === undefined && spec.success?.verdict !== 'no' && total >= pass_threshold,
  };
  if (spec.auto_zero) out.auto_zero = spec.auto_zero;
  if (spec.success) out.success = spec.success;
  return out;
}

export interface GaiaResultSpec {
  file?: string;
  id?: string;
  category?: string;
  severity?: ScenarioResult['severity'];
  repeat_index?: number;
  turns: GaiaTurnSpec[];
}

/** A GAIA scenario's result: one scenario turn per GAIA turn, failed where its GAIA turn failed. */
export function gaiaResult(spec: GaiaResultSpec): ScenarioResult {
  const id = spec.id ?? 'simple_factual_rag';
  const turns = spec.turns.map((t, i) => gaiaTurn(i + 1, t));
  const total = turns.reduce((s, t) => s + t.total, 0) / turns.length;
  const gaia: GaiaResult = {
    id,
    persona: 'power_user',
    documents: [{ corpus_doc: 'acme_q3_report', path: 'eval/corpus/documents/acme_q3_report.md' }],
    documents_via: 'message',
    weights: WEIGHTS,
    pass_threshold: 7,
    calls_visible: turns.every((t) => t.dimensions[1].applicable),
    total,
    passed: turns.every((t) => t.passed),
    turns,
  };
  const result: ScenarioResult = {
    name: id,
    file: spec.file ?? `eval/scenarios/rag_quality/${id}.yaml`,
    status: gaia.passed ? 'passed' : 'failed',
    started_at: '2025-01-01T00:00:00.000Z',
    duration_ms: 6000 + (spec.repeat_index ?? 0),
    // A GAIA turn has no expectations of its own (`expect: []`): its verdict is the scores'.
    turns: turns.map((t, i) => ({
      index: i,
      status: t.passed ? 'passed' : 'failed',
      duration_ms: 2500,
      started_at_ms: i * 3000,
      input: { user: t.user_message },
      expectations: [],
      metrics: { voice_to_voice_ms: 800 + i * 100 },
    })),
    failures: turns.flatMap((t, i) =>
      t.passed
        ? []
        : [
            t.auto_zero
              ? failure('correctness_zero', i, `${t.auto_zero.rule}: ${t.auto_zero.reason}`)
              : failure('scorecard_below_threshold', i, `total ${t.total.toFixed(2)} < 7`),
          ].map((f) => ({ ...f, expectation_index: null, event: null })),
    ),
    gaia,
    run: spec.repeat_index === undefined ? {} : { repeat_index: spec.repeat_index },
  };
  if (spec.category !== undefined) result.category = spec.category;
  if (spec.severity !== undefined) result.severity = spec.severity;
  return result;
}

/** Two turns, no visible calls: turn 1 passes (9.29), turn 2 is zeroed for a wrong number (5.07). */
export function ragResult(overrides: Partial<GaiaResultSpec> = {}): ScenarioResult {
  return gaiaResult({
    category: 'rag_quality',
    severity: 'critical',
    turns: [
      { scores: [10, null, 9, 8, null, 10, 10], user_message: 'What was Acme revenue in Q3?', reply: '$14.2 million.' },
      {
        scores: [0, null, 8, 7, null, 9, 9],
        user_message: 'And the growth?',
        reply: 'About 40 percent.',
        auto_zero: { rule: 'wrong_number', by: 'earshot', reason: 'said 40%, expected 23% (74% off)' },
      },
    ],
    ...overrides,
  });
}
