/**
 * Secrets come from the environment and must never reach logs, traces or
 * reports. Redaction works on values (whatever env var holds a secret, its value
 * is masked wherever it appears) and on shapes (bearer headers, `api_key` fields).
 */
const SECRET_NAME = /(_API_KEY|_TOKEN|_SECRET|_PASSWORD|^API_KEY|^TOKEN)$/i;
const MIN_SECRET_LENGTH = 6;
export const REDACTED = '[redacted]';

export function secretValuesFrom(env: NodeJS.ProcessEnv): string[] {
  const values: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value && value.length >= MIN_SECRET_LENGTH && SECRET_NAME.test(name)) values.push(value);
  }
  // Longest first so a secret that contains another is masked whole.
  return values.sort((a, b) => b.length - a.length);
}

const BEARER = /\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{6,}/g;
// The value may itself be a bearer header, masked above; keep its scheme readable.
const KEY_FIELD =
  /("?(?:api[_-]?key|authorization|x-api-key|token)"?\s*[:=]\s*"?)(?!Bearer\b|Basic\b|\[redacted\])([^"\s,}]{6,})/gi;

export class Redactor {
  private readonly secrets: string[];
  constructor(env: NodeJS.ProcessEnv = process.env, extra: string[] = []) {
    this.secrets = [...secretValuesFrom(env), ...extra.filter((s) => s.length >= MIN_SECRET_LENGTH)].sort(
      (a, b) => b.length - a.length,
    );
  }

  /** Adds a secret known only at run time (e.g. `api_key:` written in a scenario). */
  add(secret: string | undefined): void {
    if (!secret || secret.length < MIN_SECRET_LENGTH || this.secrets.includes(secret)) return;
    this.secrets.push(secret);
    this.secrets.sort((a, b) => b.length - a.length);
  }

  text(input: string): string {
    let out = input;
    for (const s of this.secrets) out = out.split(s).join(REDACTED);
    out = out.replace(BEARER, (_m, scheme: string) => `${scheme} ${REDACTED}`);
    out = out.replace(KEY_FIELD, (_m, prefix: string) => `${prefix}${REDACTED}`);
    return out;
  }

  /**
   * Deep-redacts every string (values and keys) of a JSON-like value. It walks
   * the value rather than its JSON text, so a secret that JSON would escape (a
   * quote, a backslash) is still found; a field named like a credential is
   * masked whatever it holds. `undefined` fields are dropped, as JSON would.
   */
  value<T>(input: T): T {
    return this.walk(input) as T;
  }

  private walk(value: unknown): unknown {
    if (typeof value === 'string') return this.text(value);
    if (Array.isArray(value)) return value.map((v) => this.walk(v));
    if (value !== null && typeof value === 'object') {
      const out: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(value)) {
        if (v === undefined) continue;
        out[this.text(k)] =
          typeof v === 'string' && v.length > 0 && SECRET_FIELD_NAME.test(k) ? REDACTED : this.walk(v);
      }
      return out;
    }
    return value;
  }
}

/** Fields whose string value is a credential by shape, whatever it holds. */
const SECRET_FIELD_NAME = /^(api[_-]?key|authorization|x-api-key|token|access[_-]?token|secret|password)$/i;
