/**
 * StyleTTS 2's building blocks as Kokoro uses them: bidirectional LSTMs,
 * style-conditioned norms (AdaIN over time, AdaLayerNorm over channels), the
 * style-conditioned residual blocks of the prosody predictor and decoder
 * (AdainResBlk1d) and of the iSTFTNet generator (AdaINResBlock1, with Snake
 * activations). Tensors are [1, channels, time] unless said otherwise;
 * kokoro-js always runs one utterance.
 */
import type { GraphBuilder } from '../graph.js';
import { conv1d, convTranspose1d, layerNorm, linear } from './layers.js';
import type { Net } from './net.js';

export type Op = (b: GraphBuilder, x: string) => string;
/** An op conditioned on a style vector [1, style_dim]. */
export type StyledOp = (b: GraphBuilder, x: string, style: string) => string;

/** Bidirectional LSTM, x [1, time, in] → [1, time, 2·hidden], as ONNX's LSTM op (gates i, o, f, c). */
export function biLstm(net: Net, prefix: string, input: number, hidden: number): Op {
  const bound = 1 / Math.sqrt(hidden);
  const w = net.param(`${prefix}.W`, [2, 4 * hidden, input], bound);
  const r = net.param(`${prefix}.R`, [2, 4 * hidden, hidden], bound);
  const bias = net.param(`${prefix}.B`, [2, 8 * hidden], bound);
  return (b, x) => {
    const sequence = b.op('Transpose', [x], { perm: [1, 0, 2] });
    const y = b.op('LSTM', [sequence, w, r, bias], { direction: 'bidirectional', hidden_size: hidden });
    // Y is [time, direction, batch, hidden]: both directions side by side per step.
    return b.op('Reshape', [b.op('Transpose', [y], { perm: [2, 0, 1, 3] }), b.ints([0, 0, -1])]);
  };
}

type StyleAffine = (b: GraphBuilder, style: string) => [gamma: string, beta: string];

/** 1 + γ and β from the style: a Linear to 2·channels, split, shaped by `dims` (where the channels sit). */
function styleAffine(net: Net, prefix: string, styleDim: number, channels: number, dims: number[]): StyleAffine {
  const fc = linear(net, `${prefix}.fc`, styleDim, 2 * channels);
  return (b, style) => {
    const h = b.op('Reshape', [fc.apply(b, style), b.ints(dims)]);
    const axis = dims.indexOf(-1);
    const [gamma, beta] = b.opN('Split', [h, b.ints([channels, channels])], 2, { axis });
    return [b.op('Add', [gamma, b.floats([1], [])]), beta];
  };
}

/** AdaIN1d: (1 + γ(s))·InstanceNorm(x) + β(s). */
export function adaIn(net: Net, prefix: string, styleDim: number, channels: number): StyledOp {
  const affine = styleAffine(net, prefix, styleDim, channels, [1, -1, 1]);
  const scale = net.filled(`${prefix}.norm.weight`, [channels], 1);
  const shift = net.filled(`${prefix}.norm.bias`, [channels], 0);
  return (b, x, style) => {
    const [gamma, beta] = affine(b, style);
    const normalized = b.op('InstanceNormalization', [x, scale, shift], { epsilon: { float: 1e-5 } });
    return b.op('Add', [b.op('Mul', [normalized, gamma]), beta]);
  };
}

/** AdaLayerNorm over the last axis of [1, time, channels]: (1 + γ(s))·LayerNorm(x) + β(s). */
export function adaLayerNorm(net: Net, prefix: string, styleDim: number, channels: number): StyledOp {
  const affine = styleAffine(net, prefix, styleDim, channels, [1, 1, -1]);
  const norm = layerNorm(net, prefix, channels, false, false);
  return (b, x, style) => {
    const [gamma, beta] = affine(b, style);
    return b.op('Add', [b.op('Mul', [norm.apply(b, x), gamma]), beta]);
  };
}

export function leakyRelu(b: GraphBuilder, x: string, slope: number): string {
  return b.op('LeakyRelu', [x], { alpha: { float: slope } });
}

/**
 * AdainResBlk1d: norm → LeakyReLU → (depthwise ConvTranspose ×2) → conv →
 * norm → LeakyReLU → conv, plus the (upsampled, 1×1-projected) shortcut, over √2.
 */
export function adainResBlk(
  net: Net,
  prefix: string,
  dimIn: number,
  dimOut: number,
  styleDim: number,
  upsample = false,
): StyledOp {
  const norm1 = adaIn(net, `${prefix}.norm1`, styleDim, dimIn);
  const pool = upsample
    ? convTranspose1d(net, `${prefix}.pool`, dimIn, dimIn, 3, { stride: 2, pad: 1, outputPad: 1, groups: dimIn })
    : undefined;
  const conv1 = conv1d(net, `${prefix}.conv1`, dimIn, dimOut, 3, { pad: 1 });
  const norm2 = adaIn(net, `${prefix}.norm2`, styleDim, dimOut);
  const conv2 = conv1d(net, `${prefix}.conv2`, dimOut, dimOut, 3, { pad: 1 });
  const project = dimIn !== dimOut ? conv1d(net, `${prefix}.conv1x1`, dimIn, dimOut, 1, { bias: false }) : undefined;
  return (b, x, style) => {
    let shortcut = upsample ? b.op('Resize', [x, '', b.floats([1, 1, 2])], { mode: 'nearest' }) : x;
    if (project) shortcut = project.apply(b, shortcut);
    let r = leakyRelu(b, norm1(b, x, style), 0.2);
    if (pool) r = pool(b, r);
    r = conv2.apply(b, leakyRelu(b, norm2(b, conv1.apply(b, r), style), 0.2));
    return b.op('Mul', [b.op('Add', [r, shortcut]), b.floats([Math.SQRT1_2], [])]);
  };
}

/** Snake: x + sin²(αx)/α, α per channel. */
function snake(b: GraphBuilder, x: string, alpha: string): string {
  const sine = b.op('Sin', [b.op('Mul', [x, alpha])]);
  return b.op('Add', [x, b.op('Div', [b.op('Mul', [sine, sine]), alpha])]);
}

/**
 * The generator's AdaINResBlock1: for each dilation, AdaIN → Snake → dilated
 * conv → AdaIN → Snake → conv, added to the input.
 */
export function adainResBlock1(
  net: Net,
  prefix: string,
  channels: number,
  kernel: number,
  dilations: readonly number[],
  styleDim: number,
): StyledOp {
  const stages = dilations.map((dilation, j) => ({
    norm1: adaIn(net, `${prefix}.adain1.${j}`, styleDim, channels),
    alpha1: net.filled(`${prefix}.alpha1.${j}`, [1, channels, 1], 1),
    conv1: conv1d(net, `${prefix}.convs1.${j}`, channels, channels, kernel, {
      dilation,
      pad: (dilation * (kernel - 1)) / 2,
    }),
    norm2: adaIn(net, `${prefix}.adain2.${j}`, styleDim, channels),
    alpha2: net.filled(`${prefix}.alpha2.${j}`, [1, channels, 1], 1),
    conv2: conv1d(net, `${prefix}.convs2.${j}`, channels, channels, kernel, { pad: (kernel - 1) / 2 }),
  }));
  return (b, x, style) => {
    let out = x;
    for (const s of stages) {
      const first = s.conv1.apply(b, snake(b, s.norm1(b, out, style), s.alpha1));
      const second = s.conv2.apply(b, snake(b, s.norm2(b, first, style), s.alpha2));
      out = b.op('Add', [second, out]);
    }
    return out;
  };
}
