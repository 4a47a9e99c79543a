/**
 * The service blocks as field tables: the TTS that speaks the caller (`user:`), the judge (`judge:`, its LLM in
 * `eval:` and its STT in `transcription:`) and the LLM block a simulation's `simulator:` shares with it. Defaults are
 * Pipecat's.
 */
import { ref, str, text, type Spec } from './spec.js';

export const DEFAULT_JUDGE_SERVICE = 'ollama';
export const DEFAULT_OLLAMA_MODEL = 'gemma4:12b';
export const DEFAULT_OLLAMA_EXTRA: Readonly<Record<string, unknown>> = { reasoning_effort: 'none' };
export const DEFAULT_TRANSCRIPTION_SERVICE = 'moonshine';
export const DEFAULT_PADDING_SECS = 2;
export const DEFAULT_EXPLAIN_BELOW = 0.75;

const factoryField = text(
  'Custom service built by your code: "path/to/module.js#exportName" (relative to the scenario file) ' +
    'or a package specifier. Loaded only with --allow-code; the block is passed to it.',
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
      'Custom judge built by your code: "path/to/module.js#exportName" or a package specifier (loaded with ' +
        '--allow-code). A Pipecat dotted Python path (evals.judges.x) cannot run in Node: override it with --judge.',
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
      'earshot extension, sphinx: the folder holding the model (en-us/, en-us.lm.bin, cmudict-en-us.dict; ' +
        "default the Debian package's), relative to the scenario file.",
    ),
    mode: str(
      'earshot extension, sphinx: pool (the default: long-lived recognizers shared by every session), ' +
        'once (a fresh process per reply, the same words) or stream (the older adapting recognizer, with word times).',
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
        'earshot extension: replies waiting for a recognizer at most; one more fails its transcription ' +
        '(default 16 per recognizer).',
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
        "The STT for the bot's audio; earshot extension: a list of two, the second checking the first " +
        '(a reply they hear differently is inconclusive, not failed).',
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
        'earshot extension: word error rate between the two transcriptions above which they disagree ' +
        '(default 0.3; --stt-disagreement).',
    },
  },
  rules: [
    {
      if: { properties: { modality: { const: 'audio' } }, required: ['modality'] },
      then: { required: ['transcription'] },
    },
  ],
});
