import { AudioOptionError, checkSampleRate } from './errors.js';
import { concatPcm, float32ToInt16, int16ToFloat32 } from './pcm.js';

/**
 * Sample-rate conversion with libsamplerate (band-limited sinc), compiled to
 * WASM. Each converter loads its own WASM instance asynchronously (there is no
 * module-wide state to initialise once), so a converter is created with
 * `await createResampler(...)` and used synchronously from then on: the hot
 * paths (a 20 ms bot-audio chunk on its way to the VAD) never wait.
 */
export type ResamplerQuality = 'best' | 'medium' | 'fastest';

export interface ResamplerOptions {
  /**
   * `best` (the default; ~97 dB SNR, 97% bandwidth) for utterances and files;
   * `medium` costs a third of the CPU for streams that only feed a detector.
   */
  quality?: ResamplerQuality;
}

/** A streaming converter: chunks in, continuous audio out, the filter state carried across chunks. */
export interface StreamResampler {
  readonly fromRate: number;
  readonly toRate: number;
  /**
   * Converts one chunk and returns what is ready. The sinc filter looks ahead, so
   * the output trails the input by a few ms until `flush`; output sample j is
   * always the input signal at time j / toRate (the lag is in availability, not
   * in position). With equal rates the chunk itself is returned.
   */
  process(chunk: Int16Array): Int16Array;
  /**
   * Ends the stream: returns the held-back tail so that all output together has
   * exactly round(inputSamples × toRate / fromRate) samples. The converter takes
   * no more input afterwards.
   */
  flush(): Int16Array;
  /** Frees the WASM converter. Safe to call twice. */
  close(): void;
}

/** The shape of `createResampler`, for components that take an injectable factory. */
export type ResamplerFactory = (
  fromRate: number,
  toRate: number,
  options?: ResamplerOptions,
) => Promise<StreamResampler>;

const CONVERTER: Record<ResamplerQuality, 0 | 1 | 2> = { best: 0, medium: 1, fastest: 2 };
/** Bounded calls into WASM keep each converter's transfer buffers small. */
const MAX_CALL_SAMPLES = 16_384;

export const createResampler: ResamplerFactory = async (fromRate, toRate, options = {}) => {
  checkSampleRate(fromRate, 'fromRate');
  checkSampleRate(toRate, 'toRate');
  const quality = options.quality ?? 'best';
  if (!(quality in CONVERTER)) throw new AudioOptionError('quality', quality, "'best', 'medium' or 'fastest'");
  if (fromRate === toRate) return new IdentityResampler(fromRate);
  // Imported on first use: the module inlines 2 MB of WASM, and a process that never
  // converts a rate (a text-mode reference bot, `earshot validate`) should not compile it.
  const imported = await import('@alexanderolsen/libsamplerate-js');
  // A UMD bundle: Node's ESM loader hands it over as `default`; tsx and bundlers as named exports.
  const libsamplerate =
    (imported as { default?: typeof imported.default }).default ?? (imported as unknown as typeof imported.default);
  const src = await libsamplerate.create(1, fromRate, toRate, { converterType: CONVERTER[quality] });
  return new SincResampler(src, fromRate, toRate);
};

/** Converts a whole buffer (an utterance, a file) with a converter of its own, so no tail leaks between calls. */
export async function resample(
  pcm: Int16Array,
  fromRate: number,
  toRate: number,
  options: ResamplerOptions = {},
): Promise<Int16Array> {
  const r = await createResampler(fromRate, toRate, options);
  try {
    const head = r.process(pcm);
    const tail = r.flush();
    if (tail.length === 0) return head;
    const out = new Int16Array(head.length + tail.length);
    out.set(head);
    out.set(tail, head.length);
    return out;
  } finally {
    r.close();
  }
}

/**
 * Sample-rate conversion as the speech providers see it: one whole utterance
 * at a time. Providers take a `Resample` so a caller can inject its own.
 */
export type Resample = (pcm: Int16Array, fromRate: number, toRate: number) => Promise<Int16Array>;

/** libsamplerate's band-limited sinc converter (medium quality), a fresh converter per utterance. */
export const sincResample: Resample = (pcm, fromRate, toRate) =>
  fromRate === toRate || pcm.length === 0
    ? Promise.resolve(pcm)
    : resample(pcm, fromRate, toRate, { quality: 'medium' });

/** Telephone to studio rates, as a test (speech options report their own error). */
export function isValidSampleRate(sampleRate: number): boolean {
  return Number.isInteger(sampleRate) && sampleRate >= 8000 && sampleRate <= 192000;
}

class IdentityResampler implements StreamResampler {
  constructor(readonly fromRate: number) {}
  get toRate(): number {
    return this.fromRate;
  }
  process(chunk: Int16Array): Int16Array {
    return chunk;
  }
  flush(): Int16Array {
    return new Int16Array(0);
  }
  close(): void {}
}

interface LibSrc {
  full(dataIn: Float32Array): Float32Array;
  destroy(): void;
}

class SincResampler implements StreamResampler {
  private inputSamples = 0;
  private outputSamples = 0;
  private ended = false;
  private closed = false;

  constructor(
    private readonly src: LibSrc,
    readonly fromRate: number,
    readonly toRate: number,
  ) {}

  process(chunk: Int16Array): Int16Array {
    this.checkOpen('process');
    if (chunk.length === 0) return new Int16Array(0);
    this.inputSamples += chunk.length;
    const parts: Int16Array[] = [];
    for (let at = 0; at < chunk.length; at += MAX_CALL_SAMPLES) {
      parts.push(float32ToInt16(this.src.full(int16ToFloat32(chunk.subarray(at, at + MAX_CALL_SAMPLES)))));
    }
    return this.account(parts.length === 1 ? parts[0] : concatPcm(parts));
  }

  flush(): Int16Array {
    this.checkOpen('flush');
    this.ended = true;
    const expected = Math.round((this.inputSamples * this.toRate) / this.fromRate);
    const parts: Int16Array[] = [];
    // libsamplerate's wrapper has no end-of-input flag: zeros push the tail out,
    // and the output is then cut at the length the input implies.
    const zeros = new Float32Array(Math.max(256, Math.ceil(this.fromRate / 50)));
    for (let round = 0; this.outputSamples < expected && round < 64; round++) {
      const out = float32ToInt16(this.src.full(zeros));
      const take = Math.min(out.length, expected - this.outputSamples);
      parts.push(out.subarray(0, take));
      this.outputSamples += take;
    }
    return concatPcm(parts);
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.src.destroy();
  }

  private account(out: Int16Array): Int16Array {
    this.outputSamples += out.length;
    return out;
  }

  private checkOpen(op: string): void {
    if (this.closed) throw new AudioOptionError('resampler', op, 'a converter that is not closed');
    if (this.ended) throw new AudioOptionError('resampler', op, 'a converter that has not been flushed');
  }
}
