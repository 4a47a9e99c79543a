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

export function errorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
