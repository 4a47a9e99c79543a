/**
 * The models `earshot models pull` knows: where each lives on the Hugging Face
 * hub and which of its files the loaders read.
 *
 * The file lists follow what @huggingface/transformers 3.8.1 opens: for a
 * speech seq2seq model (Whisper, Moonshine) `config.json`,
 * `generation_config.json`, `preprocessor_config.json`, `tokenizer.json`,
 * `tokenizer_config.json`, `onnx/encoder_model{suffix}.onnx` and
 * `onnx/decoder_model_merged{suffix}.onnx`; for Kokoro (kokoro-js 1.2.1)
 * `config.json`, the tokenizer pair and `onnx/model{suffix}.onnx` — its voice
 * tables ship inside the kokoro-js package. The suffix is transformers' dtype
 * naming (fp32 → none, q8 → `_quantized`, ...).
 */

export type ModelKind = 'stt' | 'tts';
export type ModelProvider = 'whisper' | 'moonshine' | 'kokoro';

/** transformers.js dtypes and the file-name suffix each one loads. */
export const DTYPE_SUFFIX = {
  fp32: '',
  fp16: '_fp16',
  q8: '_quantized',
  int8: '_int8',
  uint8: '_uint8',
  q4: '_q4',
  q4f16: '_q4f16',
} as const;
export type Dtype = keyof typeof DTYPE_SUFFIX;

/** Per ONNX graph: an encoder often loses accuracy when quantized, a decoder much less. */
export type DtypeSpec = Dtype | Record<string, Dtype>;

export interface ModelSpec {
  /** The name users type: `earshot models pull whisper-tiny.en`. */
  name: string;
  kind: ModelKind;
  provider: ModelProvider;
  /** Hub repository, also the folder under the model store (transformers' local layout). */
  repo: string;
  revision: string;
  description: string;
  /** Non-weight files, loaded whatever the dtype. */
  configFiles: readonly string[];
  /** ONNX graph names under `onnx/`, without suffix. */
  graphs: readonly string[];
  defaultDtype: DtypeSpec;
  /** dtypes the repository publishes for every graph. */
  dtypes: readonly Dtype[];
}

const SEQ2SEQ_CONFIG = [
  'config.json',
  'generation_config.json',
  'preprocessor_config.json',
  'tokenizer.json',
  'tokenizer_config.json',
] as const;
const SEQ2SEQ_GRAPHS = ['encoder_model', 'decoder_model_merged'] as const;
const STT_DTYPES: readonly Dtype[] = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16'];
const STT_DEFAULT_DTYPE: DtypeSpec = { encoder_model: 'fp32', decoder_model_merged: 'q8' };

function whisper(name: string, description: string): ModelSpec {
  return {
    name: `whisper-${name}`,
    kind: 'stt',
    provider: 'whisper',
    repo: `onnx-community/whisper-${name}`,
    revision: 'main',
    description,
    configFiles: SEQ2SEQ_CONFIG,
    graphs: SEQ2SEQ_GRAPHS,
    defaultDtype: STT_DEFAULT_DTYPE,
    dtypes: STT_DTYPES,
  };
}

function moonshine(name: string, description: string): ModelSpec {
  return {
    name: `moonshine-${name}`,
    kind: 'stt',
    provider: 'moonshine',
    repo: `onnx-community/moonshine-${name}-ONNX`,
    revision: 'main',
    description,
    configFiles: SEQ2SEQ_CONFIG,
    graphs: SEQ2SEQ_GRAPHS,
    defaultDtype: STT_DEFAULT_DTYPE,
    dtypes: STT_DTYPES,
  };
}

export const MODELS: readonly ModelSpec[] = [
  whisper('tiny.en', 'Whisper tiny, English only (39M parameters)'),
  whisper('base.en', 'Whisper base, English only (74M parameters)'),
  whisper('tiny', 'Whisper tiny, multilingual (set `language`)'),
  whisper('base', 'Whisper base, multilingual (set `language`)'),
  moonshine('tiny', 'Moonshine tiny, English (27M parameters)'),
  moonshine('base', 'Moonshine base, English (61M parameters)'),
  {
    name: 'kokoro',
    kind: 'tts',
    provider: 'kokoro',
    repo: 'onnx-community/Kokoro-82M-v1.0-ONNX',
    revision: 'main',
    description: 'Kokoro 82M v1.0 TTS, 24 kHz (voices ship with kokoro-js)',
    configFiles: ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
    graphs: ['model'],
    defaultDtype: 'q8',
    dtypes: ['fp32', 'fp16', 'q8', 'q4', 'q4f16'],
  },
];

export function modelNames(): string[] {
  return MODELS.map((m) => m.name);
}

export function findModel(name: string): ModelSpec | undefined {
  return MODELS.find((m) => m.name === name);
}

/** The dtype each graph loads, from a model default and an optional override. */
export function graphDtypes(model: ModelSpec, dtype?: DtypeSpec): Record<string, Dtype> {
  const spec = dtype ?? model.defaultDtype;
  const out: Record<string, Dtype> = {};
  for (const graph of model.graphs) {
    const d = typeof spec === 'string' ? spec : (spec[graph] ?? fallbackDtype(model, graph));
    out[graph] = d;
  }
  return out;
}

function fallbackDtype(model: ModelSpec, graph: string): Dtype {
  const d = model.defaultDtype;
  return typeof d === 'string' ? d : (d[graph] ?? 'fp32');
}

/** Repo-relative paths of every file the loader opens for this dtype. */
export function requiredFiles(model: ModelSpec, dtype?: DtypeSpec): string[] {
  const dtypes = graphDtypes(model, dtype);
  return [...model.configFiles, ...model.graphs.map((g) => `onnx/${g}${DTYPE_SUFFIX[dtypes[g]]}.onnx`)];
}

export function isDtype(value: unknown): value is Dtype {
  return typeof value === 'string' && Object.hasOwn(DTYPE_SUFFIX, value);
}
