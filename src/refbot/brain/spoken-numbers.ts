import { CARDINAL_WORDS, findNumbers } from '../../core/numbers.js';

/**
 * Amounts as a recognizer writes them. PocketSphinx hears "$75,000" as "seventy five thousand dollars": words, not
 * digits. The document matcher must not take those words for the question's subject (they are its data, as digits
 * are), and the threshold comparison must read them as the amount they say (core/numbers.ts reads both forms).
 */

/**
 * Words that say a number or its unit ("dollars" is the spoken "$", "percent" the spoken "%"): a question's data,
 * never its subject. Normalized, unstemmed forms.
 */
export const NUMBER_WORDS: ReadonlySet<string> = new Set([...CARDINAL_WORDS, 'dollar', 'dollars', 'percent']);

/**
 * The first amount in a normalized text ("a seventy five thousand dollar expense" → 75000). A lone "one" ("which
 * one is better") is a pronoun, not an amount.
 */
export function spokenAmount(normalized: string): number | null {
  const amount = findNumbers(normalized).find((m) => m.text !== 'one' && !m.ordinal);
  return amount ? amount.value : null;
}
