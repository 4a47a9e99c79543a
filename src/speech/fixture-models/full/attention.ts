/**
 * Multi-head attention as the exporters write it out (projections, heads
 * split by Reshape + Transpose, softmax(q·kᵀ/√d + mask)·v, heads merged, the
 * output projection), the decoder's causal mask over past + new positions,
 * and rotary position embeddings.
 */
import type { GraphBuilder } from '../graph.js';
import { type Linear, linear } from './layers.js';
import type { Net } from './net.js';

export interface AttentionBias {
  q: boolean;
  k: boolean;
  v: boolean;
  o: boolean;
}

export class Attention {
  readonly headDim: number;
  private readonly q: Linear;
  private readonly k: Linear;
  private readonly v: Linear;
  private readonly o: Linear;

  constructor(
    net: Net,
    prefix: string,
    readonly dim: number,
    readonly heads: number,
    bias: AttentionBias,
  ) {
    this.headDim = dim / heads;
    this.q = linear(net, `${prefix}.q_proj`, dim, dim, bias.q);
    this.k = linear(net, `${prefix}.k_proj`, dim, dim, bias.k);
    this.v = linear(net, `${prefix}.v_proj`, dim, dim, bias.v);
    this.o = linear(net, `${prefix}.out_proj`, dim, dim, bias.o);
  }

  /** [batch, seq, dim] → the scaled queries [batch, heads, seq, head_dim]. */
  query(b: GraphBuilder, x: string): string {
    return b.op('Mul', [this.split(b, this.q.apply(b, x)), b.floats([1 / Math.sqrt(this.headDim)], [])]);
  }

  keys(b: GraphBuilder, x: string): string {
    return this.split(b, this.k.apply(b, x));
  }

  values(b: GraphBuilder, x: string): string {
    return this.split(b, this.v.apply(b, x));
  }

  /** softmax(q·kᵀ + mask)·v with the heads merged and projected: [batch, seq, dim]. */
  attend(b: GraphBuilder, q: string, k: string, v: string, mask?: string): string {
    let scores = b.op('MatMul', [q, b.op('Transpose', [k], { perm: [0, 1, 3, 2] })]);
    if (mask) scores = b.op('Add', [scores, mask]);
    const context = b.op('MatMul', [b.op('Softmax', [scores], { axis: -1 }), v]);
    const merged = b.op('Reshape', [b.op('Transpose', [context], { perm: [0, 2, 1, 3] }), b.ints([0, 0, this.dim])]);
    return this.o.apply(b, merged);
  }

  /** Unmasked self-attention (the encoders'), rotary positions where given. */
  self(b: GraphBuilder, x: string, rotary?: Rotary): string {
    let q = this.query(b, x);
    let k = this.keys(b, x);
    if (rotary) {
      q = applyRotary(b, q, rotary);
      k = applyRotary(b, k, rotary);
    }
    return this.attend(b, q, k, this.values(b, x));
  }

  private split(b: GraphBuilder, x: string): string {
    const heads = b.op('Reshape', [x, b.ints([0, 0, this.heads, this.headDim])]);
    return b.op('Transpose', [heads], { perm: [0, 2, 1, 3] });
  }
}

export interface CausalPositions {
  /** [new, past + new]: 0 where a new position may look, -1e9 where it would look ahead. */
  mask: string;
  /** The new tokens' positions, past .. past + new - 1 (int64). */
  positions: string;
}

/** `past` and `added` are 1-element int64 lengths. */
export function causalPositions(b: GraphBuilder, past: string, added: string): CausalPositions {
  const scalar = (x: string): string => b.op('Squeeze', [x, b.ints([0])]);
  const start = scalar(past);
  const end = scalar(b.op('Add', [past, added]));
  const one = b.weight('one', BigInt64Array.of(1n), []);
  const zero = b.weight('zero', BigInt64Array.of(0n), []);
  const positions = b.op('Range', [start, end, one]);
  const keys = b.op('Range', [zero, end, one]);
  const ahead = b.op('Greater', [b.op('Unsqueeze', [keys, b.ints([0])]), b.op('Unsqueeze', [positions, b.ints([1])])]);
  const mask = b.op('Where', [ahead, b.floats([-1e9], []), b.floats([0], [])]);
  return { mask, positions };
}

/** cos and sin of each position's angles, [seq, rotary_dims / 2], and how many dims of a head they turn. */
export interface Rotary {
  cos: string;
  sin: string;
  dims: number;
  headDim: number;
}

/** Tables for int64 `positions` [seq]: angle = position · theta^(-2i / dims). */
export function rotaryTables(b: GraphBuilder, positions: string, dims: number, headDim: number, theta: number): Rotary {
  const inverse = Array.from({ length: dims / 2 }, (_, i) => theta ** (-(2 * i) / dims));
  const angles = b.op('Mul', [
    b.op('Unsqueeze', [b.op('Cast', [positions], { to: 1 }), b.ints([1])]),
    b.floats(inverse, [1, dims / 2]),
  ]);
  return { cos: b.op('Cos', [angles]), sin: b.op('Sin', [angles]), dims, headDim };
}

/**
 * Rotates the first `dims` of each head ([batch, heads, seq, head_dim]); the
 * rest pass through (Moonshine turns 90 % of a head). The halves are split
 * GPT-NeoX style, first half against second; Moonshine interleaves pairs,
 * which costs the same.
 */
export function applyRotary(b: GraphBuilder, x: string, r: Rotary): string {
  const half = r.dims / 2;
  const rest = r.headDim - r.dims;
  // One Split, not three Slices: ONNX Runtime 1.21 fuses such Slices into Splits under one node name per graph,
  // and rejects the model once two of them exist.
  const sizes = rest > 0 ? [half, half, rest] : [half, half];
  const [x1, x2, passed] = b.opN('Split', [x, b.ints(sizes)], sizes.length, { axis: 3 });
  const first = b.op('Sub', [b.op('Mul', [x1, r.cos]), b.op('Mul', [x2, r.sin])]);
  const second = b.op('Add', [b.op('Mul', [x2, r.cos]), b.op('Mul', [x1, r.sin])]);
  return b.op('Concat', passed ? [first, second, passed] : [first, second], { axis: 3 });
}
