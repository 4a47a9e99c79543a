import { EarshotError } from '../../core/errors.js';

/**
 * Just enough WAV reading to draw a waveform at report time: PCM 8/16/24/32-bit
 * and 32/64-bit float, any channel count, RIFF chunks walked (so LIST/fact
 * chunks are skipped). A recording cut short (its writer died before fixing the
 * sizes in the header) is read up to what is there.
 */
export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  format: 'pcm' | 'float';
  frames: number;
  /** Reads sample `frame` of `channel` as -1..1. */
  sample(frame: number, channel: number): number;
}

export class WavFormatError extends EarshotError {
  readonly path: string;
  constructor(path: string, problem: string) {
    super(`${path}: not a WAV file earshot can draw: ${problem}`);
    this.name = 'WavFormatError';
    this.path = path;
  }
}

const WAVE_FORMAT_PCM = 1;
const WAVE_FORMAT_FLOAT = 3;
const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

export function parseWav(buf: Buffer, path = 'recording'): WavInfo {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new WavFormatError(path, 'no RIFF/WAVE header');
  }
  let fmt: { tag: number; channels: number; sampleRate: number; bits: number } | undefined;
  let offset = 12;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      if (size < 16 || body + 16 > buf.length) throw new WavFormatError(path, 'fmt chunk too short');
      let tag = buf.readUInt16LE(body);
      if (tag === WAVE_FORMAT_EXTENSIBLE && size >= 26) tag = buf.readUInt16LE(body + 24);
      fmt = { tag, channels: buf.readUInt16LE(body + 2), sampleRate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt) throw new WavFormatError(path, 'data chunk before fmt chunk');
      // A size of 0 or past the end: the writer never fixed it up; take what is there.
      const end = size === 0 || body + size > buf.length ? buf.length : body + size;
      return makeInfo(buf.subarray(body, end), fmt, path);
    }
    offset = body + size + (size % 2);
  }
  throw new WavFormatError(path, fmt ? 'no data chunk' : 'no fmt chunk');
}

function makeInfo(
  data: Buffer,
  fmt: { tag: number; channels: number; sampleRate: number; bits: number },
  path: string,
): WavInfo {
  const { tag, channels, sampleRate, bits } = fmt;
  if (channels < 1 || sampleRate < 1) throw new WavFormatError(path, `${channels} channels at ${sampleRate} Hz`);
  const bytes = bits / 8;
  let read: (at: number) => number;
  if (tag === WAVE_FORMAT_PCM && bits === 16) read = (at) => data.readInt16LE(at) / 32768;
  else if (tag === WAVE_FORMAT_PCM && bits === 8) read = (at) => (data.readUInt8(at) - 128) / 128;
  else if (tag === WAVE_FORMAT_PCM && bits === 24) read = (at) => data.readIntLE(at, 3) / 8388608;
  else if (tag === WAVE_FORMAT_PCM && bits === 32) read = (at) => data.readInt32LE(at) / 2147483648;
  else if (tag === WAVE_FORMAT_FLOAT && bits === 32) read = (at) => data.readFloatLE(at);
  else if (tag === WAVE_FORMAT_FLOAT && bits === 64) read = (at) => data.readDoubleLE(at);
  else throw new WavFormatError(path, `unsupported encoding (format ${tag}, ${bits} bits)`);
  const frameBytes = bytes * channels;
  if (tag === WAVE_FORMAT_PCM && bits === 16) {
    // The common case (earshot's own recordings), read through a typed view: several times faster.
    const usable = data.length - (data.length % 2);
    const aligned = data.byteOffset % 2 === 0 ? data : Buffer.from(data);
    const view = new Int16Array(aligned.buffer, aligned.byteOffset, usable / 2);
    return {
      sampleRate,
      channels,
      bitsPerSample: bits,
      format: 'pcm',
      frames: Math.floor(data.length / frameBytes),
      sample: (frame, channel) => view[frame * channels + channel] / 32768,
    };
  }
  return {
    sampleRate,
    channels,
    bitsPerSample: bits,
    format: tag === WAVE_FORMAT_FLOAT ? 'float' : 'pcm',
    frames: Math.floor(data.length / frameBytes),
    sample: (frame, channel) => read(frame * frameBytes + channel * bytes),
  };
}

/**
 * Min/max per bucket per channel, quantized to -127..127 and base64-packed as
 * interleaved (min, max) Int8 pairs: a few KB per recording however long it is,
 * so the report needs no audio decoding in the browser (which file:// forbids).
 */
export interface WaveEnvelope {
  buckets: number;
  duration_ms: number;
  sample_rate: number;
  /** One base64 string per channel (left = caller, right = bot in earshot recordings). */
  channels: string[];
}

export function waveEnvelope(wav: WavInfo, buckets = 1000): WaveEnvelope {
  const n = Math.max(1, Math.min(buckets, wav.frames));
  const channels: string[] = [];
  for (let c = 0; c < wav.channels; c++) {
    const packed = new Int8Array(n * 2);
    for (let b = 0; b < n; b++) {
      const from = Math.floor((b * wav.frames) / n);
      const to = Math.max(from + 1, Math.floor(((b + 1) * wav.frames) / n));
      let lo = 0;
      let hi = 0;
      for (let f = from; f < to && f < wav.frames; f++) {
        const s = wav.sample(f, c);
        if (s < lo) lo = s;
        if (s > hi) hi = s;
      }
      packed[b * 2] = quantize(lo);
      packed[b * 2 + 1] = quantize(hi);
    }
    channels.push(Buffer.from(packed.buffer).toString('base64'));
  }
  return { buckets: n, duration_ms: (wav.frames / wav.sampleRate) * 1000, sample_rate: wav.sampleRate, channels };
}

function quantize(x: number): number {
  return Math.max(-127, Math.min(127, Math.round(x * 127)));
}
