import { UsageError } from '../core/errors.js';
import type { TerminalStream } from '../report/index.js';
import { formatDiagnostic, unrunnableFactories, type Diagnostic, type Runnable } from '../scenario/index.js';

/**
 * What every runner checks and says before its first session starts: the
 * files' warnings, printed once each as `validate` prints them (so a
 * misspelled key is seen, not silently dropped), and the Python `factory:`
 * hooks that nothing on the command line replaces, which refuse the run.
 */

/** What the run's flags replace: `--judge` the judge (`judge.eval`), `--tts` the user's voice, `--stt` the transcriber. */
export function replacedBlocks(options: { judge?: string; audio?: { tts?: string; stt?: string } }): string[] {
  const blocks: string[] = [];
  if (options.judge !== undefined) blocks.push('judge.eval');
  if (options.audio?.tts !== undefined) blocks.push('user.speech');
  if (options.audio?.stt !== undefined) blocks.push('judge.transcription');
  return blocks;
}

/** Each distinct warning as one located line, in the order given. */
export function warningLines(diagnostics: readonly Diagnostic[], cwd?: string): string[] {
  return unique(diagnostics.filter((d) => d.severity === 'warning').map((d) => formatDiagnostic(d, { cwd })));
}

export function printWarnings(diagnostics: readonly Diagnostic[], stderr: TerminalStream, cwd?: string): void {
  for (const line of warningLines(diagnostics, cwd)) stderr.write(`${line}\n`);
}

/**
 * One located line per Python `factory:` the scenarios would need: a factory
 * in a shared include is one line, naming the first file that includes it and
 * how many more do.
 */
export function unrunnableLines(scenarios: readonly Runnable[], replaced: readonly string[], cwd?: string): string[] {
  const sites = new Map<string, { d: Diagnostic; users: string[] }>();
  for (const d of scenarios.flatMap((s) => unrunnableFactories(s, replaced))) {
    const { included_from: via, ...site } = d;
    const key = formatDiagnostic(site, { cwd });
    const entry = sites.get(key) ?? { d: site, users: [] as string[] };
    if (via !== undefined && !entry.users.includes(via)) entry.users.push(via);
    sites.set(key, entry);
  }
  return [...sites.values()].map(({ d, users }) => {
    if (users.length === 0) return formatDiagnostic(d, { cwd });
    const more = users.length > 1 ? ` and ${users.length - 1} more` : '';
    return formatDiagnostic({ ...d, included_from: `${users[0]}` }, { cwd }).replace(/\)$/, `${more})`);
  });
}

/** Refuses the run, before anything starts, when a scenario needs a Python factory no flag replaces. */
export function refuseUnrunnable(scenarios: readonly Runnable[], replaced: readonly string[], cwd?: string): void {
  const lines = unrunnableLines(scenarios, replaced, cwd);
  if (lines.length) throw new UsageError(`cannot run in Node:\n${lines.join('\n')}`);
}

/**
 * `-s`, as Pipecat's suite filter: the scenario's full `<file>/<scenario>`
 * name, or either half of it (a file's name selects every scenario it
 * holds). earshot also takes the manifest's own name for the file
 * (`scripted/weather` or its stem) and a glob over the full name (`weather/*`).
 */
export function scenarioMatches(filter: string, id: string, ref?: { ref: string; name: string }): boolean {
  if (filter === id || id.split('/').includes(filter)) return true;
  if (ref && (filter === ref.ref || filter === ref.name)) return true;
  return /[*?]/.test(filter) && globRegExp(filter).test(id);
}

function globRegExp(glob: string): RegExp {
  const body = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}
