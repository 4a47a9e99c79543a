import { UsageError } from '../core/errors.js';

/** Nothing to run after the manifest's filters (`-p`, `-s`, `-k`, `--category`, `--severity`) were applied. */
export class NoRunsError extends UsageError {
  readonly manifest: string;
  readonly filters: { pattern?: string; scenario?: string; kind?: string; selection?: string };
  /** `selection`: `--category`/`--severity` as the flags were written (see select.ts). */
  constructor(
    manifest: string,
    filters: { pattern?: string; scenario?: string; kind?: string; selection?: string },
    available: { bots: string[]; scenarios: string[] },
  ) {
    const parts: string[] = [];
    if (filters.pattern !== undefined) parts.push(`-p ${JSON.stringify(filters.pattern)}`);
    if (filters.scenario !== undefined) parts.push(`-s ${JSON.stringify(filters.scenario)}`);
    if (filters.kind !== undefined) parts.push(`-k ${filters.kind}`);
    if (filters.selection) parts.push(filters.selection);
    const given = parts.length ? ` match ${parts.join(' and ')}` : ' are listed';
    const known =
      `bots: ${available.bots.join(', ') || '(none)'}; ` + `scenarios: ${available.scenarios.join(', ') || '(none)'}`;
    super(`${manifest}: no runs${given} (${known})`);
    this.name = 'NoRunsError';
    this.manifest = manifest;
    this.filters = filters;
  }
}
