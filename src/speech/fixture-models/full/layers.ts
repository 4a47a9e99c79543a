/**
 * The layers every full-size graph is made of. A layer's weights live in the
 * net's root graph and `apply` emits its nodes into whichever graph is given
 * (the root, or a branch of `If`, which reads the root's weights by name).
 *
 * Linear layers, convolutions and embeddings are the only places where the
 * fp32 and q8 graphs differ, and each switches here, in one place, the way
 * ONNX Runtime's dynamic quantization rewrites them.
 */
import type { GraphBuilder } from '../graph.js';
import type { Net, Stored } from './net.js';

/** PyTorch's default init: U(±1/sqrt(fan_in)). */
function initBound(fanIn: number): number {
  return 1 / Math.sqrt(fanIn);
}

/**
 * x · W as MatMul, or as dynamic quantization computes it:
 * DynamicQuantizeLinear(x) → MatMulInteger(x_q, W_q) → Cast → × (x_scale · W_scale).
 */
function matmul(net: Net, b: GraphBuilder, x: string, w: Stored): string {
  if (w.kind === 'fp32') return b.op('MatMul', [x, w.name]);
  const q = net.quantize(b, x);
  const product = b.op('MatMulInteger', [q.value, w.name, q.zero, w.zero]);
  return b.op('Mul', [b.op('Cast', [product], { to: 1 }), b.op('Mul', [q.scale, w.scale])]);
}

export class Linear {
  constructor(
    private readonly net: Net,
    readonly weight: Stored,
    readonly bias: string | undefined,
  ) {}

  /** x [..., in] → [..., out]. */
  apply(b: GraphBuilder, x: string): string {
    const y = matmul(this.net, b, x, this.weight);
    return this.bias ? b.op('Add', [y, this.bias]) : y;
  }
}

export function linear(net: Net, prefix: string, inDim: number, outDim: number, bias = true): Linear {
  const bound = initBound(inDim);
  const weight = net.matrix(`${prefix}.weight`, [inDim, outDim], bound);
  return new Linear(net, weight, bias ? net.param(`${prefix}.bias`, [outDim], bound) : undefined);
}

export interface ConvOptions {
  stride?: number;
  pad?: number;
  dilation?: number;
  bias?: boolean;
}

export class Conv1d {
  constructor(
    private readonly net: Net,
    private readonly weight: Stored,
    private readonly bias: string | undefined,
    private readonly attrs: Record<string, number[]>,
  ) {}

  /** x [batch, in, time] → [batch, out, time']. */
  apply(b: GraphBuilder, x: string): string {
    const w = this.weight;
    if (w.kind === 'fp32') return b.op('Conv', this.bias ? [x, w.name, this.bias] : [x, w.name], this.attrs);
    const q = this.net.quantize(b, x);
    const sum = b.op('ConvInteger', [q.value, w.name, q.zero, w.zero], this.attrs);
    const y = b.op('Mul', [b.op('Cast', [sum], { to: 1 }), b.op('Mul', [q.scale, w.scale])]);
    return this.bias ? b.op('Add', [y, this.bias]) : y;
  }
}

export function conv1d(
  net: Net,
  prefix: string,
  inCh: number,
  outCh: number,
  kernel: number,
  o: ConvOptions = {},
): Conv1d {
  const bound = initBound(inCh * kernel);
  const weight = net.matrix(`${prefix}.weight`, [outCh, inCh, kernel], bound, false);
  // A quantized convolution adds its bias after rescaling, to [batch, out, time]: shaped [out, 1] for that.
  const biasDims = weight.kind === 'q8' ? [outCh, 1] : [outCh];
  const bias = o.bias === false ? undefined : net.param(`${prefix}.bias`, biasDims, bound);
  const pad = o.pad ?? 0;
  return new Conv1d(net, weight, bias, {
    kernel_shape: [kernel],
    strides: [o.stride ?? 1],
    pads: [pad, pad],
    dilations: [o.dilation ?? 1],
  });
}

export interface ConvTransposeOptions {
  stride: number;
  pad: number;
  outputPad?: number;
  /** Depthwise when equal to the channel count. */
  groups?: number;
}

/**
 * ConvTranspose stays fp32 in both graphs: ONNX has no integer form of it, and
 * ONNX Runtime's dynamic quantization leaves it alone.
 */
export function convTranspose1d(
  net: Net,
  prefix: string,
  inCh: number,
  outCh: number,
  kernel: number,
  o: ConvTransposeOptions,
): (b: GraphBuilder, x: string) => string {
  const groups = o.groups ?? 1;
  const bound = initBound((outCh / groups) * kernel);
  const weight = net.param(`${prefix}.weight`, [inCh, outCh / groups, kernel], bound);
  const bias = net.param(`${prefix}.bias`, [outCh], bound);
  const attrs = {
    kernel_shape: [kernel],
    strides: [o.stride],
    pads: [o.pad, o.pad],
    output_padding: [o.outputPad ?? 0],
    group: groups,
  };
  return (b, x) => b.op('ConvTranspose', [x, weight, bias], attrs);
}

/**
 * A token embedding stored as [dim, vocab]: the layout of the output
 * projection it is tied to (Whisper's and Moonshine's `proj_out`), so one
 * tensor serves both and the logits are a plain MatMul against it. Lookups
 * gather columns. q8 keeps it int8 and dequantizes what was gathered.
 */
export class Embedding {
  private readonly weight: Stored;

  constructor(
    private readonly net: Net,
    prefix: string,
    vocab: number,
    readonly dim: number,
  ) {
    this.weight = net.matrix(`${prefix}.weight`, [dim, vocab], initBound(dim));
  }

  /** ids [batch, seq] → [batch, seq, dim]. */
  lookup(b: GraphBuilder, ids: string): string {
    const w = this.weight;
    const columns = b.op('Transpose', [b.op('Gather', [w.name, ids], { axis: 1 })], { perm: [1, 2, 0] });
    return w.kind === 'fp32' ? columns : b.op('DequantizeLinear', [columns, w.scale, w.zero]);
  }

  /** h [batch, seq, dim] → logits [batch, seq, vocab]. */
  logits(b: GraphBuilder, h: string): string {
    return matmul(this.net, b, h, this.weight);
  }
}

export class LayerNorm {
  constructor(
    private readonly scale: string,
    private readonly bias: string | undefined,
  ) {}

  apply(b: GraphBuilder, x: string): string {
    const inputs = this.bias ? [x, this.scale, this.bias] : [x, this.scale];
    return b.op('LayerNormalization', inputs, { axis: -1, epsilon: { float: 1e-5 } });
  }
}

/** `affine: false`: a fixed scale of 1 that is no parameter (AdaLayerNorm's inner norm). */
export function layerNorm(net: Net, prefix: string, dim: number, bias = true, affine = true): LayerNorm {
  if (!affine) return new LayerNorm(net.constant(`${prefix}.ones`, [dim], 1), undefined);
  return new LayerNorm(
    net.filled(`${prefix}.weight`, [dim], 1),
    bias ? net.filled(`${prefix}.bias`, [dim], 0) : undefined,
  );
}

/** Exact GELU, 0.5·x·(1 + erf(x/√2)), as PyTorch exports it; ONNX Runtime fuses it into one Gelu node. */
export function gelu(b: GraphBuilder, x: string): string {
  const erf = b.op('Erf', [b.op('Div', [x, b.floats([Math.SQRT2], [])])]);
  return b.op('Mul', [b.op('Mul', [x, b.floats([0.5], [])]), b.op('Add', [erf, b.floats([1], [])])]);
}

/** SiLU, x·sigmoid(x). */
export function silu(b: GraphBuilder, x: string): string {
  return b.op('Mul', [x, b.op('Sigmoid', [x])]);
}

/** The size of dimension `axis` of `x`, as a 1-element int64 tensor. */
export function dimOf(b: GraphBuilder, x: string, axis: number): string {
  return b.op('Gather', [b.op('Shape', [x]), b.ints([axis])]);
}
