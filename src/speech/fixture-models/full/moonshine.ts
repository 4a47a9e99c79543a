/**
 * Moonshine at its real sizes (Useful Sensors' tiny and base): the encoder
 * runs on raw 16 kHz samples (three strided convolutions, 64·3·2 = 384
 * samples per position, then pre-LN blocks with rotary attention on 90 % of
 * each head), the merged decoder has a tied embedding, rotary self-attention
 * over the cache, cross-attention and a SwiGLU FFN. No biases in attention
 * or layer norms, as in the real model.
 */
import type { ModelSpec } from '../../models/registry.js';
import { type FixtureFiles, MOONSHINE_PREPROCESSOR, seq2seqJson } from '../files.js';
import type { GraphBuilder } from '../graph.js';
import { moonshineTokenizer } from '../tokenizers.js';
import { Attention, rotaryTables } from './attention.js';
import { conv1d, dimOf, Embedding, gelu, layerNorm, linear, silu } from './layers.js';
import { type GraphSet, Net, type Precision, seq2seqGraphs } from './net.js';
import { syntheticWords } from './tokens.js';
import { type DecoderBlock, encoderBlock, type Ffn, mergedDecoder } from './transformer.js';

interface MoonshineDims {
  hidden: number;
  layers: number;
  heads: number;
  intermediate: number;
}

const SIZES: Record<string, MoonshineDims> = {
  'moonshine-tiny': { hidden: 288, layers: 6, heads: 8, intermediate: 1152 },
  'moonshine-base': { hidden: 416, layers: 8, heads: 8, intermediate: 1664 },
};

const VOCAB_SIZE = 32768;
const BOS = 1;
const EOS = 2;
const MAX_POSITIONS = 194;
const ROPE_THETA = 10000;
const PARTIAL_ROTARY = 0.9;
const NO_BIAS = { q: false, k: false, v: false, o: false };

function dimsOf(model: ModelSpec): MoonshineDims {
  const dims = SIZES[model.name];
  if (!dims) throw new Error(`no full-size dimensions for ${model.name}`);
  return dims;
}

function rotaryDims(d: MoonshineDims): number {
  const dims = Math.floor((d.hidden / d.heads) * PARTIAL_ROTARY);
  return dims - (dims % 2);
}

/**
 * GroupNorm with one group: normalize over channels and time together.
 * GroupNormalization is opset 18; InstanceNormalization over a [batch, 1,
 * channels·time] view computes the same statistics in opset 17.
 */
function groupNormOneGroup(net: Net, b: GraphBuilder, x: string, channels: number): string {
  const gamma = net.filled('encoder.groupnorm.weight', [channels, 1], 1);
  const beta = net.filled('encoder.groupnorm.bias', [channels, 1], 0);
  const flat = b.op('Reshape', [x, b.ints([0, 1, -1])]);
  const normalized = b.op('InstanceNormalization', [flat, b.floats([1]), b.floats([0])], { epsilon: { float: 1e-5 } });
  const restored = b.op('Reshape', [normalized, b.op('Shape', [x])]);
  return b.op('Add', [b.op('Mul', [restored, gamma]), beta]);
}

/** input_values [batch, samples] → last_hidden_state [batch, positions, hidden]. */
function moonshineEncoder(net: Net, d: MoonshineDims): void {
  const g = net.g;
  const samples = g.input('input_values', 'float', ['batch_size', 'num_samples']);
  const conv1 = conv1d(net, 'encoder.conv1', 1, d.hidden, 127, { stride: 64, bias: false });
  const conv2 = conv1d(net, 'encoder.conv2', d.hidden, 2 * d.hidden, 7, { stride: 3 });
  const conv3 = conv1d(net, 'encoder.conv3', 2 * d.hidden, d.hidden, 3, { stride: 2 });
  const wave = g.op('Unsqueeze', [samples, g.ints([1])]);
  const first = groupNormOneGroup(net, g, g.op('Tanh', [conv1.apply(g, wave)]), d.hidden);
  const frames = gelu(g, conv3.apply(g, gelu(g, conv2.apply(g, first))));
  let h = g.op('Transpose', [frames], { perm: [0, 2, 1] });
  const zero = g.weight('zero', BigInt64Array.of(0n), []);
  const one = g.weight('one', BigInt64Array.of(1n), []);
  const length = g.op('Squeeze', [dimOf(g, h, 1), g.ints([0])]);
  const positions = g.op('Range', [zero, length, one]);
  const rotary = rotaryTables(g, positions, rotaryDims(d), d.hidden / d.heads, ROPE_THETA);
  for (let i = 0; i < d.layers; i++) {
    const p = `encoder.layers.${i}`;
    const fc1 = linear(net, `${p}.mlp.fc1`, d.hidden, d.intermediate);
    const fc2 = linear(net, `${p}.mlp.fc2`, d.intermediate, d.hidden);
    const block = {
      attentionNorm: layerNorm(net, `${p}.input_layernorm`, d.hidden, false),
      attention: new Attention(net, `${p}.self_attn`, d.hidden, d.heads, NO_BIAS),
      ffnNorm: layerNorm(net, `${p}.post_attention_layernorm`, d.hidden, false),
      ffn: ((b, x) => fc2.apply(b, gelu(b, fc1.apply(b, x)))) satisfies Ffn,
    };
    h = encoderBlock(g, h, block, rotary);
  }
  const out = layerNorm(net, 'encoder.layer_norm', d.hidden, false).apply(g, h);
  g.output('last_hidden_state', out, 'float', ['batch_size', 'encoder_sequence_length', d.hidden]);
}

/** fc1 to twice the width, one half gating the other through SiLU, fc2 back. */
function swiglu(net: Net, prefix: string, d: MoonshineDims): Ffn {
  const fc1 = linear(net, `${prefix}.mlp.fc1`, d.hidden, 2 * d.intermediate);
  const fc2 = linear(net, `${prefix}.mlp.fc2`, d.intermediate, d.hidden);
  return (b, x) => {
    const [value, gate] = b.opN('Split', [fc1.apply(b, x), b.ints([d.intermediate, d.intermediate])], 2, {
      axis: -1,
    });
    return fc2.apply(b, b.op('Mul', [value, silu(b, gate)]));
  };
}

function moonshineDecoder(net: Net, d: MoonshineDims): void {
  const embedding = new Embedding(net, 'decoder.embed_tokens', VOCAB_SIZE, d.hidden);
  const blocks: DecoderBlock[] = [];
  for (let i = 0; i < d.layers; i++) {
    const p = `decoder.layers.${i}`;
    blocks.push({
      selfNorm: layerNorm(net, `${p}.input_layernorm`, d.hidden, false),
      self: new Attention(net, `${p}.self_attn`, d.hidden, d.heads, NO_BIAS),
      crossNorm: layerNorm(net, `${p}.post_attention_layernorm`, d.hidden, false),
      cross: new Attention(net, `${p}.encoder_attn`, d.hidden, d.heads, NO_BIAS),
      ffnNorm: layerNorm(net, `${p}.final_layernorm`, d.hidden, false),
      ffn: swiglu(net, p, d),
    });
  }
  mergedDecoder({
    net,
    dim: d.hidden,
    heads: d.heads,
    vocab: VOCAB_SIZE,
    embedding,
    rotary: { dims: rotaryDims(d), theta: ROPE_THETA },
    blocks,
    finalNorm: layerNorm(net, 'decoder.norm', d.hidden, false),
  });
}

export function moonshineGraphs(model: ModelSpec, precision: Precision, seed: number, dry = false): GraphSet {
  const d = dimsOf(model);
  const encoder = new Net('moonshine_encoder', precision, seed, dry);
  moonshineEncoder(encoder, d);
  const decoder = new Net('moonshine_decoder_merged', precision, seed + 1, dry);
  moonshineDecoder(decoder, d);
  return seq2seqGraphs(model.name, precision, encoder, decoder, dry);
}

export function moonshineFullFiles(model: ModelSpec, precision: Precision, seed: number): FixtureFiles {
  const d = dimsOf(model);
  const tokens = moonshineTokenizer(syntheticWords(VOCAB_SIZE - 3));
  const config = {
    _name_or_path: `earshot-fixture/${model.name}-full`,
    model_type: 'moonshine',
    architectures: ['MoonshineForConditionalGeneration'],
    is_encoder_decoder: true,
    hidden_size: d.hidden,
    intermediate_size: d.intermediate,
    encoder_num_hidden_layers: d.layers,
    decoder_num_hidden_layers: d.layers,
    encoder_num_attention_heads: d.heads,
    decoder_num_attention_heads: d.heads,
    encoder_num_key_value_heads: d.heads,
    decoder_num_key_value_heads: d.heads,
    encoder_hidden_act: 'gelu',
    decoder_hidden_act: 'silu',
    attention_bias: false,
    partial_rotary_factor: PARTIAL_ROTARY,
    rope_theta: ROPE_THETA,
    max_position_embeddings: MAX_POSITIONS,
    tie_word_embeddings: true,
    vocab_size: VOCAB_SIZE,
    bos_token_id: BOS,
    eos_token_id: EOS,
    decoder_start_token_id: BOS,
    use_cache: true,
  };
  const generation = { bos_token_id: BOS, eos_token_id: EOS, decoder_start_token_id: BOS, max_length: MAX_POSITIONS };
  return {
    json: seq2seqJson(config, generation, MOONSHINE_PREPROCESSOR, tokens),
    graphs: moonshineGraphs(model, precision, seed).graphs,
  };
}
