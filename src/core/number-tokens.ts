/**
 * The tokenizer behind `findNumbers` (numbers.ts): words, digits (with their ordinal suffix or scale letter folded in)
 * and minus signs, each marked when punctuation other than spaces and hyphens cuts it off from the token before.
 */
export interface Token {
  kind: 'word' | 'digits' | 'minus';
  /** Lowercased word, or the digits' value. */
  word: string;
  value: number;
  start: number;
  end: number;
  /** Whether punctuation other than spaces and hyphens separates it from the token before. */
  broken: boolean;
  /** `21st`: the digits carried an ordinal suffix. */
  ordinal: boolean;
}

const DIGITS = /(\d{1,3}(?:,\d{3})+(?!\d)|\d+)(\.\d+)?/y;
const ORDINAL_SUFFIX = /(?:st|nd|rd|th)(?![\p{L}\p{N}])/iuy;
const SUFFIX_SCALE = /(k|mn|m|bn|b)(?![\p{L}\p{N}])/iuy;
const LETTER = /[\p{L}\p{N}']/u;
const WORD = /[\p{L}']+/uy;

const SUFFIX_SCALES: Record<string, number> = { k: 1e3, m: 1e6, mn: 1e6, b: 1e9, bn: 1e9 };

export function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let broken = false;
  let i = 0;
  const push = (t: Omit<Token, 'broken'>): void => {
    tokens.push({ ...t, broken });
    broken = false;
  };
  while (i < text.length) {
    const c = text[i];
    if (
      (c === '-' || c === '\u2212') &&
      /\d/.test(text[i + 1] ?? '') &&
      !LETTER.test(text[i - 1] ?? '') &&
      !/\d/.test(text[i - 1] ?? '')
    ) {
      push({ kind: 'minus', word: '-', value: 0, start: i, end: i + 1, ordinal: false });
      i++;
      continue;
    }
    if (/\d/.test(c)) {
      DIGITS.lastIndex = i;
      const m = DIGITS.exec(text)!;
      let end = i + m[0].length;
      if (LETTER.test(text[i - 1] ?? '') && !/\d/.test(text[i - 1] ?? '')) {
        // A digit inside a word ("mp3", "Q3"): skip the whole word.
        while (end < text.length && LETTER.test(text[end])) end++;
        broken = true;
        i = end;
        continue;
      }
      let value = Number(m[1].replace(/,/g, '') + (m[2] ?? ''));
      let ordinal = false;
      ORDINAL_SUFFIX.lastIndex = end;
      SUFFIX_SCALE.lastIndex = end;
      const suffix = ORDINAL_SUFFIX.exec(text);
      const scale = suffix ? null : SUFFIX_SCALE.exec(text);
      if (suffix && !m[2]) {
        ordinal = true;
        end += suffix[0].length;
      } else if (scale) {
        value *= SUFFIX_SCALES[scale[1].toLowerCase()];
        end += scale[0].length;
      }
      push({ kind: 'digits', word: m[0], value, start: i, end, ordinal });
      i = end;
      continue;
    }
    WORD.lastIndex = i;
    const w = WORD.exec(text);
    if (w) {
      push({
        kind: 'word',
        word: w[0].toLowerCase().replace(/^'+|'+$/g, ''),
        value: 0,
        start: i,
        end: i + w[0].length,
        ordinal: false,
      });
      i += w[0].length;
      continue;
    }
    if (!/[\s\-\u2010-\u2014]/u.test(c)) broken = true;
    i++;
  }
  return tokens;
}
