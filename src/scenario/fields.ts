import { EVENT_NAMES, MARKER_KINDS, MARKER_KEYS } from './events.js';
import { LATENCY_METRICS } from './types.js';
import { WER_METRICS } from './check-types.js';
import { ref, str, text, type Spec } from './spec.js';
import { CONDITION_FIELDS, PROBE_FIELDS } from './condition-fields.js';

export { ref, str, text } from './spec.js';
export {
  DEFAULT_EXPLAIN_BELOW,
  DEFAULT_JUDGE_SERVICE,
  DEFAULT_OLLAMA_EXTRA,
  DEFAULT_OLLAMA_MODEL,
  DEFAULT_PADDING_SECS,
  DEFAULT_TRANSCRIPTION_SERVICE,
  JUDGE_EVAL_SPEC,
  JUDGE_SPEC,
  LLM_SPEC,
  SPEECH_SPEC,
  TRANSCRIPTION_SPEC,
  USER_SPEC,
} from './service-fields.js';

/**
 * The blocks of the file formats as field tables: Pipecat's services, turns
 * and expectations (read from its newest `script.py`, `scenario_config.py` and
 * `judge.py`), plus earshot's extensions (turn `latency:`, measured events for
 * `send_after`). Defaults are Pipecat's. The file-level tables (scenario
 * files, simulations, manifests) are in file-fields.ts; the services' tables
 * (`user:`, `judge:`, the LLM block) in service-fields.ts, re-exported here.
 */

export const DEFAULT_SPAWN = '{python} {bot} -t eval --port {port}';
export const SIMULATION_MEASURES = ['turns', 'duration', 'words', 'latency', 'function_calls'] as const;
export const DTMF_KEYS = '0123456789*#';

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
    'earshot extension: a number the text must hold, spoken or written ("seventy five", "75", "75.5"): a value, ' +
    'or {value, tolerance_pct}.',
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
      'Natural-language criterion decided by the judge LLM; on function_call, about each matched call ' +
        '(not allowed on function_call_stopped).',
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
      'earshot extension: a regular expression (JavaScript syntax, Unicode; a leading (?i), (?m) or (?s) sets flags) ' +
        'searched in the event text with whitespace collapsed, aggregated across reply segments like text_contains; ' +
        '^ and $ anchor it.',
    ),
    number: NUMBER_SPEC,
    expected_text: text(
      "earshot extension, on a reply: what the bot should say word for word; the reference of the turn's bot_wer " +
        '(word error rate of the text this expectation matched).',
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
    'Bounds on a word error rate (0 = every word right; ' +
    'above 1 when the text holds more wrong words than the reference has); at least one.',
  minProperties: 1,
  fields: {
    min: { kind: 'number', min: 0, description: 'Lower bound, inclusive.' },
    max: { kind: 'number', min: 0, description: 'Upper bound, inclusive.' },
  },
});

export const WER_SPEC = ref('wer', {
  kind: 'object',
  description:
    "earshot extension: bounds on the turn's word error rates (fail with wer_exceeded): " +
    "user_wer, the bot's own transcription of the caller (user_transcription) against user:; " +
    "bot_wer, earshot's transcript of the bot against expected_text.",
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
      'Recording played instead of synthesizing user (path relative to the scenario file); ' +
        'needs user text and user.modality: audio.',
    ),
    image: text('Image registered for the turn (path relative to the scenario file).'),
    send_after: SEND_AFTER_SPEC,
    expect: { kind: 'array', items: EXPECTATION_SPEC, description: 'Expected events, in order.' },
    latency: LATENCY_SPEC,
    expected_text: text(
      'earshot extension: what the bot should answer this turn word for word; the reference of bot_wer, ' +
        "read against the text of the turn's matched reply expectations.",
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
