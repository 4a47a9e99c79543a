import type { Redactor } from '../core/redact.js';

/** Deep-redacts a result before it is written (see `Redactor.value`). */
export function redactDeep<T>(value: T, redactor: Redactor): T {
  return redactor.value(value);
}
