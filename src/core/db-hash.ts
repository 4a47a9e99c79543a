import { createHash } from 'node:crypto';

/**
 * The canonical hash of a NeMo scenario database (`DB_STATE_MATCH`: the bot's `db_hash` against the hash of the
 * scenario's `expected_scenario_db`). One implementation, used by the reference bot and the harness, so the two
 * cannot drift.
 *
 * Canonicalization, after NeMo's `db_hash` as its repository describes it:
 * - object keys sorted (by code point, as Python sorts `str`);
 * - the top-level keys in `HASH_EXCLUDED_KEYS` (`session`: per-call bookkeeping) left out;
 * - the strings `"none"` / `"null"` (any case) read as null (Python `None` written by a YAML or CSV loader);
 * - integral floats written as integers (`1.0` and `1` hash alike, as Python's `int(x)` would write them);
 * - lists under a key in `ORDER_INDEPENDENT_LIST_FIELDS` sorted by their items' canonical JSON.
 * Then serialized as Python's `json.dumps(value, sort_keys=True)` writes it (separators `", "` and `": "`,
 * `ensure_ascii`: non-ASCII as `\uXXXX`, lowercase hex; floats as Python's `repr`), UTF-8, SHA-256, lowercase hex.
 *
 * WHAT IS VERIFIED: the serializer against Python's documented `json.dumps` rules (escapes, separators, `repr` of
 * floats incl. exponents like `1e-05`), by unit tests written from those rules. WHAT IS NOT: no golden vector
 * produced by NeMo's own Python `get_dict_hash` was available offline, and the exact membership of NeMo's
 * order-independent list fields is not in its published docs (`bookings` is the one its tests name). So a NeMo
 * Python bot's `db_hash` matching earshot's is expected but unproven; `get_scenario_summary` with `include_db: true`
 * lets the harness diff the databases themselves when hashes disagree.
 */

/** Top-level keys left out of the hash. */
const HASH_EXCLUDED_KEYS: ReadonlySet<string> = new Set(['session']);

/** Lists whose order carries no meaning (at any depth, by key): sorted before hashing. */
const ORDER_INDEPENDENT_LIST_FIELDS: ReadonlySet<string> = new Set(['bookings']);

/** The database in canonical form (a new value; the input is not changed). */
export function canonicalDb(value: unknown): unknown {
  return canonical(value, true, false);
}

/** SHA-256 (hex) of the canonical database. */
export function dbHash(db: unknown): string {
  return createHash('sha256')
    .update(pythonJson(canonicalDb(db)), 'utf8')
    .digest('hex');
}

function canonical(value: unknown, top: boolean, orderFree: boolean): unknown {
  if (typeof value === 'string') return /^(none|null)$/i.test(value) ? null : value;
  if (typeof value === 'number') return Object.is(value, -0) ? 0 : value;
  if (value === null || typeof value !== 'object') return value ?? null;
  if (Array.isArray(value)) {
    const items = value.map((v) => canonical(v, false, false));
    if (!orderFree) return items;
    return items
      .map((v) => [pythonJson(v), v] as const)
      .sort(([a], [b]) => compareCodePoints(a, b))
      .map(([, v]) => v);
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (top && HASH_EXCLUDED_KEYS.has(k)) continue;
    // `undefined` is no JSON value: a key holding it is absent, as JSON.stringify would drop it.
    if (v === undefined) continue;
    out[k] = canonical(v, false, ORDER_INDEPENDENT_LIST_FIELDS.has(k));
  }
  return out;
}

/** Python's `json.dumps(value, sort_keys=True)` (default separators, `ensure_ascii=True`). */
export function pythonJson(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value === true) return 'true';
  if (value === false) return 'false';
  if (typeof value === 'number') return pythonNumber(value);
  if (typeof value === 'string') return pythonString(value);
  if (Array.isArray(value)) return `[${value.map(pythonJson).join(', ')}]`;
  if (typeof value === 'object') {
    const rec = value as Record<string, unknown>;
    const keys = Object.keys(rec)
      .filter((k) => rec[k] !== undefined)
      .sort(compareCodePoints);
    return `{${keys.map((k) => `${pythonString(k)}: ${pythonJson(rec[k])}`).join(', ')}}`;
  }
  return pythonString(String(value));
}

/** Integral values as Python ints; others as Python's float `repr` (scientific below 1e-4 and from 1e16). */
function pythonNumber(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Number.POSITIVE_INFINITY) return 'Infinity';
  if (n === Number.NEGATIVE_INFINITY) return '-Infinity';
  if (Number.isInteger(n)) return BigInt(n).toString();
  // JS and Python both print the shortest round-tripping digits; only the layout differs.
  const [mantissa, expText] = n.toExponential().split('e');
  const exp = Number(expText);
  if (exp < -4 || exp >= 16) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '\\"',
  '\\': '\\\\',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

function pythonString(s: string): string {
  let out = '"';
  // UTF-16 code units: an astral character comes out as its surrogate pair, as Python writes it.
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    const code = s.charCodeAt(i);
    const escaped = ESCAPES[ch];
    if (escaped) out += escaped;
    else if (code < 0x20 || code > 0x7e) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return `${out}"`;
}

/** Python's `str` order (code points), not JS's default UTF-16 code-unit order. */
function compareCodePoints(a: string, b: string): number {
  const ca = [...a];
  const cb = [...b];
  for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
    const d = (ca[i].codePointAt(0) ?? 0) - (cb[i].codePointAt(0) ?? 0);
    if (d !== 0) return d;
  }
  return ca.length - cb.length;
}
