import { EarshotError } from '../core/errors.js';

/** A results file that cannot be read back: names the file and, where known, the line. */
export class ResultsFileError extends EarshotError {
  readonly path: string;
  readonly line: number | null;
  constructor(path: string, line: number | null, problem: string) {
    super(`${path}${line === null ? '' : `:${line}`}: ${problem}`);
    this.name = 'ResultsFileError';
    this.path = path;
    this.line = line;
  }
}

/** Two inputs of a merge hold the same run (same file, bot, repeat and attempt): overlapping shards. */
export class MergeConflictError extends EarshotError {
  readonly key: string;
  readonly sources: string[];
  constructor(label: string, key: string, sources: string[]) {
    super(
      `the same run ${label} appears in ${sources.join(' and ')}; ` +
        'shards must not overlap (merge each shard output once)',
    );
    this.name = 'MergeConflictError';
    this.key = key;
    this.sources = sources;
  }
}
