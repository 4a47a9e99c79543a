import { createContext, Script } from 'node:vm';
import { findNumbers } from '../metrics/index.js';
import type { FailureKind } from '../results/types.js';
import { MAX_PATTERN_INPUT_CHARS, type NumberCheck, type TextPattern } from '../scenario/index.js';
import { textContains } from './match-checks.js';

/**
 * The positive text checks of an expectation, decided on one text: Pipecat's
 * `text_contains`, and earshot's `text_matches` (a regular expression) and
 * `number` (a number in the text within a tolerance). Each passes, waits for
 * more of the reply (a miss: the caller aggregates segments until the
 * deadline), or fails for good (a pattern that ran past its time limit).
 */

export type TextCheckResult =
  | { ok: true }
  | {
      ok: false;
      kind: Extract<FailureKind, 'text_mismatch' | 'number_mismatch' | 'error'>;
      reason: string;
      /** More text cannot help: the check itself could not be decided. */
      final: boolean;
    };

export interface PositiveChecks {
  text_contains?: string;
  text_matches?: TextPattern;
  number?: NumberCheck;
}

/** How long one regular expression may run on one text before the check gives up (an error, never a hang). */
export const PATTERN_TIME_LIMIT_MS = 250;

export function hasPositiveChecks(exp: PositiveChecks): boolean {
  return exp.text_contains !== undefined || exp.text_matches !== undefined || exp.number !== undefined;
}

/** The first check that `text` does not satisfy, or ok. */
export function checkPositive(text: string, exp: PositiveChecks): TextCheckResult {
  if (exp.text_contains !== undefined && !textContains(text, exp.text_contains)) {
    return {
      ok: false,
      kind: 'text_mismatch',
      reason: `does not contain ${JSON.stringify(exp.text_contains)}`,
      final: false,
    };
  }
  if (exp.text_matches !== undefined) {
    const matched = matchPattern(exp.text_matches, text);
    if (matched === 'timeout') {
      return {
        ok: false,
        kind: 'error',
        reason:
          `text_matches ${JSON.stringify(exp.text_matches.source)} ran past ${PATTERN_TIME_LIMIT_MS} ms on ` +
          `${text.length} characters (catastrophic backtracking?): simplify the pattern`,
        final: true,
      };
    }
    if (!matched)
      return {
        ok: false,
        kind: 'text_mismatch',
        reason: `does not match ${JSON.stringify(exp.text_matches.source)}`,
        final: false,
      };
  }
  if (exp.number !== undefined) {
    const found = findNumbers(text);
    const { value, tolerance_pct } = exp.number;
    const slack = (Math.abs(value) * tolerance_pct) / 100;
    if (!found.some((m) => Math.abs(m.value - value) <= slack + Number.EPSILON * Math.max(1, Math.abs(value)))) {
      const want = tolerance_pct > 0 ? `${value} ± ${tolerance_pct}%` : String(value);
      const saw = found.length
        ? `found ${found
            .slice(0, 8)
            .map((m) => `${JSON.stringify(m.text)} = ${m.value}`)
            .join(', ')}`
        : 'found no number';
      return { ok: false, kind: 'number_mismatch', reason: `holds no number ${want} (${saw})`, final: false };
    }
  }
  return { ok: true };
}

// One context for every match: a fresh one per call would cost more than the match.
const sandbox = createContext(Object.create(null) as object);
const runTest = new Script('re.test(text)');

/**
 * Whether the pattern matches the text (whitespace collapsed, cut to
 * `MAX_PATTERN_INPUT_CHARS`), or `timeout` when the regular expression ran past
 * `PATTERN_TIME_LIMIT_MS`: V8 checks for interrupts while backtracking, so a
 * `vm` time limit stops even a catastrophic pattern.
 */
export function matchPattern(p: TextPattern, text: string): boolean | 'timeout' {
  const squashed = text.split(/\s+/).filter(Boolean).join(' ').slice(0, MAX_PATTERN_INPUT_CHARS);
  const s = sandbox as { re?: RegExp; text?: string };
  s.re = new RegExp(p.pattern, p.flags);
  s.text = squashed;
  try {
    return runTest.runInContext(sandbox, { timeout: PATTERN_TIME_LIMIT_MS }) === true;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') return 'timeout';
    throw err;
  } finally {
    s.re = undefined;
    s.text = undefined;
  }
}
