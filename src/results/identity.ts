import type { ScenarioResult } from './types.js';

/**
 * The identity of a result line: which scenario (file and name: a file may
 * hold several), against which bot (a suite entry's label), which repeat. Two
 * lines with the same identity are the same run (a retry supersedes an earlier
 * attempt); shards of a suite never share one. Identity must not depend on the
 * machine, so paths are compared with forward slashes.
 */
export interface ResultIdentity {
  file: string;
  name: string;
  bot: string;
  repeat_index: number;
}

type Identified = Pick<ScenarioResult, 'file' | 'name' | 'run'>;

export function resultIdentity(result: Identified): ResultIdentity {
  return {
    file: normalizePath(result.file),
    name: result.name,
    bot: result.run?.bot ?? '',
    repeat_index: result.run?.repeat_index ?? 0,
  };
}

/** An unambiguous string form of the identity, for map keys. */
export function resultKey(result: Identified): string {
  const id = resultIdentity(result);
  return JSON.stringify([id.file, id.name, id.bot, id.repeat_index]);
}

/** The identity of a scenario across its repeats, (file, name, bot), for map keys. */
export function scenarioKey(result: Identified): string {
  const id = resultIdentity(result);
  return JSON.stringify([id.file, id.name, id.bot]);
}

/** How people read an identity: `file name [bot] #repeat`. */
export function resultLabel(result: Identified): string {
  const id = resultIdentity(result);
  return `${id.file} ${id.name}${id.bot ? ` [${id.bot}]` : ''} #${id.repeat_index}`;
}

/**
 * Deterministic order: file, name, bot, repeat, attempt. Compares UTF-16 code
 * units, never the locale, so every machine sorts the same way.
 */
export function compareResults(a: ScenarioResult, b: ScenarioResult): number {
  const x = resultIdentity(a);
  const y = resultIdentity(b);
  return (
    compareStrings(x.file, y.file) ||
    compareStrings(x.name, y.name) ||
    compareStrings(x.bot, y.bot) ||
    x.repeat_index - y.repeat_index ||
    (a.run?.attempt ?? 1) - (b.run?.attempt ?? 1)
  );
}

export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function normalizePath(file: string): string {
  return file.replace(/\\/g, '/');
}
