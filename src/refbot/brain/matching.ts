/**
 * Matching normalized utterances against compiled conditions. Everything here
 * runs on text that went through `normalizeText`: lowercase words separated by
 * single spaces, so a phrase matches on word boundaries only ("story" does not
 * match inside "history").
 */

/** One phrase of a vocabulary: `canonical` is what a capture yields ("San Francisco"). */
export interface VocabEntry {
  readonly canonical: string;
  readonly pattern: RegExp;
}

export type Vocabularies = ReadonlyMap<string, readonly VocabEntry[]>;

export type TermAlternative = { kind: 'phrase'; pattern: RegExp } | { kind: 'vocab'; name: string };

/** `a|b|$city`: holds when any alternative occurs in the text. */
export interface Term {
  readonly source: string;
  readonly alternatives: readonly TermAlternative[];
}

/** Every listed part must hold: all `all` terms, one of `any`, none of `none`, and `regex`. */
export interface Condition {
  readonly all: readonly Term[];
  readonly any: readonly Term[];
  readonly none: readonly Term[];
  readonly regex: RegExp | null;
  /** Slots this condition always yields when it holds (single-vocabulary `all` terms, regex groups). */
  readonly captures: readonly string[];
}

export type Captures = Map<string, string>;

/** A phrase pattern ("new york", "restaurant*") as a word-boundary regex over normalized text. */
export function phrasePattern(normalizedPhrase: string): RegExp {
  const words = normalizedPhrase.split(' ').map((w) => w.replace(/[^a-z0-9*]/g, '').replace(/\*/g, '[a-z0-9]*'));
  return new RegExp(`(?<![a-z0-9])${words.join(' ')}(?![a-z0-9])`);
}

/** The earliest (then longest) entry of a vocabulary found in the text. */
export function findVocab(text: string, entries: readonly VocabEntry[]): { canonical: string; index: number } | null {
  let best: { canonical: string; index: number; length: number } | null = null;
  for (const entry of entries) {
    const m = entry.pattern.exec(text);
    if (!m) continue;
    if (!best || m.index < best.index || (m.index === best.index && m[0].length > best.length)) {
      best = { canonical: entry.canonical, index: m.index, length: m[0].length };
    }
  }
  return best && { canonical: best.canonical, index: best.index };
}

function matchTerm(text: string, term: Term, vocab: Vocabularies, captures: Captures | null): boolean {
  for (const alt of term.alternatives) {
    if (alt.kind === 'phrase') {
      if (alt.pattern.test(text)) return true;
      continue;
    }
    const found = findVocab(text, vocab.get(alt.name) ?? []);
    if (found) {
      captures?.set(alt.name, found.canonical);
      return true;
    }
  }
  return false;
}

/** Returns the captures when the condition holds, else null. */
export function matchCondition(text: string, cond: Condition, vocab: Vocabularies): Captures | null {
  const captures: Captures = new Map();
  for (const term of cond.all) if (!matchTerm(text, term, vocab, captures)) return null;
  if (cond.any.length > 0 && !cond.any.some((term) => matchTerm(text, term, vocab, captures))) return null;
  if (cond.none.some((term) => matchTerm(text, term, vocab, null))) return null;
  if (cond.regex) {
    const m = cond.regex.exec(text);
    if (!m) return null;
    for (const [name, value] of Object.entries(m.groups ?? {})) {
      // A named group that took no part in the match yields nothing to fill a
      // template with, so the condition does not hold (documented in brain.yaml).
      if (value === undefined) return null;
      captures.set(name, value);
    }
  }
  return captures;
}

/** The first alternative of `when` that holds, with its captures. */
export function matchWhen(text: string, when: readonly Condition[], vocab: Vocabularies): Captures | null {
  for (const cond of when) {
    const captures = matchCondition(text, cond, vocab);
    if (captures) return captures;
  }
  return null;
}
