/**
 * Whisper at its real sizes: the encoder (two convolutions over the log-mel
 * frames, learned positions, pre-LN blocks) and the merged decoder (tied
 * token embedding, learned positions, causal self-attention over the cache,
 * cross-attention, GELU FFN), with OpenAI's dimensions and biases (k_proj has
 * none). The encoder's positions are sinusoidal in the real model; here they
 * are random like every other weight, which costs the same.
 */
import type { ModelSpec } from '../../models/registry.js';
import type { FixtureFiles } from '../files.js';
import { type TokenizerFiles, whisperTokenizer } from '../tokenizers.js';
import { Attention } from './attention.js';
import { conv1d, Embedding, gelu, layerNorm, linear } from './layers.js';
import { type GraphSet, Net, type Precision, seq2seqGraphs } from './net.js';
import { type DecoderBlock, type EncoderBlock, encoderBlock, type Ffn, mergedDecoder } from './transformer.js';
import {
  MEL_BINS,
  MEL_FRAMES,
  SOURCE_POSITIONS,
  TARGET_POSITIONS,
  type WhisperDims,
  whisperDims,
  whisperJson,
} from './whisper-config.js';
import { whisperVocab } from './tokens.js';

/** With bias everywhere but the keys, as OpenAI's Whisper. */
const WHISPER_BIAS = { q: true, k: false, v: true, o: true };

function ffn(net: Net, prefix: string, d: WhisperDims): Ffn {
  const fc1 = linear(net, `${prefix}.fc1`, d.dModel, d.ffn);
  const fc2 = linear(net, `${prefix}.fc2`, d.ffn, d.dModel);
  return (b, x) => fc2.apply(b, gelu(b, fc1.apply(b, x)));
}

/** input_features [batch, 80, 3000] → last_hidden_state [batch, 1500, d_model]. */
export function whisperEncoder(net: Net, d: WhisperDims): void {
  const g = net.g;
  const features = g.input('input_features', 'float', ['batch_size', MEL_BINS, MEL_FRAMES]);
  const conv1 = conv1d(net, 'encoder.conv1', MEL_BINS, d.dModel, 3, { pad: 1 });
  const conv2 = conv1d(net, 'encoder.conv2', d.dModel, d.dModel, 3, { pad: 1, stride: 2 });
  const positions = net.param('encoder.embed_positions.weight', [SOURCE_POSITIONS, d.dModel], 1);
  const frames = gelu(g, conv2.apply(g, gelu(g, conv1.apply(g, features))));
  let h = g.op('Add', [g.op('Transpose', [frames], { perm: [0, 2, 1] }), positions]);
  for (let i = 0; i < d.layers; i++) {
    const p = `encoder.layers.${i}`;
    const block: EncoderBlock = {
      attentionNorm: layerNorm(net, `${p}.self_attn_layer_norm`, d.dModel),
      attention: new Attention(net, `${p}.self_attn`, d.dModel, d.heads, WHISPER_BIAS),
      ffnNorm: layerNorm(net, `${p}.final_layer_norm`, d.dModel),
      ffn: ffn(net, p, d),
    };
    h = encoderBlock(g, h, block);
  }
  const out = layerNorm(net, 'encoder.layer_norm', d.dModel).apply(g, h);
  g.output('last_hidden_state', out, 'float', ['batch_size', SOURCE_POSITIONS, d.dModel]);
}

export function whisperDecoder(net: Net, d: WhisperDims, vocab: number): void {
  const embedding = new Embedding(net, 'decoder.embed_tokens', vocab, d.dModel);
  const positions = net.param('decoder.embed_positions.weight', [TARGET_POSITIONS, d.dModel], 1 / Math.sqrt(d.dModel));
  const blocks: DecoderBlock[] = [];
  for (let i = 0; i < d.layers; i++) {
    const p = `decoder.layers.${i}`;
    blocks.push({
      selfNorm: layerNorm(net, `${p}.self_attn_layer_norm`, d.dModel),
      self: new Attention(net, `${p}.self_attn`, d.dModel, d.heads, WHISPER_BIAS),
      crossNorm: layerNorm(net, `${p}.encoder_attn_layer_norm`, d.dModel),
      cross: new Attention(net, `${p}.encoder_attn`, d.dModel, d.heads, WHISPER_BIAS),
      ffnNorm: layerNorm(net, `${p}.final_layer_norm`, d.dModel),
      ffn: ffn(net, p, d),
    });
  }
  const finalNorm = layerNorm(net, 'decoder.layer_norm', d.dModel);
  mergedDecoder({ net, dim: d.dModel, heads: d.heads, vocab, embedding, positions, blocks, finalNorm });
}

/** Both graphs, encoded unless `dry` (then only counted). */
export function whisperGraphs(model: ModelSpec, precision: Precision, seed: number, dry = false): GraphSet {
  const d = whisperDims(model);
  const vocab = whisperVocab(d.multilingual).size;
  const encoder = new Net('whisper_encoder', precision, seed, dry);
  whisperEncoder(encoder, d);
  const decoder = new Net('whisper_decoder_merged', precision, seed + 1, dry);
  whisperDecoder(decoder, d, vocab);
  return seq2seqGraphs(model.name, precision, encoder, decoder, dry);
}

/** Spelling 50k tokens byte-level takes a second or two: once per vocabulary, not per dtype. */
const tokenizers = new Map<boolean, TokenizerFiles>();

export function whisperFullFiles(model: ModelSpec, precision: Precision, seed: number): FixtureFiles {
  const d = whisperDims(model);
  const vocab = whisperVocab(d.multilingual);
  let tokens = tokenizers.get(d.multilingual);
  if (!tokens) {
    tokens = whisperTokenizer(vocab.plain, vocab.special);
    tokenizers.set(d.multilingual, tokens);
  }
  return {
    json: whisperJson(model, d, vocab, tokens),
    graphs: whisperGraphs(model, precision, seed).graphs,
  };
}
