import type { Diagnostic, SourceLocation } from './diagnostics.js';
import type { EventName, MarkerKind } from './events.js';
import type { TextCheckFields, WerAssertions } from './check-types.js';
import type { DtmfMode, DtmfTones, ScenarioConditions } from './condition-types.js';
import type { JudgeConfig, LlmConfig, UserConfig } from './service-types.js';
import type { GaiaSpec } from './gaia-types.js';
import type { NemoSpec } from './nemo/types.js';
import type { ScorecardDimension } from './scorecard-types.js';

export type {
  JudgeConfig,
  JudgeEvalConfig,
  LlmConfig,
  Modality,
  SpeechConfig,
  TranscriptionConfig,
  UserConfig,
} from './service-types.js';

/**
 * The normalized model: snake_case like the YAML (it is what `validate --json`
 * prints), includes resolved, defaults filled in, paths absolute. Optional keys
 * are omitted when the file does not set them and they have no default.
 */

/** Where each field was written: field path (`turns[2].expect[0].within_ms`) → location. */
export type SourceMap = Record<string, SourceLocation>;

interface LoadedBase {
  /** Absolute path of the loaded file. */
  file: string;
  /** Realpath of the scenario root that `!include`, `image:` and `audio:` were confined to. */
  root: string;
  /** Realpaths of every file pulled in with `!include`. */
  includes: string[];
  /** Non-fatal findings (unknown keys, `eval:` on a non-text event...). */
  warnings: Diagnostic[];
  /** Source location of every field, for reports that point at a failing expectation. */
  locations: SourceMap;
}

/**
 * A `factory:` hook: user code that builds a TTS, STT, LLM or judge classifier.
 * A `node` hook is an ES module, imported only with `--allow-code`. A `python`
 * hook is Pipecat's dotted path to a Python callable (`evals.judges.typesafe_classifier`),
 * which cannot run in Node: the runner refuses it in one located line (see
 * `unrunnableFactories`) unless a flag (`--judge`, `--tts`, `--stt`) replaces the block.
 */
export interface CodeHook {
  /**
   * The block that names it: `user.speech`, `judge.transcription`, `judge.eval`, `judge.eval.explainer` or `simulator`.
   */
  block: string;
  /** The value as written. */
  factory: string;
  /** `node`: an ES module earshot can import. `python`: a dotted Python path, data only. */
  runtime: 'node' | 'python';
  /**
   * Module to import: an absolute path when written as a relative or absolute path, else a package specifier (or the
   * Python module).
   */
  module: string;
  /** Export to call (`default` when none is named). */
  export: string;
  /** Where the `factory:` value was written. */
  location: SourceLocation;
}

export interface ExpectedCall {
  /** Function name; omitted to match any call. */
  name?: string;
  /** Subset check on the call's arguments (for `function_call_stopped`: `tool_call_id`, `cancelled`). */
  args?: Record<string, unknown>;
}

export interface Expectation extends TextCheckFields {
  /** The event matched at run time (`response` resolved to `llm_response` under a text judge). */
  event: EventName;
  /** The event name as written in the file. */
  declared_event: EventName;
  /** Budget from the turn's send, ms; `LoadOptions.defaultWithinMs` when the file sets none. */
  within_ms: number;
  text_contains?: string;
  /** The event text must not hold this; with `text_contains`, checked on the reply accumulated up to the match. */
  text_excludes?: string;
  eval?: string;
  absent: boolean;
  /** For `llm_marker`: the marker's meaning (`incomplete` accepts `short` or `long`). */
  marker?: MarkerKind;
  /** For `llm_marker`: whether the first marker comes before any text of the raw response. */
  marker_first?: boolean;
  /** For `llm_marker`: how many markers the raw response holds. */
  markers?: number;
  /** For `llm_marker`: whether text follows the first marker. */
  text_after?: boolean;
  /** For `function_call` / `function_call_stopped`: the calls to match (the `name:`/`args:` shorthand folded in). */
  calls?: ExpectedCall[];
}

export interface SendAfter {
  /** Event to anchor on; omitted for a pure delay after the previous turn's send. */
  event?: EventName;
  delay_ms: number;
}

export interface LatencyBound {
  min?: number;
  max?: number;
}

/** earshot's turn-level latency assertions, ms; each fails the turn with `latency_exceeded`. */
export interface LatencyAssertions {
  voice_to_voice_ms?: LatencyBound;
  llm_ttfb_ms?: LatencyBound;
  first_token_ms?: LatencyBound;
  speech_padding_ms?: LatencyBound;
  bot_speech_ms?: LatencyBound;
  interruption_ms?: LatencyBound;
}
export const LATENCY_METRICS = [
  'voice_to_voice_ms',
  'llm_ttfb_ms',
  'first_token_ms',
  'speech_padding_ms',
  'bot_speech_ms',
  'interruption_ms',
] as const;
export type LatencyMetric = (typeof LATENCY_METRICS)[number];

export interface Turn {
  user?: string;
  /** Keypad keys, `0-9 * #`, digits kept as written (`dtmf: 012` is "012"). */
  dtmf?: string;
  /** Absolute path of a recording played instead of synthesizing `user`. */
  audio?: string;
  /** Absolute path of an image registered for the turn. */
  image?: string;
  send_after?: SendAfter;
  expect: Expectation[];
  latency?: LatencyAssertions;
  /**
   * earshot extension: what the bot should answer this turn, the reference of `bot_wer` (or on one of its replies'
   * expectations).
   */
  expected_text?: string;
  /** earshot extension: bounds on the turn's `user_wer` / `bot_wer`. */
  wer?: WerAssertions;
  /** earshot extension: this turn's channel conditions, replacing the scenario's per condition. */
  conditions?: ScenarioConditions;
  /** earshot extension: how this turn's dtmf: reaches the bot (default the scenario's). */
  dtmf_mode?: DtmfMode;
  dtmf_tones?: DtmfTones;
  /** earshot extension: a mid-utterance pause of this long, after the words `pause.after` of `user:`. */
  pause?: { ms: number; after: string };
  /** earshot extension: whether the bot may take the turn during the pause (the assertion; absent: measured only). */
  takeover?: boolean;
  /** earshot extension: a murmur played `after_ms` after the bot's audio starts in this turn. */
  backchannel?: { text: string; after_ms: number };
  /** earshot extension: whether the bot may stop for the backchannel (the assertion; absent: measured only). */
  yielded?: boolean;
}

interface RunnableBase extends LoadedBase {
  /**
   * The scenario's id, as Pipecat names it: `<file name>/<scenario name>` for
   * an entry of a `scenarios:` list, the file's `name:` for the deprecated
   * single-scenario shape. `<file name>` is the file's `name:` key.
   */
  name: string;
  /** The file's `name:`. */
  file_name: string;
  /** Position in the file's `scenarios:` list (0 for the deprecated shape). */
  index: number;
  user: UserConfig;
  judge: JudgeConfig;
  trigger_disconnect: boolean;
  /** earshot extension (GAIA's): a free-text label for grouping and `--category` filtering. */
  category?: string;
  /** earshot extension (GAIA's): how much a failure matters, for `--severity` filtering. */
  severity?: ScenarioSeverity;
  /** True when a block names a `factory:`; the runtime refuses such a file without `--allow-code`. */
  requires_code: boolean;
  code_hooks: CodeHook[];
  /** earshot extension: the channel conditions of every turn (a turn's replace them per condition). */
  conditions?: ScenarioConditions;
  /** earshot extension: how dtmf: turns reach the bot; rtvi when absent. */
  dtmf_mode?: DtmfMode;
  dtmf_tones?: DtmfTones;
}

/** A scripted scenario (`turns:`). */
export interface Scenario extends RunnableBase {
  kind: 'script';
  turns: Turn[];
  /** LLM messages to seed the bot's context with; empty to leave it alone. */
  context: Record<string, unknown>[];
  stop_on_failure: boolean;
  /** Set when the file is AMD GAIA's format: the GAIA driver plays and scores the turns (gaia-types.ts). */
  gaia?: GaiaSpec;
}

export interface SimulationMetric {
  name: string;
  /** Judged metric: what every bot reply should be. */
  criterion?: string;
  /** Weight in the run's quality score (Pipecat's first simulation format; deprecated, 1 unless written). */
  weight: number;
  /** Share of replies that must pass, 0..1; omitted: reported, never failing. */
  min_score?: number;
  /** Measured metric. */
  measure?: 'turns' | 'duration' | 'words' | 'latency' | 'function_calls';
  min_value?: number;
  max_value?: number;
  /** For `measure: function_calls`: the calls the bot must make (empty: none). */
  calls?: ExpectedCall[];
}

export const SCENARIO_SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;
export type ScenarioSeverity = (typeof SCENARIO_SEVERITIES)[number];

export { SCORECARD_DIMENSIONS, type ScorecardDimension } from './scorecard-types.js';

/** earshot extension (GAIA's scorecard): the conversation scored 0..10 on weighted dimensions. */
export interface ScorecardSpec {
  /** Weight per dimension (GAIA's defaults unless written), normalized to sum 1 when scoring; 0 leaves one out. */
  weights: Record<ScorecardDimension, number>;
  /**
   * The answer the bot should give. A number in it (`$14.2 million`, `23%`) caps
   * correctness by the deviation of the closest number the bot said, decided
   * here, not by the judge. `null`: the bot must say it does not know.
   * Absent: correctness is the judge's alone.
   */
  expected_answer?: string | null;
  /** Weighted total (0..10) needed to pass. */
  pass_threshold: number;
}

/** earshot extension (NeMo's success signals): every signal listed must hold for the run to pass. */
export interface SuccessSignals {
  /** The bot ended the call on purpose: it closed the connection normally, or called one of `functions`. */
  clean_exit?: { functions: string[] };
  /** The bot's calls (cancelled ones left out) hold these in this order; others may come between unless `exact`. */
  action_match?: { calls: ExpectedCall[]; exact: boolean };
  /** Claims about the conversation, each judged on its own. */
  nl_assertions?: string[];
}

/** A simulation (`persona:`): an LLM plays the caller. */
export interface Simulation extends RunnableBase {
  kind: 'simulation';
  persona: string;
  goal: string;
  success: string;
  simulator: LlmConfig;
  metrics: SimulationMetric[];
  max_turns: number;
  max_duration_s: number;
  max_silence_s: number;
  runs: number;
  /**
   * Success rate over the runs needed to pass. Gone from Pipecat's newest format (every run must pass): 1 unless an old
   * file sets it.
   */
  pass_threshold: number;
  /** earshot extension: GAIA-style scorecard; absent when the file has none. */
  scorecard?: ScorecardSpec;
  /** earshot extension: NeMo-style success signals; absent when the file lists none. */
  success_signals?: SuccessSignals;
  /** Set when the simulation is NVIDIA NeMo's scenario model (a registered class or the YAML form): nemo/types.ts. */
  nemo?: NemoSpec;
}

export interface ManifestScenarioRef {
  /** As written: a bare name (under `scenarios_dir`) or a path relative to the manifest. */
  ref: string;
  name: string;
  file: string;
}

export interface SuiteEntry {
  bot: string;
  /** `bot` resolved against `bots_dir`. */
  bot_path: string;
  /** The entry's label (`name:`, default the `bot:` path): what output, `-p`, results and artifact names key on. */
  name: string;
  /** This entry's own cap on runs at once, below the suite's `concurrency`. */
  concurrency?: number;
  scenarios: ManifestScenarioRef[];
  /** Absolute path of the body file (JSON or YAML) passed to the bot as `--runner-body` (`runner_body: {path}`). */
  runner_body?: string;
  /** earshot: `none` for a bot without RTVI (audio frames only); absent means RTVI. */
  handshake?: 'rtvi' | 'none';
  /** The body given inline (`runner_body: {data}`), for the suite to write to a file for the bot. */
  runner_body_data?: Record<string, unknown>;
}

/** A suite manifest (`suite:`), Pipecat's format. Loaded only; running it is the suite module's job. */
export interface Manifest extends LoadedBase {
  kind: 'manifest';
  bots_dir: string;
  scenarios_dir: string;
  runs_dir?: string;
  spawn: string;
  python?: string;
  concurrency: number;
  repeat: number;
  base_port: number;
  record: boolean;
  cache_dir?: string;
  suite: SuiteEntry[];
}

export type LoadedFile = Scenario | Simulation | Manifest;
export type LoadedKind = LoadedFile['kind'];
export type Runnable = Scenario | Simulation;

/**
 * A scenario file: its `name:` and every scenario it holds, in file order
 * (Pipecat's `EvalScenarioFile`). A file either holds a `scenarios:` list
 * (`format: 'list'`) or, deprecated, one scenario's keys at its top level.
 */
export interface ScenarioFile {
  file: string;
  /** The file's `name:`. */
  name: string;
  /** `gaia`: AMD GAIA's format (one scenario, recognised by its shape: see gaia-types.ts). */
  format: 'list' | 'top-level' | 'gaia';
  scenarios: Runnable[];
  /** Realpaths of every file pulled in with `!include`. */
  includes: string[];
  /** Every warning of the file and its scenarios, each once, in file order. */
  warnings: Diagnostic[];
}

/** One scenario of a file, checked on its own (what `validate --json` prints per scenario). */
export interface ScenarioCheck {
  /** The scenario's name (`<file name>/<scenario name>`); the file stem when the file could not be read that far. */
  id: string;
  file: string;
  kind: 'script' | 'simulation' | null;
  /** `gaia`: the scenario is an AMD GAIA file (a scripted scenario with a `gaia` block). */
  format?: 'gaia';
  status: 'valid' | 'invalid';
  /** Errors (invalid) and warnings, including the file-level ones that apply to it. */
  diagnostics: Diagnostic[];
  loaded?: Runnable;
}
