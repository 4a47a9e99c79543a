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
const KEY_FIELD = /("?(?:api[_-]?key|authorization|x-api-key|token)"?\s*[:=]\s*"?)([^"\s,}]{6,})/gi;

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

  /** Deep-redacts a JSON-like value (strings anywhere in it). */
  value<T>(input: T): T {
    return JSON.parse(this.text(JSON.stringify(input))) as T;
  }
}
