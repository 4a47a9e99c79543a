/**
 * Whisper's JSON files with the real keys and token ids: transformers.js
 * derives the cache shapes from `config.json` and builds the prompt
 * (start of transcript, language, task, no timestamps) from
 * `generation_config.json`. The dimensions of each size are OpenAI's.
 */
import type { ModelSpec } from '../../models/registry.js';
import { seq2seqJson, WHISPER_PREPROCESSOR } from '../files.js';
import type { TokenizerFiles } from '../tokenizers.js';
import { WHISPER_LANGUAGE_CODES, type WhisperVocab } from './tokens.js';

export interface WhisperDims {
  dModel: number;
  layers: number;
  heads: number;
  ffn: number;
  multilingual: boolean;
}

const SIZES: Record<string, Omit<WhisperDims, 'multilingual'>> = {
  tiny: { dModel: 384, layers: 4, heads: 6, ffn: 1536 },
  base: { dModel: 512, layers: 6, heads: 8, ffn: 2048 },
};

export const MEL_BINS = 80;
export const MEL_FRAMES = 3000;
export const SOURCE_POSITIONS = 1500;
export const TARGET_POSITIONS = 448;

export function whisperDims(model: ModelSpec): WhisperDims {
  const size = model.name.replace(/^whisper-/, '').replace(/\.en$/, '');
  const dims = SIZES[size];
  if (!dims) throw new Error(`no full-size dimensions for ${model.name}`);
  return { ...dims, multilingual: !model.name.endsWith('.en') };
}

/** OpenAI's alignment heads ([layer, head]) per checkpoint; only word timestamps read them. */
const ALIGNMENT_HEADS: Record<string, number[][]> = {
  'whisper-tiny.en': [
    [1, 0],
    [2, 0],
    [2, 5],
    [3, 0],
    [3, 1],
    [3, 2],
    [3, 3],
    [3, 4],
  ],
  'whisper-tiny': [
    [2, 2],
    [3, 0],
    [3, 2],
    [3, 3],
    [3, 4],
    [3, 5],
  ],
  'whisper-base.en': [
    [3, 3],
    [4, 7],
    [5, 1],
    [5, 5],
    [5, 7],
  ],
  'whisper-base': [
    [3, 1],
    [4, 2],
    [4, 3],
    [4, 7],
    [5, 1],
    [5, 2],
    [5, 4],
    [5, 6],
  ],
};

/** The start of the real checkpoints' list of suppressed punctuation-like tokens. */
const SUPPRESSED_PLAIN = [1, 2, 7, 8, 9, 10, 14, 25, 26, 27, 28, 29, 31, 58, 59, 60, 61, 62, 63, 90, 91, 92, 93];
/** GPT-2's id of a lone space, suppressed at the first position as the real configs do. */
const SPACE_ID = 220;

export function whisperJson(
  model: ModelSpec,
  d: WhisperDims,
  vocab: WhisperVocab,
  tokens: TokenizerFiles,
): Record<string, unknown> {
  const eot = vocab.id('<|endoftext|>');
  const sot = vocab.id('<|startoftranscript|>');
  // The English-only checkpoints name their start-of-transcript token as bos, the multilingual ones end-of-text.
  const bos = d.multilingual ? eot : sot;
  const config = {
    _name_or_path: `earshot-fixture/${model.name}-full`,
    model_type: 'whisper',
    architectures: ['WhisperForConditionalGeneration'],
    activation_function: 'gelu',
    is_encoder_decoder: true,
    d_model: d.dModel,
    encoder_layers: d.layers,
    decoder_layers: d.layers,
    num_hidden_layers: d.layers,
    encoder_attention_heads: d.heads,
    decoder_attention_heads: d.heads,
    encoder_ffn_dim: d.ffn,
    decoder_ffn_dim: d.ffn,
    num_mel_bins: MEL_BINS,
    max_source_positions: SOURCE_POSITIONS,
    max_target_positions: TARGET_POSITIONS,
    max_length: TARGET_POSITIONS,
    scale_embedding: false,
    vocab_size: vocab.size,
    bos_token_id: bos,
    eos_token_id: eot,
    pad_token_id: eot,
    decoder_start_token_id: sot,
    begin_suppress_tokens: [SPACE_ID, eot],
    use_cache: true,
  };
  const task = { transcribe: vocab.id('<|transcribe|>'), translate: vocab.id('<|translate|>') };
  const languages = Object.fromEntries(WHISPER_LANGUAGE_CODES.map((l) => [`<|${l}|>`, vocab.id(`<|${l}|>`)]));
  const generation = {
    alignment_heads: ALIGNMENT_HEADS[model.name] ?? [[d.layers - 1, 0]],
    begin_suppress_tokens: [SPACE_ID, eot],
    bos_token_id: bos,
    decoder_start_token_id: sot,
    eos_token_id: eot,
    pad_token_id: eot,
    is_multilingual: d.multilingual,
    max_initial_timestamp_index: 50,
    max_length: TARGET_POSITIONS,
    no_timestamps_token_id: vocab.id('<|notimestamps|>'),
    prev_sot_token_id: vocab.id('<|startofprev|>'),
    return_timestamps: false,
    suppress_tokens: [
      ...SUPPRESSED_PLAIN,
      sot,
      task.translate,
      task.transcribe,
      vocab.id('<|startoflm|>'),
      vocab.id('<|startofprev|>'),
      vocab.id(d.multilingual ? '<|nospeech|>' : '<|nocaptions|>'),
    ],
    ...(d.multilingual ? { lang_to_id: languages, task_to_id: task } : {}),
  };
  return seq2seqJson(config, generation, WHISPER_PREPROCESSOR, tokens);
}
