/**
 * Kokoro's decoder: AdainResBlk1d layers over the aligned text features,
 * pitch and energy (an encode block to 1024 channels, three decode blocks
 * and one that doubles the frame rate), then the iSTFTNet generator: a
 * harmonic-plus-noise source from the pitch, two ConvTranspose upsamplings
 * (×10, ×6) each with three multi-kernel resblocks and a source branch, and
 * an inverse STFT (n_fft 20, hop 5). One aligned frame becomes 2·10·6·5 = 600
 * samples, 25 ms at 24 kHz.
 *
 * Approximated: the STFT of the source and the inverse STFT are convolutions
 * with a fixed windowed DFT basis (as Kokoro's CustomSTFT for ONNX export), but
 * the source's phase is atan(im / |re|) instead of atan2 (ONNX has no atan2),
 * the overlap envelope is divided out as its steady value (not per sample at
 * the edges), and the sine source's cumulative phase is not wrapped mod 1.
 */
import type { GraphBuilder } from '../graph.js';
import { adainResBlk, adainResBlock1, leakyRelu, type StyledOp } from './kokoro-blocks.js';
import { conv1d, convTranspose1d, linear } from './layers.js';
import type { Net } from './net.js';

export const SAMPLE_RATE_HZ = 24000;
const N_FFT = 20;
const HOP_SAMPLES = 5;
const BINS = N_FFT / 2 + 1;
const UPSAMPLE_RATES = [10, 6];
const UPSAMPLE_KERNELS = [20, 12];
const RESBLOCK_KERNELS = [3, 7, 11];
const DILATIONS = [1, 3, 5];
/** Samples per generator frame (the pitch curve's rate): 10 · 6 · 5. */
const SAMPLES_PER_PITCH_FRAME = 300;
const HARMONICS = 9;

/** Hann-windowed DFT basis: `inverse` false → [2·bins, 1, n_fft] analysis, true → synthesis. */
function dftBasis(inverse: boolean): Float32Array {
  const basis = new Float32Array(2 * BINS * N_FFT);
  // The synthesis window overlaps itself 1.5 times at hop n_fft / 4: divide that out.
  const overlap = 1.5;
  for (let k = 0; k < BINS; k++) {
    const weight = inverse ? ((k === 0 || k === BINS - 1 ? 1 : 2) / N_FFT) * (1 / overlap) : 1;
    for (let n = 0; n < N_FFT; n++) {
      const window = 0.5 - 0.5 * Math.cos((2 * Math.PI * n) / N_FFT);
      const angle = (2 * Math.PI * k * n) / N_FFT;
      basis[k * N_FFT + n] = weight * window * Math.cos(angle);
      basis[(BINS + k) * N_FFT + n] = -weight * window * Math.sin(angle);
    }
  }
  return basis;
}

type Generator = (b: GraphBuilder, x: string, style: string, f0: string) => string;

/** f0 [1, 1, frames] → the harmonic source at the sample rate, [1, 1, frames · 300]. */
function harmonicSource(net: Net): (b: GraphBuilder, f0: string) => string {
  const merge = linear(net, 'decoder.generator.m_source.l_linear', HARMONICS, 1);
  return (b, f0) => {
    const upsample = (x: string, mode: string): string =>
      b.op('Resize', [x, '', b.floats([1, 1, SAMPLES_PER_PITCH_FRAME])], { mode });
    const multiples = Array.from({ length: HARMONICS }, (_, i) => i + 1);
    const cycles = b.op('Div', [
      b.op('Mul', [f0, b.floats(multiples, [1, HARMONICS, 1])]),
      b.floats([SAMPLE_RATE_HZ], []),
    ]);
    // Phase accumulates at the frame rate and is interpolated up, as Kokoro's SineGen does.
    const phase = b.op('Mul', [
      b.op('CumSum', [cycles, b.ints([2], [])]),
      b.floats([2 * Math.PI * SAMPLES_PER_PITCH_FRAME], []),
    ]);
    const sines = b.op('Mul', [b.op('Sin', [upsample(phase, 'linear')]), b.floats([0.1], [])]);
    const voiced = b.op('Cast', [b.op('Greater', [upsample(f0, 'nearest'), b.floats([10], [])])], { to: 1 });
    const unvoiced = b.op('Sub', [b.floats([1], []), voiced]);
    const noiseLevel = b.op('Add', [
      b.op('Mul', [voiced, b.floats([0.003], [])]),
      b.op('Mul', [unvoiced, b.floats([0.1 / 3], [])]),
    ]);
    const noise = b.op('Mul', [b.op('RandomNormalLike', [sines], { seed: { float: 1 } }), noiseLevel]);
    const waves = b.op('Add', [b.op('Mul', [sines, voiced]), noise]);
    const merged = merge.apply(b, b.op('Transpose', [waves], { perm: [0, 2, 1] }));
    return b.op('Transpose', [b.op('Tanh', [merged])], { perm: [0, 2, 1] });
  };
}

function generator(net: Net, styleDim: number): Generator {
  const p = 'decoder.generator';
  const source = harmonicSource(net);
  const analysis = net.constant('stft.forward_basis', [2 * BINS, 1, N_FFT], dftBasis(false));
  const synthesis = net.constant('stft.inverse_basis', [2 * BINS, 1, N_FFT], dftBasis(true));
  const channels = [256, 128];
  const noiseConvs = [
    conv1d(net, `${p}.noise_convs.0`, 2 * BINS, 256, 12, { stride: 6, pad: 3 }),
    conv1d(net, `${p}.noise_convs.1`, 2 * BINS, 128, 1),
  ];
  const noiseRes = [
    adainResBlock1(net, `${p}.noise_res.0`, 256, 7, DILATIONS, styleDim),
    adainResBlock1(net, `${p}.noise_res.1`, 128, 11, DILATIONS, styleDim),
  ];
  const ups = UPSAMPLE_RATES.map((rate, i) =>
    convTranspose1d(net, `${p}.ups.${i}`, 512 / 2 ** i, channels[i], UPSAMPLE_KERNELS[i], {
      stride: rate,
      pad: (UPSAMPLE_KERNELS[i] - rate) / 2,
    }),
  );
  const resblocks: StyledOp[][] = channels.map((ch, i) =>
    RESBLOCK_KERNELS.map((k, j) => adainResBlock1(net, `${p}.resblocks.${i * 3 + j}`, ch, k, DILATIONS, styleDim)),
  );
  const post = conv1d(net, `${p}.conv_post`, 128, 2 * BINS, 7, { pad: 3 });
  return (b, x, style, f0) => {
    // Split, not Slices: see applyRotary on ONNX Runtime's fusion of Slices.
    const halves = (t: string): string[] => b.opN('Split', [t, b.ints([BINS, BINS])], 2, { axis: 1 });
    // STFT of the source: reflect-padded by n_fft / 2 (centered frames), magnitude and phase.
    const padded = b.op('Pad', [source(b, f0), b.ints([0, 0, N_FFT / 2, 0, 0, N_FFT / 2])], { mode: 'reflect' });
    const spectrum = b.op('Conv', [padded, analysis], { kernel_shape: [N_FFT], strides: [HOP_SAMPLES] });
    const [re, im] = halves(spectrum);
    const power = b.op('Add', [b.op('Add', [b.op('Mul', [re, re]), b.op('Mul', [im, im])]), b.floats([1e-9], [])]);
    const angle = b.op('Atan', [b.op('Div', [im, b.op('Add', [b.op('Abs', [re]), b.floats([1e-9], [])])])]);
    const harmonics = b.op('Concat', [b.op('Sqrt', [power]), angle], { axis: 1 });
    let h = x;
    ups.forEach((up, i) => {
      h = leakyRelu(b, h, 0.1);
      const fromSource = noiseRes[i](b, noiseConvs[i].apply(b, harmonics), style);
      h = up(b, h);
      // One frame short after the last upsampling; Kokoro pads it back on the left.
      if (i === ups.length - 1) h = b.op('Pad', [h, b.ints([0, 0, 1, 0, 0, 0])], { mode: 'reflect' });
      h = b.op('Add', [h, fromSource]);
      const sum = resblocks[i].map((block) => block(b, h, style)).reduce((acc, y) => b.op('Add', [acc, y]));
      h = b.op('Div', [sum, b.floats([RESBLOCK_KERNELS.length], [])]);
    });
    const out = post.apply(b, leakyRelu(b, h, 0.01));
    const [logMagnitude, rawPhase] = halves(out);
    const magnitude = b.op('Exp', [logMagnitude]);
    const phase = b.op('Sin', [rawPhase]);
    const parts = [b.op('Mul', [magnitude, b.op('Cos', [phase])]), b.op('Mul', [magnitude, b.op('Sin', [phase])])];
    const frames = b.op('ConvTranspose', [b.op('Concat', parts, { axis: 1 }), synthesis], {
      kernel_shape: [N_FFT],
      strides: [HOP_SAMPLES],
    });
    // Centered frames: drop the n_fft / 2 samples of padding at both ends.
    return b.op('Slice', [frames, b.ints([N_FFT / 2]), b.ints([-N_FFT / 2]), b.ints([2])]);
  };
}

/** asr [1, 512, frames], f0 and energy [1, 1, 2·frames], style [1, 128] → audio [1, 1, 600·frames]. */
export type KokoroDecoder = (b: GraphBuilder, asr: string, f0: string, energy: string, style: string) => string;

export function kokoroDecoder(net: Net, hidden: number, styleDim: number): KokoroDecoder {
  const p = 'decoder';
  const f0Conv = conv1d(net, `${p}.F0_conv`, 1, 1, 3, { stride: 2, pad: 1 });
  const energyConv = conv1d(net, `${p}.N_conv`, 1, 1, 3, { stride: 2, pad: 1 });
  const residualWidth = 64;
  const encode = adainResBlk(net, `${p}.encode`, hidden + 2, 1024, styleDim);
  const wide = 1024 + 2 + residualWidth;
  const decode = [
    adainResBlk(net, `${p}.decode.0`, wide, 1024, styleDim),
    adainResBlk(net, `${p}.decode.1`, wide, 1024, styleDim),
    adainResBlk(net, `${p}.decode.2`, wide, 1024, styleDim),
    adainResBlk(net, `${p}.decode.3`, wide, 512, styleDim, true),
  ];
  const asrRes = conv1d(net, `${p}.asr_res`, hidden, residualWidth, 1);
  const generate = generator(net, styleDim);
  return (b, asr, f0, energy, style) => {
    const f0Frames = f0Conv.apply(b, f0);
    const energyFrames = energyConv.apply(b, energy);
    let x = encode(b, b.op('Concat', [asr, f0Frames, energyFrames], { axis: 1 }), style);
    const residual = asrRes.apply(b, asr);
    // Each decode block sees the text, pitch and energy again; the last one doubles the frame rate.
    for (const block of decode) x = block(b, b.op('Concat', [x, residual, f0Frames, energyFrames], { axis: 1 }), style);
    return generate(b, x, style, f0);
  };
}
