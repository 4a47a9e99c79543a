import type { Failure, ScenarioResult, TurnResult } from '../results/index.js';
import type { ScenarioStart, TerminalStream } from './reporter.js';

/** `412 ms`, `1.2 s`, `2m 03s`. */
export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms)) return '–';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`;
}

/** Name, bot and (1-based) repeat: how people tell scenario runs apart. */
export function scenarioLabel(s: Pick<ScenarioStart, 'name' | 'bot' | 'repeat_index'>): string {
  let label = s.name;
  if (s.bot) label += ` [${s.bot}]`;
  if (s.repeat_index !== undefined) label += ` #${s.repeat_index + 1}`;
  return label;
}

export function startOf(result: ScenarioResult): ScenarioStart {
  const start: ScenarioStart = { name: result.name, file: result.file, turn_count: result.turns.length };
  if (result.run?.bot !== undefined) start.bot = result.run.bot;
  if (result.run?.repeat_index !== undefined) start.repeat_index = result.run.repeat_index;
  if (result.category !== undefined) start.category = result.category;
  if (result.severity !== undefined) start.severity = result.severity;
  return start;
}

/** What the harness sent in a turn, for one-line display. */
export function turnInput(turn: TurnResult): string {
  if (turn.input.user !== undefined) return JSON.stringify(turn.input.user);
  if (turn.input.dtmf !== undefined) return `dtmf ${turn.input.dtmf}`;
  if (turn.input.audio !== undefined) return `audio ${turn.input.audio}`;
  return '(listen)';
}

export function failureLine(f: Failure): string {
  const where =
    f.turn_index === null
      ? ''
      : ` turn ${f.turn_index + 1}${f.expectation_index === null ? '' : `.${f.expectation_index + 1}`}`;
  return `${f.kind}${where}${f.event ? ` ${f.event}` : ''}: ${f.reason}`;
}

// C0/C1 controls and ANSI escape sequences: a bot's text must not drive the terminal.
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|[@-_])/g;
// Bidi overrides too: they can make a line read differently from what it holds.
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Untrusted text made safe for one terminal line: escape sequences and control
 * characters removed, newlines and tabs shown as spaces, long text cut.
 */
export function terminalSafe(text: string, maxLength = 300): string {
  const clean = text
    .replace(ESCAPE_SEQUENCE, '')
    .replace(/[\r\n\t]+/g, ' ')
    .replace(CONTROL, '');
  return clean.length > maxLength ? `${clean.slice(0, maxLength - 1)}…` : clean;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Visible width of a line that may hold colour codes (one column per code point). */
export function visibleLength(line: string): number {
  return [...line.replace(ANSI, '')].length;
}

/** Cuts a coloured line to `columns` visible characters, keeping the colour codes. */
export function fitLine(line: string, columns: number): string {
  if (visibleLength(line) <= columns) return line;
  let out = '';
  let seen = 0;
  for (const part of line.split(/(\u001b\[[0-9;]*m)/)) {
    if (part.startsWith('\u001b[')) {
      out += part;
      continue;
    }
    for (const ch of part) {
      if (seen >= columns - 1) return `${out}…\u001b[0m`;
      out += ch;
      seen += 1;
    }
  }
  return out;
}

export interface Paint {
  green(s: string): string;
  red(s: string): string;
  yellow(s: string): string;
  dim(s: string): string;
  bold(s: string): string;
}

/** Colour on a TTY unless NO_COLOR; FORCE_COLOR turns it on anywhere. */
export function colorEnabled(stream: TerminalStream, env: NodeJS.ProcessEnv): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '0') return true;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

export function paint(enabled: boolean): Paint {
  const wrap =
    (open: number, close: number) =>
    (s: string): string =>
      enabled ? `\u001b[${open}m${s}\u001b[${close}m` : s;
  return { green: wrap(32, 39), red: wrap(31, 39), yellow: wrap(33, 39), dim: wrap(2, 22), bold: wrap(1, 22) };
}

export const SYMBOL = {
  passed: '✓',
  failed: '✗',
  inconclusive: '?',
  error: '!',
  skipped: '-',
  not_run: '·',
} as const;
