import { ref, str, text, type ObjectSpec, type Spec } from '../spec.js';
import { SuccessSignal } from './types.js';

/**
 * NeMo's scenario fields as YAML (the NeMo form of a simulation entry: `user_persona:`, `user_task:`... in NeMo's
 * snake_case), for the checker and the JSON Schema. A domain base is the file's top-level keys (the defaults every
 * `scenarios:` entry inherits, as a Python base class); fixtures come in with `!include`.
 */

const lines = (description: string): Spec => ({ kind: 'array', items: text('One line.'), description });

export const NEMO_PERSONA_SPEC = ref('nemo_persona', {
  kind: 'object',
  description: "NeMo's Persona: who a side is; rendered as the prompt's opening lines.",
  required: ['role'],
  fields: {
    role: text('The role (required).'),
    name: text('A name.'),
    background: text('Background.'),
    personality: text('Personality.'),
    language: text('Language.'),
    accent: text('Accent.'),
    behavior_config: { kind: 'map', description: 'A label for slicing results; never rendered.' },
    voice_config: { kind: 'map', description: 'A label for slicing results; never rendered.' },
  },
});

export const NEMO_TASK_SPEC = ref('nemo_task', {
  kind: 'object',
  description: "NeMo's Task: one objective for the side.",
  required: ['goal'],
  fields: { goal: text('The objective (required).'), background: text('Context for it.') },
});

export const NEMO_ACTIONS_SPEC = ref('nemo_actions', {
  kind: 'object',
  description: "NeMo's Actions: a numbered script and always-apply rules.",
  fields: {
    instructions: lines('The ordered script, rendered numbered.'),
    guidelines: lines('Rules that always apply.'),
  },
});

export const NEMO_RESOURCES_SPEC = ref('nemo_resources', {
  kind: 'object',
  description: "NeMo's Resources: tools (class name → constructor arguments), documents, information.",
  fields: {
    tools: { kind: 'map', description: 'Tool class name → its constructor arguments (agent side only).' },
    documents: lines('Documents.'),
    information: lines('Information lines.'),
    info_sections: { kind: 'map', description: 'Heading → lines, each rendered as a ### heading block.' },
  },
});

const SIDE = str('Which bot runs it: agent (the bot under test); user is refused (the caller is no bot).', {
  enum: ['agent', 'user'],
});

export const NEMO_ASSERTION_SPEC = ref('nemo_db_state_assertion', {
  kind: 'object',
  description: "A predicate over the bot's end-state DB (DB_STATE_ASSERTION).",
  required: ['side', 'func_name', 'assert_value'],
  fields: {
    side: SIDE,
    func_name: text('A predicate of the domain or default (path_equals, path_exists, count_at).'),
    arguments: { kind: 'map', description: "The predicate's arguments." },
    assert_value: { kind: 'any', description: 'What the predicate must return.' },
    message: text('What the assertion means, for reports.'),
  },
});

export const NEMO_INIT_ACTION_SPEC = ref('nemo_initialization_action', {
  kind: 'object',
  description: 'A bot-side function replayed to seed fixture state before the conversation.',
  required: ['side', 'func_name'],
  fields: {
    side: SIDE,
    func_name: text("The bot's init function."),
    arguments: { kind: 'map', description: 'Its arguments.' },
  },
});

const flag = (description: string): Spec => ({ kind: 'boolean', default: false, description });

/** The NeMo-only keys of a simulation entry (the Pipecat simulation keys it also takes come from SIMULATION_SPEC). */
export const NEMO_FIELDS: Record<string, Spec> = {
  user_persona: NEMO_PERSONA_SPEC,
  user_task: NEMO_TASK_SPEC,
  user_actions: NEMO_ACTIONS_SPEC,
  user_resources: NEMO_RESOURCES_SPEC,
  agent_persona: NEMO_PERSONA_SPEC,
  agent_task: NEMO_TASK_SPEC,
  agent_actions: NEMO_ACTIONS_SPEC,
  agent_resources: NEMO_RESOURCES_SPEC,
  domain: text("NeMo: keys the bot's tool registry and fixtures (tool_domain); default 'default'."),
  description: text('NeMo: a short summary.'),
  max_duration: { kind: 'number', exclusiveMin: 0, unit: 's', default: 300, description: 'NeMo: cap in seconds.' },
  reference_answer: { kind: 'any', description: 'NeMo: the expected action(s); drives ACTION_MATCH.' },
  expected_scenario_db: { kind: 'map', description: 'NeMo: the gold end-state DB; drives DB_STATE_MATCH.' },
  expected_user_db: { kind: 'map', description: "NeMo's user-side DB: refused (earshot's caller is no bot)." },
  db_state_assertions: { kind: 'array', items: NEMO_ASSERTION_SPEC, description: 'NeMo: drives DB_STATE_ASSERTION.' },
  nl_assertions: lines('NeMo: claims judged one by one; drives NL_ASSERTION.'),
  initialization_actions: { kind: 'array', items: NEMO_INIT_ACTION_SPEC, description: 'NeMo: seeds the bot.' },
  ignore_capitalization: flag('NeMo: ACTION_MATCH compares text case-insensitively.'),
  ignore_punctuation: flag('NeMo: ACTION_MATCH ignores punctuation.'),
  clean_text: flag('NeMo: ACTION_MATCH trims and collapses whitespace.'),
  disallow_extra_items: flag('NeMo: ACTION_MATCH requires an exact bijection (no extra predicted items).'),
  noise_config: {
    kind: 'object',
    description: "NeMo's NoiseConfig: noise on the caller's channel (audio runs).",
    required: ['snr_db'],
    fields: {
      snr_db: { kind: 'number', description: 'Signal-to-noise ratio, dB.' },
      type: str('white, pink or babble.', { enum: ['white', 'pink', 'babble'] }),
      path: text('A WAV of noise instead.'),
    },
  },
  action_source: str("Where ACTION_MATCH's actions come from: the bot's scenario summary (NeMo) or its calls.", {
    enum: ['summary', 'calls'],
  }),
  shared_state_init: {
    kind: 'object',
    description: "What NeMo's setup_shared_state seeds, per side (sent as apply_initialization's shared_state_init).",
    fields: {
      agent: { kind: 'map', description: "The bot's shared_state (e.g. db_path: restaurant/db.json)." },
      user: { kind: 'map', description: "Refused when non-empty: earshot's caller is no bot." },
    },
  },
};

/** `success_signals:` in NeMo's form: the whitelist, as member names. */
export const NEMO_SIGNAL_LIST_SPEC: Spec = {
  kind: 'array',
  nonEmpty: true,
  items: str('A SuccessSignal member.', { enum: Object.keys(SuccessSignal) }),
  description: `NeMo's whitelist: ${Object.keys(SuccessSignal).join(', ')}; every one must hold (strict AND).`,
};

/** The keys that make a simulation entry NeMo's form. */
export const NEMO_FORM_KEYS = ['user_persona', 'user_task'] as const;

export function nemoSimulationSpec(simulation: ObjectSpec, signals: Spec): ObjectSpec {
  const {
    persona: _p,
    goal: _g,
    success: _s,
    metrics: _m,
    max_duration_s: _d,
    scorecard: _c,
    ...kept
  } = simulation.fields;
  return {
    kind: 'object',
    description: "A simulation in NVIDIA NeMo's scenario form (user_persona:, user_task:, success_signals: [...]).",
    required: ['name', 'user_persona', 'user_task', 'success_signals'],
    fields: { ...kept, ...NEMO_FIELDS, success_signals: signals },
  };
}
