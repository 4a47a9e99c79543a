import {
  CALL_SPEC,
  DEFAULT_SPAWN,
  JUDGE_SPEC,
  LLM_SPEC,
  ref,
  SIMULATION_MEASURES,
  str,
  text,
  TURN_SPEC,
  USER_SPEC,
} from './fields.js';
import type { ObjectSpec, Spec } from './spec.js';
import { CONDITION_FIELDS } from './condition-fields.js';
import { SCENARIO_SEVERITIES, SCORECARD_DIMENSIONS } from './types.js';
import { NEMO_FIELDS, NEMO_SIGNAL_LIST_SPEC, nemoSimulationSpec } from './nemo/fields.js';

/**
 * The file-level formats as field tables: Pipecat's scenario files (a `name:`
 * and a `scenarios:` list whose other top-level keys are defaults, from its
 * newest `scenario.py`), the two kinds of scenario (`script.py`,
 * `simulation.py`) and suite manifests (`suite.py`). Defaults are Pipecat's.
 */

const commonRunnable = {
  name: text('The name of the scenario.'),
  user: USER_SPEC,
  judge: JUDGE_SPEC,
  trigger_disconnect: {
    kind: 'boolean',
    default: false,
    description: "Fire the bot's on_client_disconnected handler at the end.",
  },
  category: text('earshot extension (GAIA): a free-text label for grouping and --category filtering.'),
  severity: str('earshot extension (GAIA): how much a failure matters, for --severity filtering.', {
    enum: SCENARIO_SEVERITIES,
  }),
  ...CONDITION_FIELDS,
} satisfies Record<string, Spec>;

export const SCRIPT_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'An earshot / Pipecat scripted scenario.',
  required: ['name', 'turns'],
  fields: {
    ...commonRunnable,
    turns: { kind: 'array', items: TURN_SPEC, description: 'The conversation, in order.' },
    context: {
      kind: 'array',
      items: { kind: 'map', description: 'An LLM message: role, content.' },
      description: "Messages replacing the bot's LLM context before the first turn.",
    },
    stop_on_failure: { kind: 'boolean', default: true, description: 'End the scenario at the first failed turn.' },
  },
};

const CALLS_LIST = {
  kind: 'array',
  items: CALL_SPEC,
  description: 'For measure: function_calls, the calls the bot must make ([] for none).',
} satisfies Spec;

export const METRIC_SPEC = ref('metric', {
  kind: 'object',
  description: 'A judged criterion (criterion:) or a measured bound (measure:).',
  fields: {
    name: text('Metric name (defaults to the measure).'),
    criterion: text('What every bot reply should be, decided per reply by the judge.'),
    weight: {
      kind: 'number',
      exclusiveMin: 0,
      default: 1,
      description: "Deprecated (Pipecat's first format): weight in the run's quality score.",
    },
    min_score: {
      kind: 'number',
      min: 0,
      max: 1,
      description: 'Share of replies that must pass; omitted: reported only.',
    },
    measure: str('A built-in measure.', { enum: SIMULATION_MEASURES }),
    min_value: { kind: 'number', description: 'Lower bound, inclusive.' },
    max_value: { kind: 'number', description: 'Upper bound, inclusive.' },
    calls: CALLS_LIST,
  },
  rules: [{ oneOf: [{ required: ['criterion'] }, { required: ['measure'] }] }],
});

/** GAIA's weights, in percent; a file's `weights:` replaces the ones it names. */
export const DEFAULT_SCORECARD_WEIGHTS: Readonly<Record<(typeof SCORECARD_DIMENSIONS)[number], number>> = Object.freeze(
  {
    correctness: 25,
    tool_selection: 20,
    context_retention: 20,
    completeness: 15,
    efficiency: 10,
    personality: 5,
    error_recovery: 5,
  },
);
export const DEFAULT_SCORECARD_PASS = 7;
/**
 * The legacy map form's `clean_exit: true`: functions whose call by the bot ends the call on purpose (a NeMo
 * scenario has its own: NEMO_EXIT_FUNCTIONS).
 */
export const DEFAULT_EXIT_FUNCTIONS = [
  'end_conversation',
  'end_call',
  'hang_up',
  'transfer_to_human',
  'transfer_to_agent',
] as const;

export const SCORECARD_SPEC = ref('scorecard', {
  kind: 'object',
  description: 'earshot extension (GAIA): score the conversation 0-10 on weighted dimensions; {} for the defaults.',
  fields: {
    expected_answer: str(
      'The answer the bot should give; a number in it caps correctness by the deviation of the closest number the ' +
        'bot said (<=1% 10, <=5% 8, <=15% 4, <=50% 1, else 0). null: the bot must say it does not know.',
    ),
    weights: {
      kind: 'object',
      description: `Weight of each dimension, replacing GAIA's defaults (${Object.entries(DEFAULT_SCORECARD_WEIGHTS)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}); normalized; 0 leaves one out.`,
      minProperties: 1,
      fields: Object.fromEntries(
        SCORECARD_DIMENSIONS.map((d) => [d, { kind: 'number', min: 0, description: `Weight of ${d}.` } satisfies Spec]),
      ),
    },
    pass_threshold: {
      kind: 'number',
      min: 0,
      max: 10,
      default: DEFAULT_SCORECARD_PASS,
      description: 'Weighted total (0-10) needed to pass.',
    },
  },
});

const SIGNAL_MAP_SPEC: ObjectSpec = {
  kind: 'object',
  description:
    "earshot's map form: signals that gate the verdict; every one listed must hold. NeMo's own whitelist is the " +
    'list form ([DB_STATE_MATCH, CLEAN_EXIT]) in a NeMo-form scenario (user_persona:, user_task:).',
  minProperties: 1,
  // Unknown keys reach the normalizer, which refuses them (a NeMo signal written here must not pass as no signal).
  extra: 'pass',
  fields: {
    clean_exit: {
      kind: 'oneOf',
      description:
        `The bot ended the call on purpose: it closed the connection normally, or called an exit function (default ` +
        `${DEFAULT_EXIT_FUNCTIONS.join(', ')}); a cap, a silence or the caller hanging up never counts.`,
      options: [
        { kind: 'boolean', description: 'true: the default exit functions.' },
        {
          kind: 'object',
          description: 'The functions that end the call.',
          required: ['functions'],
          fields: {
            functions: { kind: 'array', nonEmpty: true, items: text('Function name.'), description: 'Function names.' },
          },
        },
      ],
    },
    action_match: {
      kind: 'oneOf',
      description:
        "The bot's calls, in order (each a name or a name with an args subset); other calls may come between.",
      options: [
        { kind: 'array', nonEmpty: true, items: CALL_SPEC, description: 'The expected calls, in order.' },
        {
          kind: 'object',
          description: 'The expected calls and whether others may come between.',
          required: ['calls'],
          fields: {
            calls: { kind: 'array', nonEmpty: true, items: CALL_SPEC, description: 'The expected calls, in order.' },
            exact: { kind: 'boolean', default: false, description: 'No other call may be made.' },
          },
        },
      ],
    },
    nl_assertions: {
      kind: 'array',
      nonEmpty: true,
      items: text('A claim about the conversation.'),
      description: 'Claims judged one by one.',
    },
  },
};

export const SUCCESS_SIGNALS_SPEC = ref('success_signals', {
  kind: 'oneOf',
  description: "Signals that gate the verdict: earshot's map form, or NeMo's list of SuccessSignal members.",
  options: [SIGNAL_MAP_SPEC, NEMO_SIGNAL_LIST_SPEC],
});

export const SIMULATION_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A simulation: an LLM plays the caller described by persona and goal.',
  required: ['name', 'persona', 'goal', 'success'],
  fields: {
    ...commonRunnable,
    persona: text('Who the caller is.'),
    goal: text('What the caller wants from the call.'),
    success: text('What counts as the bot having done its job, judged over the whole conversation.'),
    simulator: LLM_SPEC,
    metrics: { kind: 'array', items: METRIC_SPEC, description: 'Quality checks scored per run.' },
    max_turns: { kind: 'integer', min: 1, default: 20, description: "Cap on the caller's turns." },
    max_duration_s: {
      kind: 'number',
      exclusiveMin: 0,
      unit: 's',
      default: 300,
      description: 'Cap on the run wall clock.',
    },
    max_silence_s: {
      kind: 'number',
      exclusiveMin: 0,
      unit: 's',
      default: 30,
      description: 'Cap on a lull with no event from either side.',
    },
    runs: {
      kind: 'integer',
      min: 1,
      default: 1,
      description: 'How many times a suite runs the simulation; every run must pass.',
    },
    pass_threshold: {
      kind: 'number',
      exclusiveMin: 0,
      max: 1,
      default: 1,
      description: "Deprecated (Pipecat's first format): success rate over the runs needed to pass.",
    },
    scorecard: SCORECARD_SPEC,
    success_signals: SUCCESS_SIGNALS_SPEC,
  },
  rules: [
    {
      if: {
        properties: { user: { properties: { modality: { const: 'audio' } }, required: ['modality'] } },
        required: ['user'],
      },
      then: { properties: { user: { required: ['speech'] } } },
    },
  ],
};

/**
 * Keys of another kind of scenario that this kind does not have (a file-level default for the other kind). `nemo`: a
 * simulation in NeMo's form.
 */
export function otherKindKeys(kind: 'script' | 'simulation' | 'nemo'): Set<string> {
  const own =
    kind === 'script'
      ? SCRIPT_SPEC.fields
      : kind === 'simulation'
        ? SIMULATION_SPEC.fields
        : NEMO_SIMULATION_SPEC.fields;
  const other = kind === 'script' ? { ...SIMULATION_SPEC.fields, ...NEMO_FIELDS } : SCRIPT_SPEC.fields;
  return new Set(Object.keys(other).filter((k) => !Object.hasOwn(own, k)));
}

/** A simulation entry in NeMo's form (`user_persona:`, `user_task:`): nemo/fields.ts. */
export const NEMO_SIMULATION_SPEC: ObjectSpec = nemoSimulationSpec(SIMULATION_SPEC, SUCCESS_SIGNALS_SPEC);

const ANY_SCENARIO_FIELDS: Record<string, Spec> = {
  ...SCRIPT_SPEC.fields,
  ...SIMULATION_SPEC.fields,
  ...NEMO_FIELDS,
};
const BOTH_KINDS = { not: { required: ['turns', 'persona'] } };

export const SCENARIO_ENTRY_SPEC = ref('scenario', {
  kind: 'object',
  description:
    'One scenario: scripted (turns:) or a simulation (persona:). Its keys replace the file-level defaults whole; ' +
    'it is named <file name>/<name>.',
  required: ['name'],
  fields: ANY_SCENARIO_FIELDS,
  rules: [BOTH_KINDS],
});

/** A scenario file (Pipecat 1.11): `name:`, `scenarios:`, and defaults for every scenario at the top. */
export const SCENARIO_FILE_SPEC: ObjectSpec = {
  kind: 'object',
  description:
    'A scenario file: a name and a scenarios: list. Every other top-level key is a default for each scenario ' +
    "(a scenario's own key replaces it whole). A file without scenarios: is one scenario (deprecated).",
  required: ['name'],
  fields: {
    ...ANY_SCENARIO_FIELDS,
    name: text('The file name: each scenario is named <file name>/<scenario name>.'),
    scenarios: {
      kind: 'array',
      nonEmpty: true,
      items: SCENARIO_ENTRY_SPEC,
      description: 'The scenarios, each run on its own.',
    },
  },
  rules: [
    {
      anyOf: [
        { required: ['scenarios'] },
        { required: ['turns'] },
        { required: ['persona'] },
        { required: ['user_persona'] },
        { required: ['user_task'] },
      ],
    },
    BOTH_KINDS,
  ],
};

const RUNNER_BODY_SPEC = {
  kind: 'oneOf',
  description: 'Runner-args body passed to the bot as --runner-body.',
  options: [
    text('Deprecated: a body file (relative to the manifest); write {path: <file>}.'),
    {
      kind: 'object',
      description: 'A body file (path:) or the body itself (data:), exactly one.',
      fields: {
        path: text('YAML or JSON body file, relative to the manifest; the bot runs in its folder.'),
        data: { kind: 'map', description: 'The body itself; the suite writes it to a file for the bot.' },
      },
      rules: [{ oneOf: [{ required: ['path'] }, { required: ['data'] }] }],
    },
  ],
} satisfies Spec;

export const SUITE_ENTRY_SPEC = ref('suite_entry', {
  kind: 'object',
  description: 'A bot to spawn and the scenarios to run against it.',
  required: ['bot'],
  fields: {
    bot: text('Bot script, relative to bots_dir.'),
    name: text("This entry's label (default: the bot path), for entries that share a bot."),
    concurrency: { kind: 'integer', min: 1, description: "This bot's own cap on runs at once." },
    scenarios: {
      kind: 'array',
      items: text(
        'A scenario file: a name under scenarios_dir without .yaml (scripted/greeting), or a path ending in .yaml ' +
          'relative to the manifest.',
      ),
      description: 'Scenario files run against this bot; a file runs every scenario it holds.',
    },
    runner_body: RUNNER_BODY_SPEC,
    handshake: str(
      'earshot: rtvi (default), or none for a bot without RTVI that only speaks audio frames (--wire protobuf).',
      { enum: ['rtvi', 'none'] },
    ),
  },
});

export const MANIFEST_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'A suite manifest (Pipecat format): bots to spawn and scenarios to run.',
  required: ['suite'],
  fields: {
    bots_dir: str('Folder bot paths are relative to (relative to the manifest).', { default: '.' }),
    scenarios_dir: str('Folder scenario names resolve in (relative to the manifest).', { default: 'scenarios' }),
    runs_dir: text('Base folder for logs and recordings (relative to the manifest).'),
    spawn: str('Spawn command; {python}, {bot} and {port} are substituted.', {
      nonEmpty: true,
      default: DEFAULT_SPAWN,
    }),
    python: text('Interpreter for {python}.'),
    concurrency: { kind: 'integer', min: 1, default: 4, description: 'Runs at once.' },
    repeat: { kind: 'integer', min: 1, default: 1, description: 'Runs of each (bot, scenario) pair.' },
    base_port: {
      kind: 'integer',
      min: 1,
      max: 65535,
      default: 7900,
      description: 'First port assigned to spawned bots.',
    },
    record: { kind: 'boolean', default: false, description: 'Record conversation audio.' },
    cache_dir: text('Cache for synthesized user audio.'),
    suite: { kind: 'array', items: SUITE_ENTRY_SPEC, description: 'The bots and their scenarios.' },
  },
};
