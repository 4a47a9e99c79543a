import type { SimulationEndReason, SimulationEntry, ScenarioResult } from '../results/index.js';
import type { Simulation } from '../scenario/index.js';
import type { NemoVerdictSettings, SummaryPull } from './nemo/types.js';
import type { RunJudge } from './transcript.js';

/** What the caller's driver played: the conversation and how it ended. */
export interface PlayedCall {
  transcript: SimulationEntry[];
  endedBy: SimulationEndReason;
  endDetail: string;
  personaTurns: number;
  durationS: number;
  endCall?: { success: boolean; reason: string };
  /** The bot closed the connection: its close code. */
  closeCode?: number;
  simulator: string;
  /** A NeMo scenario: the bot's `get_scenario_summary` pulled before teardown, or why there is none. */
  summary?: SummaryPull;
}

export interface ConcludeInput {
  simulation: Simulation;
  played: PlayedCall;
  /** The session's result (turn metrics, events, the runtime's own failures). */
  result: ScenarioResult;
  /** Null when none could be built (the reason is the run's error). */
  judge: RunJudge | null;
  noJudgeReason?: string;
  log: (line: string) => void;
  /** A NeMo scenario: `--min-agent-turns`, `--strict-match`, `--judge-threshold` (defaults 3, off, 0.9). */
  nemoSettings?: NemoVerdictSettings;
}
