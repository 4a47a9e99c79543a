/**
 * Kokoro-82M v1.0 (StyleTTS 2 + iSTFTNet) at its real sizes, as the one graph
 * kokoro-js runs: `input_ids` [1, L], `style` [1, 256], `speed` [1] →
 * `waveform` [samples] at 24 kHz. The ALBERT text encoder (12 layers sharing
 * one set of weights), the prosody predictor (duration encoder of three
 * BiLSTMs with AdaLayerNorm, duration LSTM and projection, the shared LSTM and
 * the pitch and energy AdainResBlk1d stacks), the CNN + BiLSTM text encoder
 * and the decoder (kokoro-decoder.ts) are all there with Kokoro's dimensions.
 *
 * Approximated: the durations. Random weights would predict anything, so
 * each token lasts 3 frames (75 ms) / speed, nudged by at most ±0.4 frame by
 * the duration predictor's output before rounding: the predictor runs and
 * matters, the audio length stays that of ordinary speech. ALBERT's GELU is
 * the exact one, not the tanh approximation.
 */
import type { ModelSpec } from '../../models/registry.js';
import type { FixtureFiles } from '../files.js';
import { encodeModel, type GraphBuilder } from '../graph.js';
import { kokoroTokenizer, kokoroVocabSize } from '../tokenizers.js';
import { Attention } from './attention.js';
import { adainResBlk, adaLayerNorm, biLstm, leakyRelu, type StyledOp } from './kokoro-blocks.js';
import { kokoroDecoder, SAMPLE_RATE_HZ } from './kokoro-decoder.js';
import { conv1d, dimOf, gelu, layerNorm, linear } from './layers.js';
import { type GraphSet, Net, type Precision } from './net.js';

/** Kokoro's symbol table has 178 ids (ours uses fewer of them). */
const VOCAB = 178;
const ALBERT = { embedding: 128, hidden: 768, heads: 12, intermediate: 2048, layers: 12, positions: 512 };
const HIDDEN = 512;
const STYLE = 128;
const MAX_DURATION_FRAMES = 50;
const FRAMES_PER_TOKEN = 3;
const DURATION_NUDGE_FRAMES = 0.4;

type Encoder = (b: GraphBuilder, ids: string) => string;

/** ids [1, L] → [1, L, 768]: embeddings 128 wide, mapped to 768, one post-LN layer applied 12 times. */
function albert(net: Net): Encoder {
  const p = 'bert';
  const bound = 1 / Math.sqrt(ALBERT.embedding);
  const words = net.param(`${p}.embeddings.word_embeddings.weight`, [VOCAB, ALBERT.embedding], bound);
  const positions = net.param(
    `${p}.embeddings.position_embeddings.weight`,
    [ALBERT.positions, ALBERT.embedding],
    bound,
  );
  const types = net.param(`${p}.embeddings.token_type_embeddings.weight`, [2, ALBERT.embedding], bound);
  const embeddingNorm = layerNorm(net, `${p}.embeddings.LayerNorm`, ALBERT.embedding);
  const mapIn = linear(net, `${p}.encoder.embedding_hidden_mapping_in`, ALBERT.embedding, ALBERT.hidden);
  const l = `${p}.encoder.albert_layer_groups.0.albert_layers.0`;
  const bias = { q: true, k: true, v: true, o: true };
  const attention = new Attention(net, `${l}.attention`, ALBERT.hidden, ALBERT.heads, bias);
  const attentionNorm = layerNorm(net, `${l}.attention.LayerNorm`, ALBERT.hidden);
  const ffn = linear(net, `${l}.ffn`, ALBERT.hidden, ALBERT.intermediate);
  const ffnOut = linear(net, `${l}.ffn_output`, ALBERT.intermediate, ALBERT.hidden);
  const ffnNorm = layerNorm(net, `${l}.full_layer_layer_norm`, ALBERT.hidden);
  return (b, ids) => {
    const length = dimOf(b, ids, 1);
    const used = b.op('Slice', [positions, b.ints([0]), length, b.ints([0])]);
    const typeZero = b.op('Slice', [types, b.ints([0]), b.ints([1]), b.ints([0])]);
    const embedded = b.op('Add', [b.op('Add', [b.op('Gather', [words, ids]), used]), typeZero]);
    let h = mapIn.apply(b, embeddingNorm.apply(b, embedded));
    for (let i = 0; i < ALBERT.layers; i++) {
      h = attentionNorm.apply(b, b.op('Add', [h, attention.self(b, h)]));
      h = ffnNorm.apply(b, b.op('Add', [h, ffnOut.apply(b, gelu(b, ffn.apply(b, h)))]));
    }
    return h;
  };
}

/** ids [1, L] → [1, 512, L]: embedding, three conv + LayerNorm + LeakyReLU, a BiLSTM. */
function textEncoder(net: Net): Encoder {
  const p = 'text_encoder';
  const table = net.param(`${p}.embedding.weight`, [VOCAB, HIDDEN], 1 / Math.sqrt(HIDDEN));
  const cnn = [0, 1, 2].map((i) => ({
    conv: conv1d(net, `${p}.cnn.${i}.0`, HIDDEN, HIDDEN, 5, { pad: 2 }),
    norm: layerNorm(net, `${p}.cnn.${i}.1`, HIDDEN),
  }));
  const lstm = biLstm(net, `${p}.lstm`, HIDDEN, HIDDEN / 2);
  return (b, ids) => {
    let x = b.op('Transpose', [b.op('Gather', [table, ids])], { perm: [0, 2, 1] });
    for (const { conv, norm } of cnn) {
      const normalized = norm.apply(b, b.op('Transpose', [conv.apply(b, x)], { perm: [0, 2, 1] }));
      x = b.op('Transpose', [leakyRelu(b, normalized, 0.2)], { perm: [0, 2, 1] });
    }
    return b.op('Transpose', [lstm(b, b.op('Transpose', [x], { perm: [0, 2, 1] }))], { perm: [0, 2, 1] });
  };
}

/** The style [1, 128] repeated along x's time axis: [1, L, 128]. */
function styleAlong(b: GraphBuilder, x: string, style: string): string {
  const shape = b.op('Concat', [b.ints([1]), dimOf(b, x, 1), b.ints([STYLE])], { axis: 0 });
  return b.op('Expand', [b.op('Unsqueeze', [style, b.ints([1])]), shape]);
}

/** [1, L, 512] and the prosody style → [1, L, 640]: three BiLSTM + AdaLayerNorm layers, style appended to each. */
function durationEncoder(net: Net): StyledOp {
  const layers = [0, 1, 2].map((i) => ({
    lstm: biLstm(net, `predictor.text_encoder.lstms.${2 * i}`, HIDDEN + STYLE, HIDDEN / 2),
    norm: adaLayerNorm(net, `predictor.text_encoder.lstms.${2 * i + 1}`, STYLE, HIDDEN),
  }));
  return (b, x, style) => {
    const repeated = styleAlong(b, x, style);
    let h = b.op('Concat', [x, repeated], { axis: 2 });
    for (const { lstm, norm } of layers) h = b.op('Concat', [norm(b, lstm(b, h), style), repeated], { axis: 2 });
    return h;
  };
}

/** [1, 512, frames] → pitch or energy [1, 1, 2·frames]: three AdainResBlk1d (the second upsamples), a 1×1 conv. */
function prosodyCurve(net: Net, name: string): StyledOp {
  const p = `predictor.${name}`;
  const blocks = [
    adainResBlk(net, `${p}.0`, HIDDEN, HIDDEN, STYLE),
    adainResBlk(net, `${p}.1`, HIDDEN, HIDDEN / 2, STYLE, true),
    adainResBlk(net, `${p}.2`, HIDDEN / 2, HIDDEN / 2, STYLE),
  ];
  const project = conv1d(net, `predictor.${name}_proj`, HIDDEN / 2, 1, 1);
  return (b, x, style) =>
    project.apply(
      b,
      blocks.reduce((h, block) => block(b, h, style), x),
    );
}

/**
 * Frames per token from the duration predictor's features [1, L, 512]
 * (see the note at the top), and for each output frame the token it
 * shows: Kokoro's repeat_interleave of the token axis, as indices [frames].
 */
function alignment(net: Net): (b: GraphBuilder, features: string, speed: string) => string {
  const project = linear(net, 'predictor.duration_proj.linear_layer', HIDDEN, MAX_DURATION_FRAMES);
  return (b, features, speed) => {
    const predicted = b.op('Div', [
      b.op('ReduceSum', [b.op('Sigmoid', [project.apply(b, features)]), b.ints([2])], { keepdims: 0 }),
      speed,
    ]);
    const centered = b.op('Sub', [predicted, b.op('ReduceMean', [predicted], { axes: [1], keepdims: 1 })]);
    const nudge = b.op('Mul', [b.op('Tanh', [centered]), b.floats([DURATION_NUDGE_FRAMES], [])]);
    const frames = b.op('Add', [b.op('Div', [b.floats([FRAMES_PER_TOKEN], []), speed]), nudge]);
    const whole = b.op('Cast', [b.op('Max', [b.op('Round', [frames]), b.floats([1], [])])], { to: 7 });
    const ends = b.op('CumSum', [b.op('Reshape', [whole, b.ints([-1])]), b.ints([0], [])]);
    const total = b.op('ReduceSum', [whole], { keepdims: 0 });
    const frame = b.op('Range', [
      b.weight('zero', BigInt64Array.of(0n), []),
      total,
      b.weight('one', BigInt64Array.of(1n), []),
    ]);
    const passed = b.op('GreaterOrEqual', [
      b.op('Unsqueeze', [frame, b.ints([1])]),
      b.op('Unsqueeze', [ends, b.ints([0])]),
    ]);
    return b.op('ReduceSum', [b.op('Cast', [passed], { to: 7 }), b.ints([1])], { keepdims: 0 });
  };
}

function kokoroModel(net: Net): void {
  const g = net.g;
  const ids = g.input('input_ids', 'int64', [1, 'sequence_length']);
  const style = g.input('style', 'float', [1, 2 * STYLE]);
  const speed = g.input('speed', 'float', [1]);
  const bert = albert(net);
  const bertEncoder = linear(net, 'bert_encoder', ALBERT.hidden, HIDDEN);
  const encodeDurations = durationEncoder(net);
  const durationLstm = biLstm(net, 'predictor.lstm', HIDDEN + STYLE, HIDDEN / 2);
  const align = alignment(net);
  const shared = biLstm(net, 'predictor.shared', HIDDEN + STYLE, HIDDEN / 2);
  const pitch = prosodyCurve(net, 'F0');
  const energy = prosodyCurve(net, 'N');
  const text = textEncoder(net);
  const decode = kokoroDecoder(net, HIDDEN, STYLE);

  // The voice's 256 values: the decoder's style first, the prosody's second.
  const [decoderStyle, prosodyStyle] = g.opN('Split', [style, g.ints([STYLE, STYLE])], 2, { axis: 1 });
  const d = encodeDurations(g, bertEncoder.apply(g, bert(g, ids)), prosodyStyle);
  const tokenOfFrame = align(g, durationLstm(g, d), speed);
  const aligned = g.op('Gather', [d, tokenOfFrame], { axis: 1 });
  const prosody = g.op('Transpose', [shared(g, aligned)], { perm: [0, 2, 1] });
  const f0 = pitch(g, prosody, prosodyStyle);
  const n = energy(g, prosody, prosodyStyle);
  const asr = g.op('Gather', [text(g, ids), tokenOfFrame], { axis: 2 });
  const audio = decode(g, asr, f0, n, decoderStyle);
  g.output('waveform', g.op('Reshape', [audio, g.ints([-1])]), 'float', ['num_samples']);
}

export function kokoroGraphs(precision: Precision, seed: number, dry = false): GraphSet {
  const net = new Net('kokoro', precision, seed, dry);
  kokoroModel(net);
  const doc = `earshot full-size fixture: Kokoro-82M architecture, seeded random weights (${precision})`;
  return { parameters: net.parameters, graphs: dry ? {} : { model: encodeModel(net.g, { doc }) } };
}

export function kokoroFullFiles(_model: ModelSpec, precision: Precision, seed: number): FixtureFiles {
  const tokens = kokoroTokenizer();
  const config = {
    _name_or_path: 'earshot-fixture/kokoro-82m-full',
    model_type: 'style_text_to_speech_2',
    architectures: ['StyleTextToSpeech2Model'],
    vocab_size: kokoroVocabSize(),
    n_token: VOCAB,
    hidden_dim: HIDDEN,
    style_dim: STYLE,
    max_dur: MAX_DURATION_FRAMES,
    n_layer: 3,
    sampling_rate: SAMPLE_RATE_HZ,
    plbert: {
      hidden_size: ALBERT.hidden,
      num_attention_heads: ALBERT.heads,
      intermediate_size: ALBERT.intermediate,
      max_position_embeddings: ALBERT.positions,
      num_hidden_layers: ALBERT.layers,
    },
    istftnet: {
      upsample_rates: [10, 6],
      upsample_kernel_sizes: [20, 12],
      upsample_initial_channel: 512,
      resblock_kernel_sizes: [3, 7, 11],
      resblock_dilation_sizes: [
        [1, 3, 5],
        [1, 3, 5],
        [1, 3, 5],
      ],
      gen_istft_n_fft: 20,
      gen_istft_hop_size: 5,
    },
  };
  return {
    json: {
      'config.json': config,
      'tokenizer.json': tokens.tokenizer,
      'tokenizer_config.json': tokens.tokenizerConfig,
    },
    graphs: kokoroGraphs(precision, seed).graphs,
  };
}
