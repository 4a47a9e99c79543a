/**
 * `text_matches:` (an earshot extension): a regular expression the event's
 * text must match.
 *
 * - Syntax: JavaScript's, in Unicode mode (`u`: `\p{L}` works, stray escapes
 *   such as `\-` outside a class are errors). A leading `(?i)`, `(?m)`, `(?s)`
 *   or a combination (`(?is)`), as Python and PCRE write it, sets the flags
 *   case-insensitive, multi-line and dot-all; there are no others (`g` and `y`
 *   would make matching stateful).
 * - Matching is a search, not a full match: `paris` matches "It is Paris."
 *   only with `(?i)`; anchor with `^` and `$` to hold the whole text. The text
 *   is the one `text_contains` reads, with every run of whitespace collapsed to
 *   one space and the ends trimmed, so a pattern need not guess how a
 *   transcriber or a reply's segments were spaced.
 * - Bounded: a pattern with an unboundedly quantified group that itself holds
 *   an unbounded quantifier (`(a+)+`, `(\w*\s?)*`), the classic exponential-time shape, is
 *   refused at load time; at run time the text is cut to
 *   `MAX_PATTERN_INPUT_CHARS` and a match that runs past its time limit is an
 *   error of the check, never a hang (session/match-text.ts).
 */
export interface TextPattern {
  /** As written in the file. */
  source: string;
  /** What `RegExp` is given, the flag group removed. */
  pattern: string;
  flags: string;
}

export interface PatternProblem {
  problem: string;
}

/** Longest text a pattern is matched against (characters; about 25 minutes of speech). */
export const MAX_PATTERN_INPUT_CHARS = 20_000;

const FLAG_GROUP = /^\(\?([ims]+)\)/;

/** The compiled form of a `text_matches:` value, or what is wrong with it. */
export function parseTextPattern(source: string): TextPattern | PatternProblem {
  let pattern = source;
  const flags = new Set(['u']);
  const group = FLAG_GROUP.exec(source);
  if (group) {
    for (const f of group[1]) flags.add(f);
    pattern = source.slice(group[0].length);
  }
  try {
    new RegExp(pattern, [...flags].join(''));
  } catch (err) {
    // V8's message repeats the pattern: "Invalid regular expression: /(/u: Unterminated group".
    const why = (err as Error).message.replace(/^Invalid regular expression: \/.*\/[a-z]*: /s, '');
    return { problem: `not a valid regular expression: ${why}` };
  }
  const nested = nestedQuantifier(pattern);
  if (nested !== null) {
    return {
      problem:
        `the quantified group at character ${nested + 1} holds an unbounded quantifier (like (a+)+), ` +
        `which can take exponential time on a long reply; ` +
        'quantify the inner part or the group, not both',
    };
  }
  return { source, pattern, flags: [...flags].sort().join('') };
}

export function isPatternProblem(x: TextPattern | PatternProblem): x is PatternProblem {
  return 'problem' in x;
}

/**
 * Offset of the first group that is quantified without bound (`*`, `+`,
 * `{n,}`) while holding an unbounded quantifier, or null. A scan of the
 * pattern's structure: escapes and character classes are skipped, groups are
 * matched by a stack.
 */
function nestedQuantifier(pattern: string): number | null {
  const open: Array<{ at: number; unbounded: boolean }> = [];
  let lastGroup: { at: number; unbounded: boolean } | null = null;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') {
      i++;
      lastGroup = null;
      continue;
    }
    if (c === '[') {
      i = classEnd(pattern, i);
      lastGroup = null;
      continue;
    }
    if (c === '(') {
      open.push({ at: i, unbounded: false });
      lastGroup = null;
      continue;
    }
    if (c === ')') {
      const g = open.pop();
      if (g && open.length > 0 && g.unbounded) open[open.length - 1].unbounded = true;
      lastGroup = g ?? null;
      continue;
    }
    const q = quantifierAt(pattern, i);
    if (q) {
      if (lastGroup && q.unbounded && lastGroup.unbounded) return lastGroup.at;
      // Whatever it quantifies (an atom or a whole group), the enclosing group now holds an unbounded quantifier.
      if (q.unbounded && open.length > 0) open[open.length - 1].unbounded = true;
      i = q.end - 1;
      lastGroup = null;
      continue;
    }
    lastGroup = null;
  }
  return null;
}

/** The `]` closing the class opened at `start` (in JavaScript the first unescaped one). */
function classEnd(pattern: string, start: number): number {
  for (let i = start + 1; i < pattern.length; i++) {
    if (pattern[i] === '\\') i++;
    else if (pattern[i] === ']') return i;
  }
  return pattern.length;
}

/** The quantifier starting at `i`, and whether it is unbounded (`*`, `+`, `{n,}`). */
function quantifierAt(pattern: string, i: number): { end: number; unbounded: boolean } | null {
  const c = pattern[i];
  const lazy = (end: number): number => (pattern[end] === '?' ? end + 1 : end);
  if (c === '*' || c === '+') return { end: lazy(i + 1), unbounded: true };
  if (c === '?') return { end: lazy(i + 1), unbounded: false };
  if (c !== '{') return null;
  const m = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(i));
  if (!m) return null;
  return { end: lazy(i + m[0].length), unbounded: m[3] === '' };
}
