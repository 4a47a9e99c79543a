import { EarshotError, UsageError } from '../core/errors.js';

/**
 * Why a judge call produced no verdict:
 * - `unparseable`: the model answered, but no yes/no/continue could be read from it;
 * - `empty_answer`: the response carried no assistant text;
 * - `bad_response`: the body was not a Chat Completions response;
 * - `http_status`: the server answered with an error status (after retries, for retryable ones);
 * - `network`: no response at all (refused, reset, DNS), after retries;
 * - `timeout`: one attempt ran past the request timeout.
 */
export type JudgeErrorCode = 'unparseable' | 'empty_answer' | 'bad_response' | 'http_status' | 'network' | 'timeout';

/**
 * The judge could not decide. Returned as a value by `Judge.evaluate` so the
 * session can record it as a failure of the run rather than crash. Messages and
 * `raw` are redacted: no key or bearer header ever reaches them.
 */
export class JudgeError extends EarshotError {
  readonly code: JudgeErrorCode;
  readonly service: string;
  readonly model: string;
  /** HTTP status of the last attempt, when there was one. */
  readonly status?: number;
  /** Requests made, retries included. */
  readonly attempts: number;
  /** The model's answer (or the error body), redacted and truncated. */
  readonly raw?: string;

  constructor(fields: {
    code: JudgeErrorCode;
    message: string;
    service: string;
    model: string;
    attempts: number;
    status?: number;
    raw?: string;
  }) {
    super(`judge ${fields.service}/${fields.model}: ${fields.message}`);
    this.name = 'JudgeError';
    this.code = fields.code;
    this.service = fields.service;
    this.model = fields.model;
    this.attempts = fields.attempts;
    if (fields.status !== undefined) this.status = fields.status;
    if (fields.raw !== undefined) this.raw = fields.raw;
  }
}

/**
 * The `judge.eval` block cannot be used (unknown service, bad endpoint, missing
 * key). Raised when the judge is built, before any turn runs; exit code 2.
 */
export class JudgeConfigError extends UsageError {
  /** Dotted path of the offending field, e.g. `judge.eval.endpoint`. */
  readonly field: string;
  constructor(field: string, message: string) {
    super(`${field}: ${message}`);
    this.name = 'JudgeConfigError';
    this.field = field;
  }
}

export function isJudgeError(value: unknown): value is JudgeError {
  return value instanceof JudgeError;
}
