import { EVENT_NAMES, MARKER_KINDS, MARKER_KEYS } from './events.js';
import { LATENCY_METRICS } from './types.js';
import { WER_METRICS } from './check-types.js';
import type { RefSpec, Spec } from './spec.js';
import { CONDITION_FIELDS, PROBE_FIELDS } from './condition-fields.js';

/**
 * The blocks of the file formats as field tables: Pipecat's services, turns
 * and expectations (read from its newest `script.py`, `scenario_config.py` and
 * `judge.py`), plus earshot's extensions (turn `latency:`, measured events for
 * `send_after`). Defaults are Pipecat's. The file-level tables (scenario
 * files, simulations, manifests) are in file-fields.ts.
 */

export const DEFAULT_JUDGE_SERVICE = 'ollama';
export const DEFAULT_OLLAMA_MODEL = 'gemma4:12b';
export const DEFAULT_OLLAMA_EXTRA: Readonly<Record<string, unknown>> = { reasoning_effort: 'none' };
export const DEFAULT_TRANSCRIPTION_SERVICE = 'moonshine';
export const DEFAULT_PADDING_SECS = 2;
export const DEFAULT_EXPLAIN_BELOW = 0.75;
export const DEFAULT_SPAWN = '{python} {bot} -t eval --port {port}';
export const SIMULATION_MEASURES = ['turns', 'duration', 'words', 'latency', 'function_calls'] as const;
export const DTMF_KEYS = '0123456789*#';

export const ref = (name: string, spec: Spec): RefSpec => ({ kind: 'ref', name, spec });
export const str = (description: string, extra: Partial<Extract<Spec, { kind: 'string' }>> = {}): Spec => ({
  kind: 'string',
  description,
  ...extra,
});
export const text = (description: string): Spec => str(description, { nonEmpty: true });
const factoryField = text(
  'Custom service built by your code: "path/to/module.js#exportName" (relative to the scenario file) or a package specifier. Loaded only with --allow-code; the block is passed to it.',
);

export const LLM_SPEC = ref('llm', {
  kind: 'object',
  description: 'An LLM service: the judge (judge.eval) or the caller (simulator).',
  extra: 'pass-with-factory',
  includable: true,
  fields: {
    service: str('LLM service: ollama (default) or openai; any OpenAI-compatible server through endpoint.', {
      default: DEFAULT_JUDGE_SERVICE,
    }),
    model: text(`Model name (Ollama default ${DEFAULT_OLLAMA_MODEL}).`),
    endpoint: text('Base URL of an OpenAI-compatible API (Ollama default http://localhost:11434/v1).'),
    extra: { kind: 'map', description: 'Passed to the model as top-level request parameters.' },
    api_key: text('API key; prefer the environment, never commit one.'),
    factory: factoryField,
  },
});

const LLM_FIELDS = (LLM_SPEC.spec as Extract<Spec, { kind: 'object' }>).fields;

export const JUDGE_EVAL_SPEC = ref('judge_eval', {
  kind: 'object',
  description:
    'The judge: an LLM (service:) or a classifier built by a factory:, and the explainer that gives reasons.',
  extra: 'pass-with-factory',
  includable: true,
  fields: {
    ...LLM_FIELDS,
    factory: text(
      'Custom judge built by your code: "path/to/module.js#exportName" or a package specifier (loaded with --allow-code). A Pipecat dotted Python path (evals.judges.x) cannot run in Node: override it with --judge.',
    ),
    explainer: {
      kind: 'oneOf',
      description:
        'The LLM asked for the reason behind a no or an unsure verdict (default: the judging LLM); false for none.',
      options: [LLM_SPEC, { kind: 'boolean', description: 'false: verdicts without reasons.' }],
    },
    explain_below: {
      kind: 'number',
      min: 0,
      default: DEFAULT_EXPLAIN_BELOW,
      description:
        'A verdict less sure than this is explained too; 0 explains only the no verdicts, above 1 every verdict.',
    },
    allow_continue: {
      kind: 'boolean',
      default: true,
      description:
        'Whether a reply may be judged continue (the bot is still working toward its answer); false: yes or no only.',
    },
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
    speed: { kind: 'number', exclusiveMin: 0, description: "Speaking rate (Kokoro's), pauses included; 1 is normal." },
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
    service: str('STT service: whisper, moonshine (default) or sphinx; --stt overrides it.', {
      default: DEFAULT_TRANSCRIPTION_SERVICE,
    }),
    model: text('Model, e.g. small-streaming, tiny, base.'),
    language: text('Language the bot speaks, e.g. es.'),
    padding_secs: {
      kind: 'number',
      min: 0,
      unit: 's',
      default: DEFAULT_PADDING_SECS,
      description: 'Silence padded around each segment before transcription.',
    },
    device: text('Device for local models: cpu (default) or cuda.'),
    compute_type: text('Whisper compute type, e.g. int8.'),
    model_dir: text(
      "earshot extension, sphinx: the folder holding the model (en-us/, en-us.lm.bin, cmudict-en-us.dict; default the Debian package's), relative to the scenario file.",
    ),
    mode: str(
      'earshot extension, sphinx: pool (the default: long-lived recognizers shared by every session), once (a fresh process per reply, the same words) or stream (the older adapting recognizer, with word times).',
      {
        enum: ['pool', 'once', 'stream'],
      },
    ),
    pool_size: {
      kind: 'integer',
      min: 1,
      description: 'earshot extension, sphinx: recognizers in the pool at most (default the cores).',
    },
    pool_queue: {
      kind: 'integer',
      min: 0,
      description:
        'earshot extension: replies waiting for a recognizer at most; one more fails its transcription (default 16 per recognizer).',
    },
    factory: factoryField,
  },
});

export const USER_SPEC = ref('user', {
  kind: 'object',
  description: 'How the user turns reach the bot.',
  includable: true,
  fields: {
    modality: str('text (send-text) or audio (synthesized speech, real-time).', {
      enum: ['text', 'audio'],
      default: 'text',
    }),
    speech: SPEECH_SPEC,
  },
});

export const JUDGE_SPEC = ref('judge', {
  kind: 'object',
  description: 'What the judge evaluates and with which LLM.',
  includable: true,
  fields: {
    modality: str("text (the bot's LLM text, TTS skipped) or audio (transcription of its real speech).", {
      enum: ['text', 'audio'],
      default: 'text',
    }),
    eval: JUDGE_EVAL_SPEC,
    transcription: {
      kind: 'oneOf',
      description:
        "The STT for the bot's audio; earshot extension: a list of two, the second checking the first (a reply they hear differently is inconclusive, not failed).",
      options: [
        TRANSCRIPTION_SPEC,
        {
          kind: 'array',
          nonEmpty: true,
          items: TRANSCRIPTION_SPEC,
          description: 'The transcriber, then the one that checks it.',
        },
      ],
    },
    transcription_disagreement: {
      kind: 'number',
      min: 0,
      description:
        'earshot extension: word error rate between the two transcriptions above which they disagree (default 0.3; --stt-disagreement).',
    },
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

/** earshot's deterministic checks of an event's text (normalized in text-checks.ts). */
export const TEXT_CHECK_KEYS = ['text_matches', 'number', 'expected_text'] as const;

/** What `absent: true` cannot be combined with: it matches on the event type only. */
export const ABSENT_CONFLICTS = [
  'text_contains',
  'text_excludes',
  'eval',
  'calls',
  'name',
  'args',
  ...MARKER_KEYS,
  ...TEXT_CHECK_KEYS,
] as const;

const NUMBER_SPEC = ref('number_check', {
  kind: 'oneOf',
  description:
    'earshot extension: a number the text must hold, spoken or written ("seventy five", "75", "75.5"): a value, or {value, tolerance_pct}.',
  options: [
    { kind: 'number', description: 'The number itself.' },
    {
      kind: 'object',
      description: 'A number within a tolerance.',
      required: ['value'],
      fields: {
        value: { kind: 'number', description: 'The number expected.' },
        tolerance_pct: {
          kind: 'number',
          min: 0,
          unit: '%',
          default: 0,
          description: 'How far off it may be, in percent of |value| (inclusive).',
        },
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
    text_excludes: str(
      'Substring the event text must not contain (with text_contains: the reply accumulated up to the match).',
    ),
    eval: text(
      'Natural-language criterion decided by the judge LLM; on function_call, about each matched call (not allowed on function_call_stopped).',
    ),
    absent: { kind: 'boolean', default: false, description: 'Pass only if no such event arrives within the budget.' },
    calls: {
      kind: 'array',
      nonEmpty: true,
      items: CALL_SPEC,
      description: 'Function calls to match, by name in any order.',
    },
    name: text('Shorthand for a single expected call: its name.'),
    args: { kind: 'map', description: 'Shorthand for a single expected call: an arguments subset.' },
    marker: str('For llm_marker: the marker the LLM emitted (incomplete: short or long).', { enum: MARKER_KINDS }),
    marker_first: {
      kind: 'boolean',
      description: "For llm_marker: whether the first marker comes before any text of the LLM's raw response.",
    },
    markers: { kind: 'integer', min: 0, description: "For llm_marker: how many markers the LLM's raw response holds." },
    text_after: { kind: 'boolean', description: 'For llm_marker: whether text follows the first marker.' },
    text_matches: text(
      'earshot extension: a regular expression (JavaScript syntax, Unicode; a leading (?i), (?m) or (?s) sets flags) searched in the event text with whitespace collapsed, aggregated across reply segments like text_contains; ^ and $ anchor it.',
    ),
    number: NUMBER_SPEC,
    expected_text: text(
      "earshot extension, on a reply: what the bot should say word for word; the reference of the turn's bot_wer (word error rate of the text this expectation matched).",
    ),
  },
  rules: [
    {
      if: { properties: { absent: { const: true } }, required: ['absent'] },
      then: { not: { anyOf: ABSENT_CONFLICTS.map((k) => ({ required: [k] })) } },
    },
    {
      if: { anyOf: MARKER_KEYS.map((k) => ({ required: [k] })) },
      then: { properties: { event: { const: 'llm_marker' } } },
    },
    { if: { properties: { event: { const: 'function_call_stopped' } } }, then: { not: { required: ['eval'] } } },
  ],
});

export const SEND_AFTER_SPEC = ref('send_after', {
  kind: 'object',
  description: "When to send the turn's input: after an event (barge-in), a delay, or both.",
  fields: {
    event: eventName('Event to anchor on (any event, including the measured bot_audio_started).'),
    delay_ms: {
      kind: 'integer',
      min: 0,
      unit: 'ms',
      default: 0,
      description: 'Delay after the event, or after the previous send when no event.',
    },
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

const WER_BOUND_SPEC = ref('wer_bound', {
  kind: 'object',
  description:
    'Bounds on a word error rate (0 = every word right; above 1 when the text holds more wrong words than the reference has); at least one.',
  minProperties: 1,
  fields: {
    min: { kind: 'number', min: 0, description: 'Lower bound, inclusive.' },
    max: { kind: 'number', min: 0, description: 'Upper bound, inclusive.' },
  },
});

export const WER_SPEC = ref('wer', {
  kind: 'object',
  description:
    "earshot extension: bounds on the turn's word error rates (fail with wer_exceeded): user_wer, the bot's own transcription of the caller (user_transcription) against user:; bot_wer, earshot's transcript of the bot against expected_text.",
  minProperties: 1,
  fields: Object.fromEntries(WER_METRICS.map((m) => [m, WER_BOUND_SPEC])),
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
    audio: text(
      'Recording played instead of synthesizing user (path relative to the scenario file); needs user text and user.modality: audio.',
    ),
    image: text('Image registered for the turn (path relative to the scenario file).'),
    send_after: SEND_AFTER_SPEC,
    expect: { kind: 'array', items: EXPECTATION_SPEC, description: 'Expected events, in order.' },
    latency: LATENCY_SPEC,
    expected_text: text(
      "earshot extension: what the bot should answer this turn word for word; the reference of bot_wer, read against the text of the turn's matched reply expectations.",
    ),
    wer: WER_SPEC,
    ...CONDITION_FIELDS,
    ...PROBE_FIELDS,
  },
  rules: [
    { not: { required: ['user', 'dtmf'] } },
    { if: { required: ['audio'] }, then: { required: ['user'], not: { required: ['dtmf'] } } },
    { if: { required: ['send_after'] }, then: { anyOf: [{ required: ['user'] }, { required: ['dtmf'] }] } },
  ],
});
