import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';
import type { Failure, RunSummary, ScenarioResult, TurnResult } from '../results/index.js';

/** What a run announces before its first scenario. */
export interface RunStart {
  /** Scenario runs planned (bots × scenarios × repeats), when known; drives progress bars. */
  total?: number;
  /** Wall-clock start, ISO 8601. */
  started_at: string;
  /** The run's output dir, where results.jsonl and the reports go. */
  out_dir?: string;
  /** What is being run, for headings: a manifest path, or `earshot run`. */
  title?: string;
  /** `I/N` when this run is one shard. */
  shard?: string;
  concurrency?: number;
}

/** A scenario run as it starts; identifies it for the turn hooks that follow. */
export interface ScenarioStart {
  name: string;
  file: string;
  bot?: string;
  repeat_index?: number;
  turn_count: number;
  /** The scenario's `category:` / `severity:`, shown as a `[category · severity]` tag. */
  category?: string;
  severity?: string;
}

/**
 * A reporter: every hook optional, called in run order. Hooks of concurrent
 * scenarios interleave; `ScenarioStart` (by identity: file, name, bot, repeat) says
 * which scenario a turn belongs to.
 */
export interface Reporter {
  readonly name: string;
  /** Whether it writes to the terminal; when no chosen reporter does, `list` is added. */
  readonly printsToTerminal: boolean;
  onBegin?(run: RunStart): void | Promise<void>;
  onScenarioStart?(info: ScenarioStart): void | Promise<void>;
  /** `failures` are the turn's failures (kind and reason), in the order they were decided. */
  onTurnEnd?(scenario: ScenarioStart, turn: TurnResult, failures: readonly Failure[]): void | Promise<void>;
  onScenarioEnd?(result: ScenarioResult): void | Promise<void>;
  onEnd?(summary: RunSummary): void | Promise<void>;
}

/** Where terminal reporters write; `process.stdout` is one. */
export interface TerminalStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

export interface ReporterOptions {
  /** The run's output dir; file reporters write their default files here. */
  outDir?: string;
  /** A path given in the reporter list as `name=PATH`, overriding the default file. */
  file?: string;
  stdout: TerminalStream;
  stderr: TerminalStream;
  env: NodeJS.ProcessEnv;
  clock: Clock;
  /** Masks secrets in everything a reporter writes. */
  redactor: Redactor;
  /** Start results.jsonl empty instead of appending (a merge rewriting its output dir). */
  truncateResults?: boolean;
}

export type ReporterFactory = (options: ReporterOptions) => Reporter;
