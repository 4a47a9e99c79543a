/**
 * Numbers as people and speech-to-text write them: digits with grouping,
 * decimals, currency and percent signs and scale words ("$14.2 million",
 * "1,250", "23%", "3.5k"), and spelled out ("fourteen point two million",
 * "twenty-three percent"). Used to hold a bot's answer against an expected
 * one deterministically (the scorecard's numeric tolerance).
 */

const SCALES: Record<string, number> = {
  k: 1e3,
  thousand: 1e3,
  m: 1e6,
  mn: 1e6,
  million: 1e6,
  b: 1e9,
  bn: 1e9,
  billion: 1e9,
  trillion: 1e12,
};

const DIGIT_NUMBER = /(-)?(?:\$\s?)?(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?:\s?(k|m|mn|b|bn|thousand|million|billion|trillion)\b)?/gi;

const UNITS: Record<string, number> = {
  zero: 0, oh: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };
const WORD_SCALES: Record<string, number> = { thousand: 1e3, million: 1e6, billion: 1e9, trillion: 1e12 };

/** Every number in the text, in order of appearance (digits first, then spelled-out runs). */
export function numbersIn(text: string): number[] {
  const found: number[] = [];
  for (const m of text.matchAll(DIGIT_NUMBER)) {
    // A digit inside a word ("mp3", "a1b") is no number.
    const before = text[m.index - 1];
    if (before !== undefined && /[a-z]/i.test(before) && !m[0].startsWith('$')) continue;
    let value = Number(m[2].replace(/,/g, '') + (m[3] ?? ''));
    if (m[4]) value *= SCALES[m[4].toLowerCase()];
    // A dash between digits ("555-0142") joins them; it is no minus sign.
    found.push(m[1] && !(before !== undefined && /\d/.test(before)) ? -value : value);
  }
  found.push(...spelledNumbers(text));
  return found.filter(Number.isFinite);
}

function spelledNumbers(text: string): number[] {
  const words = text.toLowerCase().split(/[^a-z]+/).filter(Boolean);
  const out: number[] = [];
  let run: string[] = [];
  const flush = (): void => {
    while (run.length && (run[run.length - 1] === 'and' || run[run.length - 1] === 'point')) run.pop();
    if (run.length) {
      const value = parseRun(run);
      if (value !== undefined) out.push(value);
    }
    run = [];
  };
  for (const w of words) {
    const numeric = w in UNITS || w in TENS || w === 'hundred' || w in WORD_SCALES;
    // "and" and "point" only continue a number already started ("two hundred and five", "fourteen point two").
    if (numeric && !(w === 'oh' && run.length === 0)) run.push(w);
    else if ((w === 'and' || w === 'point') && run.length) run.push(w);
    else flush();
  }
  flush();
  return out;
}

function parseRun(run: string[]): number | undefined {
  let total = 0;
  let current = 0;
  let decimals = '';
  let inDecimals = false;
  let any = false;
  for (const w of run) {
    if (w === 'and') continue;
    if (w === 'point') {
      inDecimals = true;
      continue;
    }
    if (inDecimals && w in UNITS && UNITS[w] < 10) {
      decimals += String(UNITS[w]);
      continue;
    }
    if (w in WORD_SCALES) {
      // A scale word alone ("million" after digits) is no number of its own.
      if (!any) continue;
      const whole = current + (decimals ? Number(`0.${decimals}`) : 0);
      total += whole * WORD_SCALES[w];
      current = 0;
      decimals = '';
      inDecimals = false;
      any = true;
      continue;
    }
    if (inDecimals) break;
    if (w === 'hundred') current = (current || 1) * 100;
    else current += UNITS[w] ?? TENS[w] ?? 0;
    any = true;
  }
  if (!any) return undefined;
  return total + current + (decimals ? Number(`0.${decimals}`) : 0);
}

/** GAIA's numeric precision: the highest correctness a deviation from the expected number allows. */
export function toleranceCap(deviation: number): number {
  if (deviation <= 0.01) return 10;
  if (deviation <= 0.05) return 8;
  if (deviation <= 0.15) return 4;
  if (deviation <= 0.5) return 1;
  return 0;
}

/** Relative deviation of `actual` from `expected` (an expected 0 allows only 0). */
export function deviation(actual: number, expected: number): number {
  if (expected === 0) return actual === 0 ? 0 : Infinity;
  return Math.abs(actual - expected) / Math.abs(expected);
}
