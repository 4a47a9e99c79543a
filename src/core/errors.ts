/**
 * Base class for errors earshot raises on purpose. Each carries structured
 * fields so the CLI can print one clear line (never a stack trace) and JSON
 * output can keep the fields.
 */
export class EarshotError extends Error {
  /** Process exit code the CLI uses when this error reaches it. */
  readonly exitCode: number;
  constructor(message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'EarshotError';
    this.exitCode = options.exitCode ?? 1;
  }
}

/** Bad command-line usage or configuration: exit code 2. */
export class UsageError extends EarshotError {
  constructor(message: string) {
    super(message, { exitCode: 2 });
    this.name = 'UsageError';
  }
}

/** A caller passed an option outside its documented range; `scope` says whose option (`audio`, `timer`). */
export class OptionError extends EarshotError {
  readonly option: string;
  readonly value: unknown;
  constructor(scope: string, option: string, value: unknown, expected: string) {
    super(`${scope} option ${option}: expected ${expected}, got ${JSON.stringify(value) ?? String(value)}`);
    this.name = 'OptionError';
    this.option = option;
    this.value = value;
  }
}

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
