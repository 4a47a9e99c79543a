/**
 * A few composable shape checks for untrusted JSON. A check returns the
 * (normalized) value when it fits, or a reason naming the path (`data.options.
 * run_immediately: expected boolean, got string`).
 *
 * Unknown extra fields are kept: peers add fields across protocol versions and
 * must not be rejected for it. Optional fields that are `null` are dropped, so a
 * parsed value matches its type (`field?: T`, never `null`): Pipecat omits
 * `None` fields, other peers send `null` for the same thing.
 */
export type Checked = { value: unknown; error?: undefined } | { error: string };
export type Check = (value: unknown, path: string) => Checked;

interface Optional {
  optional: Check;
}
type Field = Check | Optional;

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function fail(what: string, value: unknown, path: string): Checked {
  return { error: `${path}: expected ${what}, got ${describe(value)}` };
}

function when(ok: boolean, what: string, value: unknown, path: string): Checked {
  return ok ? { value } : fail(what, value, path);
}

export const string: Check = (v, p) => when(typeof v === 'string', 'string', v, p);
export const boolean: Check = (v, p) => when(typeof v === 'boolean', 'boolean', v, p);
export const number: Check = (v, p) => when(typeof v === 'number' && Number.isFinite(v), 'finite number', v, p);
export const integer: Check = (v, p) => when(Number.isSafeInteger(v), 'integer', v, p);
export const positiveInteger: Check = (v, p) =>
  when(Number.isSafeInteger(v) && (v as number) > 0, 'positive integer', v, p);
export const anything: Check = (v) => ({ value: v });

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const record: Check = (v, p) => when(isRecord(v), 'object', v, p);

/** Absent and `null` both mean "not given". */
export function optional(check: Check): Optional {
  return { optional: check };
}

export function oneOf(values: readonly string[]): Check {
  return (v, p) => {
    if (typeof v === 'string' && values.includes(v)) return { value: v };
    const got = typeof v === 'string' ? JSON.stringify(v.slice(0, 40)) : describe(v);
    return { error: `${p}: expected one of ${values.join('|')}, got ${got}` };
  };
}

export function arrayOf(item: Check, minLength = 0): Check {
  return (v, p) => {
    if (!Array.isArray(v)) return fail('array', v, p);
    if (v.length < minLength) return { error: `${p}: expected at least ${minLength} item(s), got ${v.length}` };
    const out: unknown[] = new Array(v.length);
    for (let i = 0; i < v.length; i++) {
      const r = item(v[i], `${p}[${i}]`);
      if (r.error !== undefined) return r;
      out[i] = r.value;
    }
    return { value: out };
  };
}

export function recordOf(item: Check): Check {
  return (v, p) => {
    if (!isRecord(v)) return fail('object', v, p);
    for (const [k, x] of Object.entries(v)) {
      const r = item(x, `${p}.${k}`);
      if (r.error !== undefined) return r;
    }
    return { value: v };
  };
}

export function object(shape: Record<string, Field>): Check {
  const entries = Object.entries(shape);
  return (v, p) => {
    if (!isRecord(v)) return fail('object', v, p);
    const out: Record<string, unknown> = { ...v };
    for (const [key, field] of entries) {
      const value = v[key];
      const path = `${p}.${key}`;
      if (typeof field === 'function') {
        if (value === undefined) return { error: `${path}: missing` };
        const r = field(value, path);
        if (r.error !== undefined) return r;
        out[key] = r.value;
      } else if (value === undefined || value === null) {
        delete out[key];
      } else {
        const r = field.optional(value, path);
        if (r.error !== undefined) return r;
        out[key] = r.value;
      }
    }
    return { value: out };
  };
}

export function either(a: Check, b: Check, what: string): Check {
  return (v, p) => {
    const ra = a(v, p);
    if (ra.error === undefined) return ra;
    const rb = b(v, p);
    return rb.error === undefined ? rb : fail(what, v, p);
  };
}
