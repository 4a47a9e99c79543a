import { seededRandom } from '../../core/random.js';
import { readWav } from '../wav.js';
import { clip16, dbfsToAmplitude } from '../pcm.js';
import { AudioOptionError } from '../errors.js';
import { activeLevelDbfs, meanPower } from './level.js';
import type { ChunkTransform, ConditionContext, NoiseCondition } from './types.js';

/**
 * Additive background noise at a set SNR: the noise's RMS sits `snr_db` below
 * the voice's active level (level.ts). White and pink noise are generated from
 * the stage's seeded generator; babble (several bundled voices at once) and a
 * WAV are looped from a seeded offset. The noise runs across the whole
 * utterance, its leading and trailing silence included, as a room's would.
 */
export async function noiseStage(config: NoiseCondition, ctx: ConditionContext): Promise<ChunkTransform> {
  const source = await noiseSource(config, ctx);
  // A silent utterance gets no noise: there is no level to set it against.
  const gain = ctx.speechLevelDbfs === null ? 0 : dbfsToAmplitude(ctx.speechLevelDbfs - config.snr_db) / source.rms;
  const mix = (chunk: Int16Array): Int16Array => {
    const out = new Int16Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) out[i] = clip16(Math.round(chunk[i] + gain * source.next()));
    return out;
  };
  return { name: 'noise', process: mix, flush: () => new Int16Array(0), close: () => undefined };
}

interface NoiseSource {
  /** The next noise sample (any scale). */
  next(): number;
  /** The source's RMS, in the same units. */
  rms: number;
}

async function noiseSource(config: NoiseCondition, ctx: ConditionContext): Promise<NoiseSource> {
  switch (config.type) {
    case 'white':
      return whiteNoise(ctx.random);
    case 'pink':
      return pinkNoise(ctx.random);
    case 'babble': {
      if (!ctx.babble)
        throw new AudioOptionError(
          'noise.type',
          'babble',
          'a babble source (the session supplies one from the bundled voices)',
        );
      return loopedNoise(await ctx.babble(), ctx, 'babble');
    }
    case 'wav': {
      if (!config.path) throw new AudioOptionError('noise.path', config.path, 'the noise WAV file');
      const pcm = await readWav(config.path, { sampleRate: ctx.sampleRate });
      return loopedNoise(pcm.samples, ctx, config.path);
    }
  }
}

/** Gaussian white noise (Box–Muller), unit variance. */
function gaussian(random: () => number): () => number {
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const s = spare;
      spare = null;
      return s;
    }
    // 1 - random() is in (0, 1]: the log never sees 0.
    const r = Math.sqrt(-2 * Math.log(1 - random()));
    const theta = 2 * Math.PI * random();
    spare = r * Math.sin(theta);
    return r * Math.cos(theta);
  };
}

export function whiteNoise(random: () => number): NoiseSource {
  return { next: gaussian(random), rms: 1 };
}

/**
 * Pink (1/f) noise: white noise through Paul Kellet's refined filter (±0.05 dB
 * from 9.2 Hz to Nyquist at 44.1 kHz; close enough at speech rates). Its RMS
 * is not known in closed form, so two seconds of it, drawn from a generator of
 * its own (the stage's stream stays untouched), calibrate it.
 */
export function pinkNoise(random: () => number): NoiseSource {
  const calibrate = pinkFilter(gaussian(forkRandom(random)));
  let power = 0;
  const n = 96_000;
  for (let i = 0; i < 2_000; i++) calibrate();
  for (let i = 0; i < n; i++) power += calibrate() ** 2;
  const next = pinkFilter(gaussian(random));
  // Warm the filter up so the first samples are as loud as the rest.
  for (let i = 0; i < 2_000; i++) next();
  return { next, rms: Math.sqrt(power / n) };
}

function pinkFilter(white: () => number): () => number {
  let b0 = 0,
    b1 = 0,
    b2 = 0,
    b3 = 0,
    b4 = 0,
    b5 = 0,
    b6 = 0;
  return () => {
    const w = white();
    b0 = 0.99886 * b0 + w * 0.0555179;
    b1 = 0.99332 * b1 + w * 0.0750759;
    b2 = 0.969 * b2 + w * 0.153852;
    b3 = 0.8665 * b3 + w * 0.3104856;
    b4 = 0.55 * b4 + w * 0.5329522;
    b5 = -0.7616 * b5 - w * 0.016898;
    const out = b0 + b1 + b2 + b3 + b4 + b5 + b6 + w * 0.5362;
    b6 = w * 0.115926;
    return out;
  };
}

/** A generator seeded from another's next draw: a side stream that does not advance with it. */
function forkRandom(random: () => number): () => number {
  return seededRandom(Math.floor(random() * 2 ** 32));
}

/** A recording looped from a seeded offset; its level is its RMS over the whole loop, as it is heard. */
function loopedNoise(pcm: Int16Array, ctx: ConditionContext, what: string): NoiseSource {
  const level = activeLevelDbfs(pcm, ctx.sampleRate);
  if (pcm.length === 0 || level === null)
    throw new AudioOptionError('noise', what, 'noise with something audible in it (above -50 dBFS)');
  let at = Math.floor(ctx.random() * pcm.length);
  const rms = Math.sqrt(meanPower(pcm));
  return {
    next: () => {
      const s = pcm[at];
      at = (at + 1) % pcm.length;
      return s;
    },
    rms,
  };
}
