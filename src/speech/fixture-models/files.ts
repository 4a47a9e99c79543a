import type { TokenizerFiles } from './tokenizers.js';

/** What a fixture generator returns: the JSON files, and each ONNX graph's bytes by graph name. */
export interface FixtureFiles {
  json: Record<string, unknown>;
  /** Graph name (`encoder_model`, `decoder_model_merged`, `model`) → bytes, written under every dtype asked for. */
  graphs: Record<string, Uint8Array>;
}

/** Whisper's `preprocessor_config.json` (80 mel bins, 30 s windows of 16 kHz audio, 10 ms hops). */
export const WHISPER_PREPROCESSOR = {
  feature_extractor_type: 'WhisperFeatureExtractor',
  processor_class: 'WhisperProcessor',
  chunk_length: 30,
  feature_size: 80,
  hop_length: 160,
  n_fft: 400,
  n_samples: 480000,
  nb_max_frames: 3000,
  padding_side: 'right',
  padding_value: 0,
  return_attention_mask: false,
  sampling_rate: 16000,
} as const;

/** Moonshine's: raw 16 kHz samples, unnormalized. */
export const MOONSHINE_PREPROCESSOR = {
  feature_extractor_type: 'MoonshineFeatureExtractor',
  processor_class: 'MoonshineProcessor',
  feature_size: 1,
  padding_side: 'right',
  padding_value: 0,
  do_normalize: false,
  return_attention_mask: false,
  sampling_rate: 16000,
} as const;

/** The five JSON files a speech seq2seq model folder holds. */
export function seq2seqJson(
  config: Record<string, unknown>,
  generation: Record<string, unknown>,
  preprocessor: Record<string, unknown>,
  tokens: TokenizerFiles,
): Record<string, unknown> {
  return {
    'config.json': config,
    'generation_config.json': generation,
    'preprocessor_config.json': preprocessor,
    'tokenizer.json': tokens.tokenizer,
    'tokenizer_config.json': tokens.tokenizerConfig,
  };
}
