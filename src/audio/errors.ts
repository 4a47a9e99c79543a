import { EarshotError, OptionError } from '../core/errors.js';

/**
 * Audio the harness was handed is unusable: a file that is not a WAV, a sample
 * rate out of range, an odd byte count for 16-bit PCM. `source` names where the
 * audio came from (a path, `raw-audio message`, …) so the one-line CLI message
 * points at it.
 */
export class AudioFormatError extends EarshotError {
  readonly source: string | undefined;
  readonly detail: string;
  constructor(detail: string, source?: string) {
    super(source ? `${source}: ${detail}` : detail);
    this.name = 'AudioFormatError';
    this.source = source;
    this.detail = detail;
  }
}

/** A caller passed an option outside its documented range (frame size, threshold, rate). */
export class AudioOptionError extends OptionError {
  constructor(option: string, value: unknown, expected: string) {
    super('audio', option, value, expected);
    this.name = 'AudioOptionError';
  }
}

/** The Silero VAD model could not be found or loaded. */
export class VadModelError extends EarshotError {
  readonly modelPath: string;
  constructor(modelPath: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`Silero VAD model ${modelPath} could not be loaded: ${why}`, { cause });
    this.name = 'VadModelError';
    this.modelPath = modelPath;
  }
}

/** The call recording could not be written (disk full, directory missing). */
export class RecorderError extends EarshotError {
  readonly path: string;
  constructor(path: string, cause: unknown) {
    const why = cause instanceof Error ? cause.message : String(cause);
    super(`recording ${path} could not be written: ${why}`, { cause });
    this.name = 'RecorderError';
    this.path = path;
  }
}

/** Checks a sample rate is a positive integer in the range every component here supports. */
export function checkSampleRate(sampleRate: number, option = 'sampleRate'): void {
  if (!Number.isInteger(sampleRate) || sampleRate < 1000 || sampleRate > 192_000) {
    throw new AudioOptionError(option, sampleRate, 'an integer between 1000 and 192000 Hz');
  }
}
