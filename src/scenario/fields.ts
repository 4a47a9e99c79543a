import { EVENT_NAMES } from './events.js';
import { LATENCY_METRICS } from './types.js';
import type { ObjectSpec, RefSpec, Spec } from './spec.js';

/**
 * The three file formats as field tables: Pipecat's scripted scenarios,
 * simulations and suite manifests (read from its `scenario.py`/`script.py`,
 * `simulation.py` and `suite.py`), plus earshot's extensions (turn `latency:`,
 * `audio:`, measured events for `send_after`). Defaults are Pipecat's.
 */

export const DEFAULT_JUDGE_SERVICE = 'ollama';
export const DEFAULT_OLLAMA_MODEL = 'gemma4:12b';
export const DEFAULT_OLLAMA_EXTRA: Readonly<Record<string, unknown>> = { reasoning_effort: 'none' };
export const DEFAULT_TRANSCRIPTION_SERVICE = 'moonshine';
export const DEFAULT_PADDING_SECS = 2;
export const DEFAULT_SPAWN = '{python} {bot} -t eval --port {port}';
export const SIMULATION_MEASURES = ['turns', 'duration', 'words', 'latency', 'function_calls'] as const;
export const DTMF_KEYS = '0123456789*#';

const ref = (name: string, spec: Spec): RefSpec => ({ kind: 'ref', name, spec });
const str = (description: string, extra: Partial<Extract<Spec, { kind: 'string' }>> = {}): Spec => ({
  kind: 'string',
  description,
  ...extra,
});
const text = (description: string): Spec => str(description, { nonEmpty: true });
const factoryField = text(
  'Custom service built by your code: "path/to/module.js#exportName" (relative to the scenario file) or a package specifier. Loaded only with --allow-code; the block is passed to it.',
);

export const LLM_SPEC = ref('llm', {
  kind: 'object',
  description: 'An LLM service: the judge (judge.eval) or the caller (simulator).',
  extra: 'pass-with-factory',
  includable: true,
  fields: {
    service: str('LLM service: ollama (default) or openai; any OpenAI-compatible server through endpoint.', { default: DEFAULT_JUDGE_SERVICE }),
    model: text(`Model name (Ollama default ${DEFAULT_OLLAMA_MODEL}).`),
    endpoint: text('Base URL of an OpenAI-compatible API (Ollama default http://localhost:11434/v1).'),
    extra: { kind: 'map', description: 'Passed to the model as top-level request parameters.' },
    api_key: text('API key; prefer the environment, never commit one.'),
    factory: factoryField,
  },
});

export const SPEECH_SPEC = ref('speech', {
  kind: 'object',
  description: 'The TTS that speaks the user turns (user.modality: audio). Extra keys are passed to a factory.',
  extra: 'pass-with-factory',
  includable: true,
  fields: {
    service: text('TTS service: kokoro or flite in earshot (cartesia in Pipecat); --tts overrides it.'),
    voice: text('Voice id (voices are language-specific).'),
    model: text('Model, for services that have several.'),
    language: text('Language code, e.g. en or zh.'),
    sample_rate: { kind: 'integer', min: 1, unit: 'Hz', description: 'Sample rate of the synthesized audio.' },
    api_key: text('API key; prefer the environment.'),
    factory: factoryField,
  },
  rules: [{ anyOf: [{ required: ['service'] }, { required: ['factory'] }] }],
});

export const TRANSCRIPTION_SPEC = ref('transcription', {
  kind: 'object',
  description: "The STT that transcribes the bot's audio (judge.modality: audio). Extra keys are passed to a factory.",
  extra: 'pass-with-factory',
  includable: true,
  fields: {
    service: str('STT service: whisper, moonshine (default) or sphinx; --stt overrides it.', { default: DEFAULT_TRANSCRIPTION_SERVICE }),
    model: text('Model, e.g. small-streaming, tiny, base.'),
    language: text('Language the bot speaks, e.g. es.'),
    padding_secs: { kind: 'number', min: 0, unit: 's', default: DEFAULT_PADDING_SECS, description: 'Silence padded around each segment before transcription.' },
    device: text('Device for local models: cpu (default) or cuda.'),
    compute_type: text('Whisper compute type, e.g. int8.'),
    factory: factoryField,
  },
});

export const USER_SPEC = ref('user', {
  kind: 'object',
  description: 'How the user turns reach the bot.',
  includable: true,
  fields: {
    modality: str('text (send-text) or audio (synthesized speech, real-time).', { enum: ['text', 'audio'], default: 'text' }),
    speech: SPEECH_SPEC,
  },
});

export const JUDGE_SPEC = ref('judge', {
  kind: 'object',
  description: "What the judge evaluates and with which LLM.",
  includable: true,
  fields: {
    modality: str("text (the bot's LLM text, TTS skipped) or audio (transcription of its real speech).", {
      enum: ['text', 'audio'],
      default: 'text',
    }),
    eval: LLM_SPEC,
    transcription: TRANSCRIPTION_SPEC,
  },
  rules: [
    {
      if: { properties: { modality: { const: 'audio' } }, required: ['modality'] },
      then: { required: ['transcription'] },
    },
  ],
});

const eventName = (description: string): Spec => str(description, { enum: EVENT_NAMES });

export const CALL_SPEC = ref('call', {
  kind: 'oneOf',
  description: 'An expected function call: a name, or a name with an args subset.',
  options: [
    text('Function name.'),
    {
      kind: 'object',
      description: 'A call matched by name, with a subset check on its arguments.',
      fields: {
        name: text('Function name; omit to match any function.'),
        args: { kind: 'map', description: 'Every listed key/value must be in the call arguments; others are ignored.' },
      },
    },
  ],
});

export const EXPECTATION_SPEC = ref('expectation', {
  kind: 'object',
  description: 'An event the bot must emit, in order; other events may come between.',
  required: ['event'],
  fields: {
    event: eventName('Event name; response resolves to llm_response under a text judge.'),
    within_ms: {
      kind: 'integer',
      min: 1,
      unit: 'ms',
      description: "Budget from the turn's send, shared by the turn's expectations (default 60000, --timeout).",
    },
    text_contains: str('Substring the event text must contain (aggregated across reply segments).'),
    eval: text('Natural-language criterion decided by the judge LLM.'),
    absent: { kind: 'boolean', default: false, description: 'Pass only if no such event arrives within the budget.' },
    calls: { kind: 'array', nonEmpty: true, items: CALL_SPEC, description: 'Function calls to match, by name in any order.' },
    name: text('Shorthand for a single expected call: its name.'),
    args: { kind: 'map', description: 'Shorthand for a single expected call: an arguments subset.' },
  },
  rules: [
    {
      if: { properties: { absent: { const: true } }, required: ['absent'] },
      then: {
        not: {
          anyOf: [
            { required: ['text_contains'] },
            { required: ['eval'] },
            { required: ['calls'] },
            { required: ['name'] },
            { required: ['args'] },
          ],
        },
      },
    },
  ],
});

export const SEND_AFTER_SPEC = ref('send_after', {
  kind: 'object',
  description: "When to send the turn's input: after an event (barge-in), a delay, or both.",
  fields: {
    event: eventName('Event to anchor on (any event, including the measured bot_audio_started).'),
    delay_ms: { kind: 'integer', min: 0, unit: 'ms', default: 0, description: 'Delay after the event, or after the previous send when no event.' },
  },
  rules: [{ anyOf: [{ required: ['event'] }, { required: ['delay_ms'], properties: { delay_ms: { minimum: 1 } } }] }],
});

const BOUND_SPEC = ref('latency_bound', {
  kind: 'object',
  description: 'Bounds in ms; at least one.',
  minProperties: 1,
  fields: {
    min: { kind: 'number', min: 0, unit: 'ms', description: 'Lower bound, inclusive.' },
    max: { kind: 'number', min: 0, unit: 'ms', description: 'Upper bound, inclusive.' },
  },
});

export const LATENCY_SPEC = ref('latency', {
  kind: 'object',
  description: "earshot extension: assertions on the turn's measured latencies (fail with latency_exceeded).",
  minProperties: 1,
  fields: Object.fromEntries(LATENCY_METRICS.map((m) => [m, BOUND_SPEC])),
});

export const TURN_SPEC = ref('turn', {
  kind: 'object',
  description: 'One turn: speak (user), press keys (dtmf) or only observe; then the expected events.',
  fields: {
    user: str('What the user says (synthesized in audio modality, send-text otherwise).'),
    dtmf: str('Keypad keys 0-9, * and #; quote it ("123#": an unquoted # starts a comment).', {
      nonEmpty: true,
      pattern: '^[0-9*#]+$',
      fromInteger: true,
    }),
    audio: text('Recording played instead of synthesizing user (path relative to the scenario file); needs user text and user.modality: audio.'),
    image: text('Image registered for the turn (path relative to the scenario file).'),
    send_after: SEND_AFTER_SPEC,
    expect: { kind: 'array', items: EXPECTATION_SPEC, description: 'Expected events, in order.' },
    latency: LATENCY_SPEC,
  },
  rules: [
    { not: { required: ['user', 'dtmf'] } },
    { if: { required: ['audio'] }, then: { required: ['user'], not: { required: ['dtmf'] } } },
    { if: { required: ['send_after'] }, then: { anyOf: [{ required: ['user'] }, { required: ['dtmf'] }] } },
  ],
});

const commonRunnable = {
  name: text('The name of the scenario.'),
  user: USER_SPEC,
  judge: JUDGE_SPEC,
  trigger_disconnect: { kind: 'boolean', default: false, description: "Fire the bot's on_client_disconnected handler at the end." },
} satisfies Record<string, Spec>;

export const SCRIPT_SPEC: ObjectSpec = {
  kind: 'object',
  description: 'An earshot / Pipecat scripted scenario.',
  required: ['name', 'turns'],
  fields: {
    ...commonRunnable,
    turns: { kind: 'array', items: TURN_SPEC, description: 'The conversation, in order.' },
    context: { kind: 'array', items: { kind: 'map', description: 'An LLM message: role, content.' }, description: "Messages replacing the bot's LLM context before the first turn." },
    stop_on_failure: { kind: 'boolean', default: true, description: 'End the scenario at the first failed turn.' },
  },
};

const CALLS_LIST = { kind: 'array', items: CALL_SPEC, description: 'For measure: function_calls, the calls the bot must make ([] for none).' } satisfies Spec;

export const METRIC_SPEC = ref('metric', {
  kind: 'object',
  description: 'A judged criterion (criterion:) or a measured bound (measure:).',
  fields: {
    name: text('Metric name (defaults to the measure).'),
    criterion: text('What every bot reply should be, decided per reply by the judge.'),
    weight: { kind: 'number', exclusiveMin: 0, default: 1, description: "Weight in the run's quality score." },
    min_score: { kind: 'number', min: 0, max: 1, description: 'Share of replies that must pass; omitted: reported only.' },
    measure: str('A built-in measure.', { enum: SIMULATION_MEASURES }),
    min_value: { kind: 'number', description: 'Lower bound, inclusive.' },
    max_value: { kind: 'number', description: 'Upper bound, inclusive.' },
    calls: CALLS_LIST,
  },
  rules: [{ oneOf: [{ required: ['criterion'] }, { required: ['measure'] }] }],
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
    max_duration_s: { kind: 'number', exclusiveMin: 0, unit: 's', default: 300, description: 'Cap on the run wall clock.' },
    max_silence_s: { kind: 'number', exclusiveMin: 0, unit: 's', default: 30, description: 'Cap on a lull with no event from either side.' },
    runs: { kind: 'integer', min: 1, default: 1, description: 'How many times a suite runs the simulation.' },
    pass_threshold: { kind: 'number', exclusiveMin: 0, max: 1, default: 1, description: 'Success rate over the runs needed to pass.' },
  },
  rules: [
    {
      if: { properties: { user: { properties: { modality: { const: 'audio' } }, required: ['modality'] } }, required: ['user'] },
      then: { properties: { user: { required: ['speech'] } } },
    },
  ],
};

export const SUITE_ENTRY_SPEC = ref('suite_entry', {
  kind: 'object',
  description: 'A bot to spawn and the scenarios to run against it.',
  required: ['bot'],
  fields: {
    bot: text('Bot script, relative to bots_dir.'),
    scenarios: { kind: 'array', items: text('A name under scenarios_dir, or a path (.yaml) relative to the manifest.'), description: 'Scenarios run against this bot.' },
    runner_body: text('JSON file passed to the bot as --runner-body (relative to the manifest).'),
    handshake: str("earshot: rtvi (default), or none for a bot without RTVI that only speaks audio frames (--wire protobuf).", { enum: ['rtvi', 'none'] }),
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
    spawn: str('Spawn command; {python}, {bot} and {port} are substituted.', { nonEmpty: true, default: DEFAULT_SPAWN }),
    python: text('Interpreter for {python}.'),
    concurrency: { kind: 'integer', min: 1, default: 4, description: 'Runs at once.' },
    repeat: { kind: 'integer', min: 1, default: 1, description: 'Runs of each (bot, scenario) pair.' },
    base_port: { kind: 'integer', min: 1, max: 65535, default: 7900, description: 'First port assigned to spawned bots.' },
    record: { kind: 'boolean', default: false, description: 'Record conversation audio.' },
    cache_dir: text('Cache for synthesized user audio.'),
    suite: { kind: 'array', items: SUITE_ENTRY_SPEC, description: 'The bots and their scenarios.' },
  },
};
