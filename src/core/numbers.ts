/**
 * Numbers as people, bots and speech-to-text write them: every number a text
 * mentions, with its value and where it is. Used wherever earshot holds a
 * reply against an expected number deterministically (`number:` checks, the
 * simulation scorecard's numeric tolerance).
 *
 * Written with digits: `75`, `-4`, `75.5`, `1,250` (groups of three after a
 * comma), `$14.2`, `23%`, `3.5k` / `2 bn` / `1.5 million` / `3 hundred`
 * (scales), `21st` (ordinal). A digit inside a word is no number (`mp3`,
 * `Q3`); a dash between digits joins them (`555-0142` is 555 and 142), and
 * `-`/`−` before digits is a minus sign only where no word or digit touches it.
 *
 * Spelled out (any case; words joined by spaces or hyphens, so a comma or a
 * full stop ends a number): `seventy five` / `seventy-five` = 75, `one
 * hundred and five` = 105, `two thousand twenty six` = 2026, `a hundred`,
 * `a dozen` = 12, `two dozen` = 24, `three and a half` = 3.5, `and a quarter`,
 * `seventy five point five` = 75.5, `point five` = 0.5, `fourteen point two
 * million` = 14.2e6, `minus five` / `negative five` = −5; years as they are
 * read, `nineteen eighty four` = 1984, `twenty twenty six` = 2026, `twenty oh
 * five` = 2005; ordinals `first`, `twenty-first` = 21, `one hundredth`
 * (`ordinal: true`; a lone `second` is left alone: it is mostly the time unit).
 * Words that cannot continue a number start a new one: `five five five` is
 * three fives (a phone number read out), `one, two` two numbers.
 *
 * Guarantees: pure; never throws; linear in the text's length; mentions come
 * in order of appearance, never overlap, and each `text` is exactly
 * `input.slice(start, end)`; every value is a finite number.
 */
import { type Token, tokenize } from './number-tokens.js';

export interface NumberMention {
  value: number;
  /** The digits or words as written. */
  text: string;
  /** UTF-16 offsets into the text: `[start, end)`. */
  start: number;
  end: number;
  /** `21st`, `twenty-first`. */
  ordinal: boolean;
}

/** Every number in the text, in order of appearance. */
export function findNumbers(text: string): NumberMention[] {
  const tokens = tokenize(text);
  const out: NumberMention[] = [];
  for (let i = 0; i < tokens.length; ) {
    const parsed = parseAt(tokens, i);
    if (!parsed) {
      i++;
      continue;
    }
    const start = tokens[i].start;
    const end = tokens[parsed.next - 1].end;
    if (Number.isFinite(parsed.value))
      out.push({ value: parsed.value, text: text.slice(start, end), start, end, ordinal: parsed.ordinal });
    i = parsed.next;
  }
  return out;
}

/** The values of `findNumbers`. */
export function numbersIn(text: string): number[] {
  return findNumbers(text).map((m) => m.value);
}

const UNITS: Record<string, number> = {
  zero: 0,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
};
const TEENS: Record<string, number> = {
  ten: 10,
  eleven: 11,
  twelve: 12,
  thirteen: 13,
  fourteen: 14,
  fifteen: 15,
  sixteen: 16,
  seventeen: 17,
  eighteen: 18,
  nineteen: 19,
};
const TENS: Record<string, number> = {
  twenty: 20,
  thirty: 30,
  forty: 40,
  fifty: 50,
  sixty: 60,
  seventy: 70,
  eighty: 80,
  ninety: 90,
};
const SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };
/** The words that spell a cardinal number ("seventy", "five", "thousand", "point"), lower case. */
export const CARDINAL_WORDS: ReadonlySet<string> = new Set([
  ...Object.keys(UNITS),
  ...Object.keys(TEENS),
  ...Object.keys(TENS),
  ...Object.keys(SCALES),
  'hundred',
  'point',
]);
const ORDINALS: Record<string, string> = {
  first: 'one',
  second: 'two',
  third: 'three',
  fourth: 'four',
  fifth: 'five',
  sixth: 'six',
  seventh: 'seven',
  eighth: 'eight',
  ninth: 'nine',
  tenth: 'ten',
  eleventh: 'eleven',
  twelfth: 'twelve',
  thirteenth: 'thirteen',
  fourteenth: 'fourteen',
  fifteenth: 'fifteen',
  sixteenth: 'sixteen',
  seventeenth: 'seventeen',
  eighteenth: 'eighteen',
  nineteenth: 'nineteen',
  twentieth: 'twenty',
  thirtieth: 'thirty',
  fortieth: 'forty',
  fiftieth: 'fifty',
  sixtieth: 'sixty',
  seventieth: 'seventy',
  eightieth: 'eighty',
  ninetieth: 'ninety',
  hundredth: 'hundred',
  thousandth: 'thousand',
  millionth: 'million',
  billionth: 'billion',
  trillionth: 'trillion',
};
const DECIMAL_DIGITS: Record<string, number> = { ...UNITS, oh: 0 };

type Kind = 'unit' | 'teen' | 'tens' | 'hundred' | 'scale';

interface Parsed {
  value: number;
  /** Index of the first token after the number. */
  next: number;
  ordinal: boolean;
}

/** What a word is as part of a number, its ordinal read as its cardinal. */
function classify(word: string): { kind: Kind; value: number; ordinal: boolean } | null {
  const ord = Object.hasOwn(ORDINALS, word) ? ORDINALS[word] : undefined;
  const w = ord ?? word;
  const ordinal = ord !== undefined;
  if (Object.hasOwn(UNITS, w)) return { kind: 'unit', value: UNITS[w], ordinal };
  if (Object.hasOwn(TEENS, w)) return { kind: 'teen', value: TEENS[w], ordinal };
  if (Object.hasOwn(TENS, w)) return { kind: 'tens', value: TENS[w], ordinal };
  if (w === 'hundred') return { kind: 'hundred', value: 100, ordinal };
  if (Object.hasOwn(SCALES, w)) return { kind: 'scale', value: SCALES[w], ordinal };
  return null;
}

/** The token at `i` when it continues the phrase (a word, not cut off by punctuation). */
function wordAt(tokens: Token[], i: number): string | null {
  const t = tokens[i];
  return t && t.kind === 'word' && !t.broken ? t.word : null;
}

function parseAt(tokens: Token[], i: number): Parsed | null {
  const t = tokens[i];
  if (t.kind === 'digits') return parseDigits(tokens, i);
  if (t.kind === 'word') return parseWords(tokens, i);
  // A minus sign: the digits right after it (the tokenizer only makes one where they follow).
  const d = parseDigits(tokens, i + 1);
  return { ...d, value: -d.value };
}

/** Scales a number written in digits may carry as a word ("1.5 million", "2 bn", "3 hundred"). */
const DIGIT_SCALES: Record<string, number> = { ...SCALES, hundred: 100, bn: 1e9, mn: 1e6 };

function parseDigits(tokens: Token[], i: number): Parsed {
  const t = tokens[i];
  let value = t.value;
  let next = i + 1;
  const after = wordAt(tokens, next);
  if (!t.ordinal && after && Object.hasOwn(DIGIT_SCALES, after)) {
    value *= DIGIT_SCALES[after];
    next++;
  }
  return { value, next, ordinal: t.ordinal };
}

/** A spelled-out number starting at token `i` (a sign word, `a`, or a number word), or null. */
function parseWords(tokens: Token[], i: number): Parsed | null {
  const first = tokens[i].word;
  if (tokens[i].kind !== 'word') return null;
  if (first === 'minus' || first === 'negative') {
    const after = tokens[i + 1];
    if (!after || after.broken) return null;
    const rest =
      after.kind === 'digits' ? parseDigits(tokens, i + 1) : after.kind === 'word' ? parseWords(tokens, i + 1) : null;
    return rest ? { ...rest, value: -rest.value } : null;
  }
  if (first === 'point') return decimals(tokens, i, 0);
  let start = i;
  let aOne = false;
  if (first === 'a' || first === 'an') {
    const w = wordAt(tokens, i + 1);
    if (!w || !(w === 'hundred' || w === 'dozen' || Object.hasOwn(SCALES, w))) return null;
    aOne = true;
    start = i + 1;
  }
  const cardinal = parseCardinal(tokens, start, aOne);
  if (!cardinal) return null;
  return extend(tokens, cardinal);
}

/**
 * The longest cardinal (with its ordinal ending) from `i`: units after tens,
 * `hundred` after a group below 100, scales in decreasing order, `and` after
 * `hundred` or a scale when a number word follows.
 */
function parseCardinal(tokens: Token[], i: number, aOne: boolean): Parsed | null {
  let total = 0;
  let group = aOne ? 1 : 0;
  let last: Kind | 'none' = aOne ? 'unit' : 'none';
  let maxScale = Infinity;
  let j = i;
  let ordinal = false;
  for (;;) {
    const w = j === i ? tokens[j]?.word : wordAt(tokens, j);
    if (!w || (j === i && tokens[j]?.kind !== 'word')) break;
    if (w === 'and' && (last === 'hundred' || last === 'scale')) {
      const after = wordAt(tokens, j + 1);
      const c = after ? classify(after) : null;
      if (c && (c.kind === 'unit' || c.kind === 'teen' || c.kind === 'tens') && c.value > 0) {
        j++;
        continue;
      }
      break;
    }
    const c = classify(w);
    if (!c || (w === 'second' && last === 'none') || (w === 'zero' && last !== 'none')) break;
    if (!fits(c.kind, last, group, c.value, maxScale)) break;
    if (c.kind === 'hundred') group *= 100;
    else if (c.kind === 'scale') {
      total += group * c.value;
      group = 0;
      maxScale = c.value;
    } else group += c.value;
    last = c.kind;
    j++;
    if (c.value === 0) break;
    if (c.ordinal) {
      ordinal = true;
      break;
    }
  }
  if (last === 'none') return null;
  const value = total + group;
  if (!ordinal && last !== 'hundred' && last !== 'scale' && total === 0 && value >= 10 && value < 100) {
    const year = yearTail(tokens, j);
    if (year) return { value: value * 100 + year.value, next: year.next, ordinal: year.ordinal };
  }
  return { value, next: j, ordinal };
}

function fits(kind: Kind, last: Kind | 'none', group: number, value: number, maxScale: number): boolean {
  switch (kind) {
    case 'unit':
      return last === 'none' || last === 'tens' || last === 'hundred' || last === 'scale';
    case 'teen':
    case 'tens':
      return last === 'none' || last === 'hundred' || last === 'scale';
    case 'hundred':
      return (last === 'unit' || last === 'teen' || last === 'tens') && group > 0 && group < 100;
    case 'scale':
      return last !== 'none' && group > 0 && value < maxScale;
  }
}

/** The second half of a year read in pairs ("nineteen | eighty four", "twenty | oh five"): 0..99, or null. */
function yearTail(tokens: Token[], j: number): Parsed | null {
  const w = wordAt(tokens, j);
  if (!w) return null;
  if (w === 'oh') {
    const u = wordAt(tokens, j + 1);
    if (u && Object.hasOwn(UNITS, u) && UNITS[u] > 0) return { value: UNITS[u], next: j + 2, ordinal: false };
    const o = u && Object.hasOwn(ORDINALS, u) ? ORDINALS[u] : undefined;
    if (o && Object.hasOwn(UNITS, o)) return { value: UNITS[o], next: j + 2, ordinal: true };
    return null;
  }
  const c = classify(w);
  if (!c || (c.kind !== 'teen' && c.kind !== 'tens')) return null;
  if (c.ordinal || c.kind === 'teen') return { value: c.value, next: j + 1, ordinal: c.ordinal };
  const u = wordAt(tokens, j + 1);
  const cu = u ? classify(u) : null;
  if (u !== 'zero' && cu && cu.kind === 'unit' && cu.value > 0)
    return { value: c.value + cu.value, next: j + 2, ordinal: cu.ordinal };
  return { value: c.value, next: j + 1, ordinal: false };
}

/** What may follow a cardinal: `point` and digits (then a scale), `dozen`, `and a half` / `and a quarter`. */
function extend(tokens: Token[], p: Parsed): Parsed {
  if (p.ordinal) return p;
  const w = wordAt(tokens, p.next);
  if (w === 'point') return decimals(tokens, p.next, p.value) ?? p;
  if (w === 'dozen') return { value: p.value * 12, next: p.next + 1, ordinal: false };
  if (w === 'and' && wordAt(tokens, p.next + 1) === 'a') {
    const frac = wordAt(tokens, p.next + 2);
    if (frac === 'half') return { value: p.value + 0.5, next: p.next + 3, ordinal: false };
    if (frac === 'quarter') return { value: p.value + 0.25, next: p.next + 3, ordinal: false };
  }
  return p;
}

/** `point` at `i` followed by digit words ("point two five"), then optionally a scale ("point two million"). */
function decimals(tokens: Token[], i: number, whole: number): Parsed | null {
  let digits = '';
  let j = i + 1;
  for (let w = wordAt(tokens, j); w !== null && Object.hasOwn(DECIMAL_DIGITS, w); w = wordAt(tokens, ++j))
    digits += String(DECIMAL_DIGITS[w]);
  if (!digits) return null;
  let value = whole + Number(`0.${digits}`);
  const scale = wordAt(tokens, j);
  if (scale && Object.hasOwn(SCALES, scale)) {
    value *= SCALES[scale];
    j++;
  }
  return { value, next: j, ordinal: false };
}
