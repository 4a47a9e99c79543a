/**
 * Whisper-shaped counting fixtures (`whisper-*.en` and multilingual): the real
 * files, the real special tokens and generation config, graphs that count
 * voiced bursts in the log-mel features and say the count in words.
 */
import { burstFeatures, countingDecoder, FIXTURE_LANGUAGES, NUMBER_WORDS, type CountingVocab } from './counting.js';
import { encodeModel, GraphBuilder } from './graph.js';
import { whisperTokenizer } from './tokenizers.js';
import { type FixtureFiles, seq2seqJson, WHISPER_PREPROCESSOR } from './files.js';

const WORD_TOKENS = FIXTURE_LANGUAGES.flatMap((lang) => NUMBER_WORDS[lang].map((w) => ` ${w}`));
const BLANK = ' [BLANK_AUDIO]';
const SPECIAL = [
  '<|endoftext|>',
  '<|startoftranscript|>',
  ...FIXTURE_LANGUAGES.map((l) => `<|${l}|>`),
  '<|translate|>',
  '<|transcribe|>',
  '<|startoflm|>',
  '<|startofprev|>',
  '<|nospeech|>',
  '<|notimestamps|>',
];
const PLAIN = [...WORD_TOKENS, BLANK];

function id(token: string): number {
  const plain = PLAIN.indexOf(token);
  if (plain >= 0) return plain;
  const special = SPECIAL.indexOf(token);
  if (special < 0) throw new Error(`no token ${token}`);
  return PLAIN.length + special;
}

const VOCAB_SIZE = PLAIN.length + SPECIAL.length;
const MEL_BINS = 80;
const FRAMES = 3000;
/** Voiced: within 20 dB of the loudest position (one unit of Whisper's normalized log-mel is 40 dB). */
const VOICED_WITHIN = 0.5;
/** And above -80 dB full scale, so digital silence (-1.5 everywhere) has no burst. */
const SILENCE = -1;

function vocab(): CountingVocab {
  const words: CountingVocab['words'] = {};
  let offset = 0;
  for (const lang of FIXTURE_LANGUAGES) {
    words[lang] = NUMBER_WORDS[lang].map((_, i) => offset + i);
    offset += NUMBER_WORDS[lang].length;
  }
  const languageOf = new Map<number, Partial<Record<string, number>>>([[id('<|startoftranscript|>'), { en: 1 }]]);
  for (const lang of FIXTURE_LANGUAGES) {
    if (lang !== 'en') languageOf.set(id(`<|${lang}|>`), { en: -1, [lang]: 1 });
  }
  return {
    size: VOCAB_SIZE,
    eos: id('<|endoftext|>'),
    promptEnd: id('<|notimestamps|>'),
    blank: id(BLANK),
    words,
    languageOf,
  };
}

/** input_features [1, 80, 3000] → last_hidden_state [1, 1500, 4] (20 ms per position, as Whisper's). */
function encoder(): Uint8Array {
  const g = new GraphBuilder('whisper_counting_encoder');
  const features = g.input('input_features', 'float', ['batch_size', MEL_BINS, FRAMES]);
  const peak = g.op('ReduceMax', [features], { axes: [1], keepdims: 1 });
  const level = g.op('MaxPool', [peak], { kernel_shape: [2], strides: [2] });
  const loudest = g.op('ReduceMax', [level], { axes: [2], keepdims: 1 });
  const floor = g.op('Max', [g.op('Sub', [loudest, g.floats([VOICED_WITHIN], [])]), g.floats([SILENCE], [])]);
  g.output('last_hidden_state', burstFeatures(g, level, floor), 'float', ['batch_size', FRAMES / 2, 4]);
  return encodeModel(g, { doc: 'earshot fixture: Whisper encoder interface, counts voiced bursts' });
}

function decoder(): Uint8Array {
  const g = new GraphBuilder('whisper_counting_decoder');
  countingDecoder(g, vocab());
  return encodeModel(g, { doc: 'earshot fixture: Whisper merged decoder interface, says the burst count' });
}

/** The files of `whisper-<size>` or `whisper-<size>.en`, fp32 and quantized names alike. */
export function whisperTinyFiles(multilingual: boolean): FixtureFiles {
  const tokens = whisperTokenizer(PLAIN, SPECIAL);
  const eot = id('<|endoftext|>');
  const sot = id('<|startoftranscript|>');
  const notimestamps = id('<|notimestamps|>');
  const config = {
    _name_or_path: 'earshot-fixture/whisper-counting',
    model_type: 'whisper',
    architectures: ['WhisperForConditionalGeneration'],
    is_encoder_decoder: true,
    d_model: 4,
    encoder_layers: 1,
    decoder_layers: 1,
    encoder_attention_heads: 1,
    decoder_attention_heads: 1,
    encoder_ffn_dim: 4,
    decoder_ffn_dim: 4,
    num_mel_bins: MEL_BINS,
    max_source_positions: FRAMES / 2,
    max_target_positions: 448,
    vocab_size: VOCAB_SIZE,
    bos_token_id: eot,
    eos_token_id: eot,
    pad_token_id: eot,
    decoder_start_token_id: sot,
    begin_suppress_tokens: [eot],
    use_cache: true,
  };
  const languages = multilingual ? Object.fromEntries(FIXTURE_LANGUAGES.map((l) => [`<|${l}|>`, id(`<|${l}|>`)])) : {};
  const generation = {
    bos_token_id: eot,
    eos_token_id: eot,
    pad_token_id: eot,
    decoder_start_token_id: sot,
    max_length: 448,
    begin_suppress_tokens: [eot],
    suppress_tokens: [id('<|startoflm|>'), id('<|startofprev|>'), id('<|nospeech|>')],
    no_timestamps_token_id: notimestamps,
    alignment_heads: [[0, 0]],
    is_multilingual: multilingual,
    ...(multilingual
      ? { lang_to_id: languages, task_to_id: { transcribe: id('<|transcribe|>'), translate: id('<|translate|>') } }
      : {}),
  };
  const enc = encoder();
  const dec = decoder();
  return {
    json: seq2seqJson(config, generation, WHISPER_PREPROCESSOR, tokens),
    graphs: { encoder_model: enc, decoder_model_merged: dec },
  };
}
