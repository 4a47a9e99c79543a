import { EarshotError } from '../core/errors.js';

/**
 * Errors of the speech layer. Each names what to do next in its one-line
 * message (the CLI prints only that line), and carries the fields a JSON
 * reporter or a test wants to look at.
 */

/** A provider name that is in no table. */
export class UnknownProviderError extends EarshotError {
  constructor(
    readonly kind: 'tts' | 'stt',
    readonly provider: string,
    readonly known: readonly string[],
  ) {
    super(`unknown ${kind.toUpperCase()} provider '${provider}' (known: ${known.join(', ')})`, { exitCode: 2 });
    this.name = 'UnknownProviderError';
  }
}

/** A model that is not in the store: says which pull command fetches it. */
export class ModelMissingError extends EarshotError {
  constructor(
    readonly model: string,
    readonly dir: string,
    readonly missingFiles: readonly string[],
    readonly pullCommand: string = `earshot models pull ${model}`,
  ) {
    const first = missingFiles[0] ?? '';
    const more = missingFiles.length > 1 ? ` and ${missingFiles.length - 1} more` : '';
    super(`model '${model}' is not in ${dir} (missing ${first}${more}); run: ${pullCommand}`);
    this.name = 'ModelMissingError';
  }
}

/** A system program or data the provider needs is not installed. */
export class DependencyMissingError extends EarshotError {
  constructor(
    readonly what: string,
    readonly hint: string,
  ) {
    super(`${what} is missing; ${hint}`);
    this.name = 'DependencyMissingError';
  }
}

/** A provider failed while working (bad exit code, unreadable output, runtime error). */
export class SpeechProviderError extends EarshotError {
  constructor(
    readonly provider: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(`${provider}: ${message}`, options);
    this.name = 'SpeechProviderError';
  }
}

/** Bad options given to a provider (unknown voice, bad sample rate, unknown model name). */
export class SpeechConfigError extends EarshotError {
  constructor(
    readonly provider: string,
    readonly field: string,
    message: string,
  ) {
    super(`${provider}: ${field}: ${message}`, { exitCode: 2 });
    this.name = 'SpeechConfigError';
  }
}

/** The model hub refused or broke a download (HTTP status, size or checksum mismatch). */
export class ModelDownloadError extends EarshotError {
  constructor(
    readonly model: string,
    readonly file: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(`pull ${model}: ${file}: ${message}`, options);
    this.name = 'ModelDownloadError';
  }
}

/**
 * Every pooled recognizer is busy and the queue in front of them is full: the
 * machine cannot transcribe as fast as the sessions ask. Refused at once so
 * the turn says so, instead of waiting without limit.
 */
export class SpeechQueueFullError extends EarshotError {
  readonly kind = 'queue_full' as const;
  constructor(
    readonly provider: string,
    readonly workers: number,
    readonly maxQueue: number,
  ) {
    super(
      `${provider}: all ${workers} recognizers are busy and ${maxQueue} transcriptions already wait; ` +
        'run fewer sessions at once (--concurrency) or raise the pool (stt option pool_queue)',
    );
    this.name = 'SpeechQueueFullError';
  }
}
