import { closest } from './diagnostics.js';
import type { Corpus } from './corpus.js';
import type { CorpusFact, GaiaGroundTruth, GaiaTurn } from './gaia-types.js';
import { asRecord, type Normalizer } from './normalize.js';

/**
 * GAIA's turn rules ("Key Field Rules"): turns numbered 1, 2, 3... in file order; an objective each; a
 * `ground_truth` or `success_criteria` each; ground truth that names a document names one of the corpus, and facts
 * of it (a fact the document lacks is allowed only where the bot must say it does not know: GAIA's own
 * `honest_limitation` cites `fact_id: employee_count`, "NOT in document"). The type checks already ran
 * (gaia-fields.ts): what is read here has the right types, and what had the wrong one is absent.
 */

export interface CorpusLookup {
  corpus?: Corpus;
  /** Called where the file names a corpus document and no manifest was found (warns once). */
  missing(path: string): void;
}

const GROUND_TRUTH_KEYS = ['doc_id', 'fact_id', 'fact_ids', 'expected_answer', 'expected_behavior', 'note'];

export function normalizeGaiaTurns(
  raw: unknown,
  n: Normalizer,
  lookup: CorpusLookup,
  defaultWithinMs: number,
): GaiaTurn[] {
  const turns: GaiaTurn[] = [];
  let previous = 0;
  (Array.isArray(raw) ? raw : []).forEach((value, i) => {
    const t = asRecord(value);
    const p = `turns[${i}]`;
    if (!t) return;
    const written = typeof t.turn === 'number' ? t.turn : previous + 1;
    if (typeof t.turn === 'number' && t.turn !== previous + 1) {
      const why = previous === 0 ? 'turn numbers start from 1' : `turn ${previous} comes before it`;
      n.error(`${p}.turn`, `expected ${previous + 1}, got ${t.turn} (${why}; GAIA numbers turns 1, 2, 3... in order)`);
    }
    previous = written;
    const turn: GaiaTurn = {
      turn: written,
      objective: typeof t.objective === 'string' ? t.objective.trim() : '',
      within_ms: typeof t.within_ms === 'number' ? t.within_ms : defaultWithinMs,
    };
    if (typeof t.user_message === 'string') turn.user_message = t.user_message.trim();
    const hasTruth = GROUND_TRUTH_KEYS.some((k) => n.wrote(`${p}.ground_truth.${k}`));
    const truthAt = `${p}.ground_truth`;
    if (asRecord(t.ground_truth) && !hasTruth && !n.hasErrorAt(truthAt)) {
      n.error(truthAt, `an empty ground_truth gives the judge nothing; write some of: ${GROUND_TRUTH_KEYS.join(', ')}`);
    } else if (hasTruth) {
      turn.ground_truth = groundTruth(asRecord(t.ground_truth) ?? {}, truthAt, n, lookup);
    }
    if (typeof t.success_criteria === 'string') turn.success_criteria = t.success_criteria.trim();
    if (!n.wrote(truthAt) && !n.wrote(`${p}.success_criteria`)) {
      n.error(
        p,
        "a turn needs 'ground_truth:' or 'success_criteria:' (GAIA: one of them per turn; both give the judge the " +
          'most to go on)',
      );
    } else if (n.wrote(truthAt) && !n.wrote(`${p}.success_criteria`) && !hasTruth && !n.hasErrorAt(truthAt)) {
      n.error(truthAt, "'ground_truth:' is empty and there is no 'success_criteria:': nothing to judge this turn by");
    }
    turns.push(turn);
  });
  return turns;
}

function groundTruth(g: Record<string, unknown>, p: string, n: Normalizer, lookup: CorpusLookup): GaiaGroundTruth {
  // Facts last, as `validate --json` prints the block.
  const out: Omit<GaiaGroundTruth, 'facts'> = {};
  const facts: CorpusFact[] = [];
  const done = (): GaiaGroundTruth => ({ ...out, facts });
  if (typeof g.doc_id === 'string') out.doc_id = g.doc_id;
  const expected = g.expected_answer;
  if (typeof expected === 'number') out.expected_answer = String(expected);
  else if (typeof expected === 'string') {
    if (expected.trim() === '')
      n.error(`${p}.expected_answer`, 'an empty expected_answer; write null when the bot must say it does not know');
    else out.expected_answer = expected.trim();
  } else if (n.wrote(`${p}.expected_answer`) && !n.hasErrorAt(`${p}.expected_answer`)) {
    // Written as null (`expected_answer: null` or `expected_answer:`): the bot must say it does not know.
    out.expected_answer = null;
  }
  if (typeof g.expected_behavior === 'string') out.expected_behavior = g.expected_behavior.trim();
  if (typeof g.note === 'string') out.note = g.note.trim();

  const named = factIds(g, p, n);
  if (named.length > 0) out.fact_ids = named.map((f) => f.id);
  if (named.length > 0 && out.doc_id === undefined && !n.hasErrorAt(`${p}.doc_id`)) {
    n.error(named[0].path, `'${named[0].key}:' names a fact of a document: it needs 'doc_id:' beside it`);
  }
  if (out.doc_id === undefined) return done();
  const corpus = lookup.corpus;
  if (!corpus) {
    lookup.missing(`${p}.doc_id`);
    return done();
  }
  const doc = corpus.documents.get(out.doc_id);
  const adversarial = corpus.adversarial.get(out.doc_id);
  if (!doc && !adversarial) {
    n.error(`${p}.doc_id`, unknownDocument(out.doc_id, corpus));
    return done();
  }
  if (adversarial) {
    out.adversarial_behavior = adversarial.expected_behavior;
    if (named.length > 0) n.error(named[0].path, `'${out.doc_id}' is an adversarial document: it has no facts`);
    return done();
  }
  for (const f of named) {
    const fact = doc?.facts.find((x) => x.id === f.id);
    if (fact) facts.push(fact);
    else if (out.expected_answer !== null) n.error(f.path, unknownFact(f.id, out.doc_id, doc?.facts ?? []));
  }
  if (out.expected_answer === null && facts.length > 0) {
    const f = facts[0];
    n.warn(
      `${p}.expected_answer`,
      `null says the bot must not know, but fact '${f.id}' of '${f.doc_id}' answers it (${JSON.stringify(f.answer)})`,
    );
  }
  return done();
}

interface NamedFact {
  id: string;
  key: 'fact_id' | 'fact_ids';
  path: string;
}

/** `fact_id` and `fact_ids` merged in written order, each once. */
function factIds(g: Record<string, unknown>, p: string, n: Normalizer): NamedFact[] {
  const out: NamedFact[] = [];
  if (typeof g.fact_id === 'string') out.push({ id: g.fact_id, key: 'fact_id', path: `${p}.fact_id` });
  if (Array.isArray(g.fact_ids)) {
    g.fact_ids.forEach((id, j) => {
      if (typeof id === 'string') out.push({ id, key: 'fact_ids', path: `${p}.fact_ids[${j}]` });
    });
    if (typeof g.fact_id === 'string')
      n.warn(`${p}.fact_ids`, "both 'fact_id:' and 'fact_ids:' are written: the facts of both are used");
  }
  const seen = new Set<string>();
  return out.filter((f) => {
    if (seen.has(f.id)) {
      n.warn(f.path, `fact '${f.id}' is named twice`);
      return false;
    }
    seen.add(f.id);
    return true;
  });
}

export function unknownDocument(id: string, corpus: Corpus): string {
  const ids = [...corpus.documents.keys(), ...corpus.adversarial.keys()];
  const guess = closest(id, ids);
  const hint = guess ? `did you mean '${guess}'?` : `its documents: ${ids.join(', ') || 'none'}`;
  return `unknown document '${id}': the corpus manifest ${corpus.file} does not list it; ${hint}`;
}

function unknownFact(id: string, docId: string, facts: readonly CorpusFact[]): string {
  const guess = closest(
    id,
    facts.map((f) => f.id),
  );
  const hint = guess ? `did you mean '${guess}'?` : `its facts: ${facts.map((f) => f.id).join(', ') || 'none'}`;
  return (
    `unknown fact '${id}' of document '${docId}'; ${hint} ` +
    '(a fact the document lacks is for expected_answer: null, where the bot must say it does not know)'
  );
}
