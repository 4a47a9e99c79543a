/**
 * Moonshine-shaped counting fixtures: raw 16 kHz samples in (`input_values`),
 * the real config keys and special tokens (`<s>` starts, `</s>` ends), graphs
 * that count voiced bursts in the waveform and say the count in English words.
 */
import { burstFeatures, countingDecoder, NUMBER_WORDS } from './counting.js';
import { type FixtureFiles, MOONSHINE_PREPROCESSOR, seq2seqJson } from './files.js';
import { encodeModel, GraphBuilder } from './graph.js';
import { moonshineTokenizer } from './tokenizers.js';

const WORDS = NUMBER_WORDS.en;
const BOS = 1;
const EOS = 2;
const VOCAB_SIZE = 3 + WORDS.length;
/** 20 ms of 16 kHz audio per encoder position. */
const POSITION_SAMPLES = 320;
/** Voiced: mean amplitude within 20 dB of the loudest position, and above -60 dB full scale. */
const VOICED_RATIO = 0.1;
const SILENCE = 0.001;

/** input_values [1, samples] → last_hidden_state [1, samples / 320, 4]. */
function encoder(): Uint8Array {
  const g = new GraphBuilder('moonshine_counting_encoder');
  const samples = g.input('input_values', 'float', ['batch_size', 'num_samples']);
  const wave = g.op('Abs', [g.op('Unsqueeze', [samples, g.ints([1])])]);
  const level = g.op('AveragePool', [wave], { kernel_shape: [POSITION_SAMPLES], strides: [POSITION_SAMPLES] });
  const loudest = g.op('ReduceMax', [level], { axes: [2], keepdims: 1 });
  const floor = g.op('Max', [g.op('Mul', [loudest, g.floats([VOICED_RATIO], [])]), g.floats([SILENCE], [])]);
  g.output('last_hidden_state', burstFeatures(g, level, floor), 'float', ['batch_size', 'encoder_sequence_length', 4]);
  return encodeModel(g, { doc: 'earshot fixture: Moonshine encoder interface, counts voiced bursts' });
}

function decoder(): Uint8Array {
  const g = new GraphBuilder('moonshine_counting_decoder');
  countingDecoder(g, {
    size: VOCAB_SIZE,
    eos: EOS,
    promptEnd: BOS,
    words: { en: WORDS.map((_, i) => 3 + i) },
    languageOf: new Map([[BOS, { en: 1 }]]),
  });
  return encodeModel(g, { doc: 'earshot fixture: Moonshine merged decoder interface, says the burst count' });
}

export function moonshineTinyFiles(): FixtureFiles {
  const tokens = moonshineTokenizer(WORDS);
  const config = {
    _name_or_path: 'earshot-fixture/moonshine-counting',
    model_type: 'moonshine',
    architectures: ['MoonshineForConditionalGeneration'],
    is_encoder_decoder: true,
    hidden_size: 4,
    intermediate_size: 4,
    encoder_num_hidden_layers: 1,
    decoder_num_hidden_layers: 1,
    encoder_num_attention_heads: 1,
    decoder_num_attention_heads: 1,
    encoder_num_key_value_heads: 1,
    decoder_num_key_value_heads: 1,
    max_position_embeddings: 194,
    vocab_size: VOCAB_SIZE,
    bos_token_id: BOS,
    eos_token_id: EOS,
    decoder_start_token_id: BOS,
    use_cache: true,
  };
  const generation = { bos_token_id: BOS, eos_token_id: EOS, decoder_start_token_id: BOS, max_length: 194 };
  return {
    json: seq2seqJson(config, generation, MOONSHINE_PREPROCESSOR, tokens),
    graphs: { encoder_model: encoder(), decoder_model_merged: decoder() },
  };
}
