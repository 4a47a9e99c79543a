import { EarshotError } from '../core/errors.js';

/**
 * The session fed the timeline something impossible (a turn index that goes
 * backwards, a time that is not a finite number, speech that ends before it
 * starts). That is a bug in earshot, not in the bot, so it is an error rather
 * than a failure value.
 */
export class TimelineError extends EarshotError {
  /** The builder method that was misused, e.g. `beginTurn`. */
  readonly method: string;
  constructor(method: string, problem: string) {
    super(`timeline.${method}: ${problem}`);
    this.name = 'TimelineError';
    this.method = method;
  }
}

/** A statistics helper was called with input it cannot mean anything for (a percentile of 120, unsorted edges). */
export class StatsInputError extends EarshotError {
  /** The function that rejected its input, e.g. `percentile`. */
  readonly fn: string;
  constructor(fn: string, problem: string) {
    super(`${fn}: ${problem}`);
    this.name = 'StatsInputError';
    this.fn = fn;
  }
}
