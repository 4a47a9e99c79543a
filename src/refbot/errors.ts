import { EarshotError } from '../core/errors.js';

/** The reference bot cannot start or run as configured (bad option, unwritable truth log). */
export class RefbotError extends EarshotError {
  constructor(message: string, options: { cause?: unknown; exitCode?: number } = {}) {
    super(`refbot: ${message}`, options);
    this.name = 'RefbotError';
  }
}

/** An option of `startRefbot` / `earshot refbot` out of range; names the option. */
export class RefbotOptionError extends RefbotError {
  readonly option: string;
  constructor(option: string, detail: string) {
    super(`${option}: ${detail}`, { exitCode: 2 });
    this.name = 'RefbotOptionError';
    this.option = option;
  }
}
