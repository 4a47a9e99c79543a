/**
 * The pre-LayerNorm transformer blocks Whisper and Moonshine share, and the
 * merged decoder graph transformers.js runs for both: the interface optimum
 * exports (`input_ids`, `encoder_hidden_states`, `past_key_values.*`,
 * `use_cache_branch` → `logits`, `present.*`), laid out as optimum merges a
 * decoder with its with-past twin: one `If` on `use_cache_branch` whose two
 * branches each hold the whole decoder, sharing the weights. Without past,
 * cross-attention keys and values are computed from the encoder and returned;
 * with past, they are read from the inputs and the outputs for them are
 * empty constants, which transformers.js replaces with the ones it fed (so no
 * step copies the encoder cache). Self-attention keys and values grow by the
 * new tokens each step.
 */
import type { Dim, GraphBuilder } from '../graph.js';
import { type Attention, applyRotary, causalPositions, type Rotary, rotaryTables } from './attention.js';
import { dimOf, type Embedding, type LayerNorm } from './layers.js';
import type { Net } from './net.js';

export type Ffn = (b: GraphBuilder, x: string) => string;

export interface EncoderBlock {
  attentionNorm: LayerNorm;
  attention: Attention;
  ffnNorm: LayerNorm;
  ffn: Ffn;
}

/** x + attention(norm(x)), then + ffn(norm(·)). */
export function encoderBlock(b: GraphBuilder, x: string, block: EncoderBlock, rotary?: Rotary): string {
  const attended = b.op('Add', [x, block.attention.self(b, block.attentionNorm.apply(b, x), rotary)]);
  return b.op('Add', [attended, block.ffn(b, block.ffnNorm.apply(b, attended))]);
}

export interface DecoderBlock {
  selfNorm: LayerNorm;
  self: Attention;
  crossNorm: LayerNorm;
  cross: Attention;
  ffnNorm: LayerNorm;
  ffn: Ffn;
}

export interface MergedDecoder {
  net: Net;
  dim: number;
  heads: number;
  vocab: number;
  /** Token embedding, tied to the output projection. */
  embedding: Embedding;
  /** Learned absolute positions [max_positions, dim] (Whisper). */
  positions?: string;
  /** Rotary positions in self-attention instead (Moonshine). */
  rotary?: { dims: number; theta: number };
  blocks: readonly DecoderBlock[];
  finalNorm: LayerNorm;
}

interface DecoderInputs {
  ids: string;
  encoder: string;
  past: { key: string; value: string; crossKey: string; crossValue: string }[];
}

/** The decoder's outputs by name, computed in `b` (one branch). */
function decoderBody(spec: MergedDecoder, b: GraphBuilder, io: DecoderInputs, withPast: boolean): Map<string, string> {
  const headDim = spec.dim / spec.heads;
  const out = new Map<string, string>();
  // The position offset is the cache's length, as in the real export; without past it is 0.
  const pastLength = withPast ? dimOf(b, io.past[0].key, 2) : b.ints([0]);
  const { mask, positions } = causalPositions(b, pastLength, dimOf(b, io.ids, 1));
  let h = spec.embedding.lookup(b, io.ids);
  if (spec.positions) h = b.op('Add', [h, b.op('Gather', [spec.positions, positions])]);
  const rotary = spec.rotary && rotaryTables(b, positions, spec.rotary.dims, headDim, spec.rotary.theta);
  // optimum's placeholder for an output the with-past decoder does not have: axis 0 empty, dynamic axes 1.
  const empty = withPast ? b.weight('empty_cache', new Float32Array(0), [0, spec.heads, 1, headDim]) : '';
  spec.blocks.forEach((block, i) => {
    const past = io.past[i];
    const x = block.selfNorm.apply(b, h);
    let q = block.self.query(b, x);
    let k = block.self.keys(b, x);
    if (rotary) {
      q = applyRotary(b, q, rotary);
      k = applyRotary(b, k, rotary);
    }
    const v = block.self.values(b, x);
    const key = withPast ? b.op('Concat', [past.key, k], { axis: 2 }) : k;
    const value = withPast ? b.op('Concat', [past.value, v], { axis: 2 }) : v;
    h = b.op('Add', [h, block.self.attend(b, q, key, value, mask)]);
    const crossKey = withPast ? past.crossKey : block.cross.keys(b, io.encoder);
    const crossValue = withPast ? past.crossValue : block.cross.values(b, io.encoder);
    const crossQuery = block.cross.query(b, block.crossNorm.apply(b, h));
    h = b.op('Add', [h, block.cross.attend(b, crossQuery, crossKey, crossValue)]);
    h = b.op('Add', [h, block.ffn(b, block.ffnNorm.apply(b, h))]);
    out.set(`present.${i}.decoder.key`, key);
    out.set(`present.${i}.decoder.value`, value);
    out.set(`present.${i}.encoder.key`, withPast ? empty : crossKey);
    out.set(`present.${i}.encoder.value`, withPast ? empty : crossValue);
  });
  out.set('logits', spec.embedding.logits(b, spec.finalNorm.apply(b, h)));
  return out;
}

/** Builds the merged decoder into `spec.net.g`. */
export function mergedDecoder(spec: MergedDecoder): void {
  const g = spec.net.g;
  const headDim = spec.dim / spec.heads;
  const batch = 'batch_size';
  const cacheDims = (length: string): Dim[] => [batch, spec.heads, length, headDim];
  const ids = g.input('input_ids', 'int64', [batch, 'decoder_sequence_length']);
  const encoder = g.input('encoder_hidden_states', 'float', [batch, 'encoder_sequence_length', spec.dim]);
  const past = spec.blocks.map((_, i) => {
    const name = (side: string, kv: string): string => `past_key_values.${i}.${side}.${kv}`;
    const decoderDims = cacheDims('past_decoder_sequence_length');
    const encoderDims = cacheDims('encoder_sequence_length_out');
    return {
      key: g.input(name('decoder', 'key'), 'float', decoderDims),
      value: g.input(name('decoder', 'value'), 'float', decoderDims),
      crossKey: g.input(name('encoder', 'key'), 'float', encoderDims),
      crossValue: g.input(name('encoder', 'value'), 'float', encoderDims),
    };
  });
  const useCache = g.input('use_cache_branch', 'bool', [1]);

  const dims = new Map<string, Dim[]>([['logits', [batch, 'decoder_sequence_length', spec.vocab]]]);
  spec.blocks.forEach((_, i) => {
    for (const kv of ['key', 'value']) {
      dims.set(`present.${i}.decoder.${kv}`, cacheDims('present_decoder_sequence_length'));
      dims.set(`present.${i}.encoder.${kv}`, cacheDims('encoder_sequence_length_out'));
    }
  });
  const branches = [true, false].map((withPast) => {
    const branch = g.branch(withPast ? 'with_past' : 'no_past');
    const values = decoderBody(spec, branch, { ids, encoder, past }, withPast);
    for (const [name, d] of dims) branch.output(`${branch.name}/${name}`, values.get(name)!, 'float', d);
    return branch;
  });
  const results = g.opN('If', [useCache], dims.size, { then_branch: branches[0], else_branch: branches[1] });
  [...dims].forEach(([name, d], i) => {
    g.output(name, results[i], 'float', d);
  });
}
