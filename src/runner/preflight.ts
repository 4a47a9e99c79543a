import { UsageError } from '../core/errors.js';
import type { TerminalStream } from '../report/index.js';
import type { ScenarioResult } from '../results/index.js';
import {
  displayPath,
  formatDiagnostic,
  unrunnableFactories,
  type Diagnostic,
  type Runnable,
} from '../scenario/index.js';
import { sampleRateWarning, type SessionSettings } from '../session/index.js';

/**
 * What every runner checks and says before its first session starts, and
 * after a scenario: the files' warnings, printed once each as `validate`
 * prints them (so a misspelled key is seen, not silently dropped); warnings
 * that a run against a real bot may not measure what it means to; the Python
 * `factory:` hooks that nothing on the command line replaces, which refuse
 * the run; and the hint a refused connection needs.
 */

/**
 * What the run's flags replace: `--judge` the judge (`judge.eval`), `--simulator` the caller's LLM, `--tts` the
 * user's voice, `--stt` the transcriber.
 */
export function replacedBlocks(
  settings: Pick<SessionSettings, 'judge' | 'simulatorOverride'>,
  audio: { tts?: string; stt?: string } = {},
): string[] {
  const blocks: string[] = [];
  if (settings.judge.override !== null) blocks.push('judge.eval');
  if (settings.simulatorOverride !== null) blocks.push('simulator');
  if (audio.tts !== undefined) blocks.push('user.speech');
  if (audio.stt !== undefined) blocks.push('judge.transcription');
  return blocks;
}

/** Each distinct warning as one located line, in the order given. */
export function warningLines(diagnostics: readonly Diagnostic[], cwd?: string): string[] {
  return unique(diagnostics.filter((d) => d.severity === 'warning').map((d) => formatDiagnostic(d, { cwd })));
}

/** The files' warnings, then the run's own (`runWarnings`), one line each. */
export function printWarnings(
  diagnostics: readonly Diagnostic[],
  stderr: TerminalStream,
  cwd?: string,
  runLines: readonly string[] = [],
): void {
  for (const line of unique([...warningLines(diagnostics, cwd), ...runLines])) stderr.write(`${line}\n`);
}

/**
 * Warnings about running these scenarios against a real bot, one line each (`file:line:col: warning: …` where a
 * field is to blame). `oneBot`: every scenario meets the same bot process (`earshot run`); `cwd` shortens paths as
 * the files' warnings print them.
 */
export function runWarnings(
  scenarios: readonly Runnable[],
  settings: Pick<SessionSettings, 'codec' | 'botInputRate'>,
  { oneBot, cwd }: { oneBot: boolean; cwd?: string },
): string[] {
  const out: string[] = [];
  for (const s of scenarios) {
    const w = sampleRateWarning(s, settings.botInputRate, cwd);
    if (w) out.push(w);
  }
  if (oneBot && settings.codec === 'pipecat-eval') {
    const text = scenarios.findIndex((s) => s.judge.modality === 'text');
    const audio = text < 0 ? undefined : scenarios.slice(text + 1).find((s) => s.judge.modality === 'audio');
    if (audio) {
      const path = (file: string): string => displayPath(file, cwd);
      out.push(
        `${path(audio.file)}: warning: runs after the text scenario ${path(scenarios[text].file)} against one ` +
          'Pipecat eval bot, which keeps skip_tts on after a text session ' +
          '(a Pipecat bug): it may stay silent here. Give each scenario a bot of its own (`earshot suite`), or ' +
          'run the audio scenarios in a run of their own',
      );
    }
  }
  return unique(out);
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
 * A connect refused after an earlier scenario connected: the bot most likely
 * ended when that client left. The failure says so and how to get around it.
 */
export function explainRefusedReconnect(result: ScenarioResult, earlierConnected: boolean, stopBot: boolean): void {
  if (!earlierConnected) return;
  const failure = result.failures.find((f) => f.kind === 'connect_failed');
  if (!failure) return;
  failure.reason += stopBot
    ? "; the bot accepted the previous scenario's connection, and --stop-bot asked it to shut down when that " +
      'scenario ended. Without --stop-bot it stays up, or use `earshot suite` (a bot of its own for each ' +
      'scenario)'
    : "; the bot accepted the previous scenario's connection and refuses this one: it probably ended when that " +
      "client disconnected (Pipecat's examples cancel the pipeline in on_client_disconnected, which its " +
      'WebSocket transport fires on every disconnect). Use `earshot suite` (a bot of its own for each scenario), ' +
      "or keep the pipeline alive in the bot's disconnect handler";
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
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, '\\$&')
    .replace(/\*/g, '.*')
    .replace(/\?/g, '.');
  return new RegExp(`^${body}$`, 's');
}

function unique(lines: string[]): string[] {
  return [...new Set(lines)];
}
