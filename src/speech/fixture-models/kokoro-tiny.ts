/**
 * A Kokoro-shaped fixture: the graph kokoro-js runs (`input_ids` [1, L],
 * `style` [1, 256], `speed` [1] → `waveform`), speaking one 100 ms tone per
 * phoneme token, so a test can read the token sequence back out of the audio:
 * token id k sounds at 300 + 15·k Hz (`$`, the padding token, is silence).
 * `speed` shortens the audio as it does Kokoro's; the voice's style vector
 * sets the loudness, so a voice change is audible too.
 */
import type { FixtureFiles } from './files.js';
import { encodeModel, GraphBuilder } from './graph.js';
import { kokoroTokenizer, kokoroVocabSize } from './tokenizers.js';

export const KOKORO_FIXTURE_RATE = 24000;
/** Samples per token at speed 1: 100 ms. */
export const KOKORO_TOKEN_SAMPLES = 2400;
const FADE_SAMPLES = 240;

export function kokoroToneHz(tokenId: number): number {
  return 300 + 15 * tokenId;
}

function toneTable(vocabSize: number): Float32Array {
  const table = new Float32Array(vocabSize * KOKORO_TOKEN_SAMPLES);
  for (let id = 1; id < vocabSize; id++) {
    const hz = kokoroToneHz(id);
    for (let i = 0; i < KOKORO_TOKEN_SAMPLES; i++) {
      const edge = Math.min(i, KOKORO_TOKEN_SAMPLES - 1 - i);
      const fade = Math.min(1, edge / FADE_SAMPLES);
      table[id * KOKORO_TOKEN_SAMPLES + i] = fade * Math.sin((2 * Math.PI * hz * i) / KOKORO_FIXTURE_RATE);
    }
  }
  return table;
}

function model(): Uint8Array {
  const vocabSize = kokoroVocabSize();
  const g = new GraphBuilder('kokoro_tone_model');
  const ids = g.input('input_ids', 'int64', [1, 'sequence_length']);
  const style = g.input('style', 'float', [1, 256]);
  const speed = g.input('speed', 'float', [1]);
  const tones = g.op('Gather', [g.weight('tones', toneTable(vocabSize), [vocabSize, KOKORO_TOKEN_SAMPLES]), ids]);
  const line = g.op('Reshape', [tones, g.ints([1, 1, -1])]);
  // Nearest-neighbour resampling by 1/speed: faster speech is shorter (and higher, unlike Kokoro's).
  const scales = g.op('Concat', [g.floats([1, 1]), g.op('Div', [g.floats([1], [1]), speed])], { axis: 0 });
  const paced = g.op('Resize', [line, '', scales], { mode: 'nearest' });
  // Loudness 0.15–0.35 by the voice's style vector.
  const tone = g.op('Tanh', [
    g.op('Mul', [g.op('ReduceMean', [style], { axes: [1], keepdims: 0 }), g.floats([10], [])]),
  ]);
  const gain = g.op('Add', [g.op('Mul', [tone, g.floats([0.1], [])]), g.floats([0.25], [])]);
  const waveform = g.op('Mul', [g.op('Reshape', [paced, g.ints([-1])]), gain]);
  g.output('waveform', waveform, 'float', ['num_samples']);
  return encodeModel(g, { doc: 'earshot fixture: Kokoro (StyleTTS 2) interface, one tone per phoneme token' });
}

export function kokoroTinyFiles(): FixtureFiles {
  const tokens = kokoroTokenizer();
  const config = {
    _name_or_path: 'earshot-fixture/kokoro-tones',
    model_type: 'style_text_to_speech_2',
    architectures: ['StyleTextToSpeech2Model'],
    vocab_size: kokoroVocabSize(),
    sampling_rate: KOKORO_FIXTURE_RATE,
    style_dim: 128,
  };
  return {
    json: {
      'config.json': config,
      'tokenizer.json': tokens.tokenizer,
      'tokenizer_config.json': tokens.tokenizerConfig,
    },
    graphs: { model: model() },
  };
}
