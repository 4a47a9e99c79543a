import { canonicalDb, dbHash } from '../../core/db-hash.js';
import { deepEqual } from '../../core/equal.js';
import { errorMessage } from '../../core/errors.js';
import type { NemoAssertionVerdict, NemoSignalValue } from '../../results/nemo.js';
import { dbStatePredicate } from '../../scenario/nemo/predicates.js';
import { SuccessSignal, type DbStateAssertion } from '../../scenario/nemo/types.js';
import type { SummaryPull } from './types.js';

/**
 * The two DB signals over the bot's end state (`get_scenario_summary`). DB_STATE_MATCH compares the canonical hash of
 * `expected_scenario_db` with the bot's `db_hash` (core/db-hash.ts: the same canonicalization on both sides); a bot
 * that reports no hash scores false, never N/A (NeMo's Scoring page). DB_STATE_ASSERTION runs each assertion's
 * predicate over the bot's DB; its pass rate is binarized at 1.0.
 */

const MAX_DIFF_PATHS = 3;

export interface DbMatchOutcome {
  value: NemoSignalValue;
  expectedHash: string;
}

export function dbStateMatch(expected: Record<string, unknown>, pull: SummaryPull): DbMatchOutcome {
  const signal = SuccessSignal.DB_STATE_MATCH;
  const expectedHash = dbHash(expected);
  const summary = pull.summary;
  if (!summary)
    return { expectedHash, value: { signal, value: false, reason: `no db_hash: ${pull.error ?? 'no summary'}` } };
  if (summary.db_hash === null)
    return {
      expectedHash,
      value: { signal, value: false, reason: 'no db_hash: the bot reported none (no scenario state seeded?)' },
    };
  if (summary.db_hash === expectedHash)
    return { expectedHash, value: { signal, value: true, reason: `db_hash ${short(expectedHash)} matches` } };
  const db = pull.diffDb ?? summary.db;
  const diff = db ? `; differs at ${diffPaths(canonicalDb(expected), canonicalDb(db)).join(', ') || '(no path)'}` : '';
  return {
    expectedHash,
    value: {
      signal,
      value: false,
      reason: `db_hash ${short(summary.db_hash)} is not the expected ${short(expectedHash)}${diff}`,
    },
  };
}

const short = (hash: string): string => hash.slice(0, 12);

/** The first few paths where two canonical values differ (`orders[0].customer_phone`). */
export function diffPaths(expected: unknown, actual: unknown, at = '', out: string[] = []): string[] {
  if (out.length >= MAX_DIFF_PATHS || deepEqual(expected, actual)) return out;
  const obj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
  if (obj(expected) && obj(actual)) {
    const keys = [...new Set([...Object.keys(expected), ...Object.keys(actual)])].sort();
    for (const k of keys) diffPaths(expected[k], actual[k], at ? `${at}.${k}` : k, out);
    return out;
  }
  if (Array.isArray(expected) && Array.isArray(actual) && expected.length === actual.length) {
    for (let i = 0; i < expected.length; i++) diffPaths(expected[i], actual[i], `${at}[${i}]`, out);
    return out;
  }
  out.push(`${at || '(root)'} (expected ${brief(expected)}, got ${brief(actual)})`);
  return out;
}

const brief = (v: unknown): string => {
  const text = v === undefined ? 'nothing' : (JSON.stringify(v) ?? String(v));
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

export interface DbAssertionOutcome {
  value: NemoSignalValue;
  verdicts: NemoAssertionVerdict[];
}

export function dbStateAssertion(
  domain: string,
  assertions: readonly DbStateAssertion[],
  pull: SummaryPull,
): DbAssertionOutcome {
  const signal = SuccessSignal.DB_STATE_ASSERTION;
  const db = pull.summary?.db;
  const verdicts = assertions.map((a): NemoAssertionVerdict => {
    const what = a.message ?? a.func_name;
    if (!db) {
      const why = pull.summary ? 'the bot sent no db with include_db' : (pull.error ?? 'no summary');
      return { what, passed: false, reason: `no DB to check: ${why}` };
    }
    const predicate = dbStatePredicate(domain, a.func_name);
    if (!predicate)
      return { what, passed: false, reason: `no predicate ${a.func_name} registered`, error: 'not registered' };
    try {
      const actual = predicate(db, a.arguments);
      const passed = deepEqual(actual, a.assert_value);
      return {
        what,
        passed,
        actual,
        reason: `${a.func_name}(${JSON.stringify(a.arguments)}) returned ${brief(actual)}${
          passed ? '' : `, not ${brief(a.assert_value)}`
        }`,
      };
    } catch (err) {
      return { what, passed: false, reason: `${a.func_name} raised: ${errorMessage(err)}`, error: errorMessage(err) };
    }
  });
  const passed = verdicts.filter((v) => v.passed).length;
  const rate = verdicts.length ? passed / verdicts.length : 0;
  const failed = verdicts.find((v) => !v.passed);
  return {
    verdicts,
    value: {
      signal,
      value: verdicts.length > 0 && rate >= 1,
      pass_rate: rate,
      reason:
        `${passed}/${verdicts.length} assertion(s) hold` +
        (failed ? `; first failed: ${failed.what}: ${failed.reason}` : ''),
    },
  };
}
