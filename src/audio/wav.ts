import { readFile, writeFile } from 'node:fs/promises';
import { AudioFormatError, checkSampleRate } from './errors.js';
import { downmix, float32ToInt16, int16ToBytes, type PcmAudio } from './pcm.js';
import { resample, type ResamplerOptions } from './resample.js';

/**
 * WAV in and out, the one parser earshot has: RIFF chunks walked (LIST, fact,
 * odd sizes with their pad byte), PCM 8/16/24/32-bit and float 32/64-bit, the
 * plain and the WAVE_FORMAT_EXTENSIBLE header (what sox and most DAWs write for
 * 24-bit or multi-channel audio). A recording whose writer died before fixing
 * the sizes in the header (data size 0 or past the end) is read up to what is
 * there; anything else wrong is a located, one-line `AudioFormatError`.
 */
export interface WavInfo {
  sampleRate: number;
  channelCount: number;
  bitsPerSample: number;
  format: 'pcm' | 'float';
  /** Whole frames in the data chunk (a partial frame at a cut end is dropped). */
  frames: number;
  /** Sample `frame` of `channel`, integers scaled by 1/2^(bits-1) (16-bit: /32768), floats as stored. */
  sample(frame: number, channel: number): number;
}

export interface WavAudio {
  sampleRate: number;
  /** One Float32Array per channel, samples in [-1, 1). */
  channels: Float32Array[];
}

export interface ReadWavOptions extends ResamplerOptions {
  /** Resample to this rate (after downmixing to mono). */
  sampleRate?: number;
  /** Refuse files larger than this (default 512 MiB): a recorded turn, not an archive. */
  maxBytes?: number;
}

const FORMAT_PCM = 1;
const FORMAT_FLOAT = 3;
const FORMAT_EXTENSIBLE = 0xfffe;
const DEFAULT_MAX_BYTES = 512 * 1024 * 1024;

interface Format {
  code: typeof FORMAT_PCM | typeof FORMAT_FLOAT;
  channelCount: number;
  sampleRate: number;
  bits: number;
}

/** Reads the header and chunk layout; samples are read from `bytes` on demand (no copy). */
export function parseWav(bytes: Uint8Array, source = 'WAV data'): WavInfo {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number): string => String.fromCharCode(bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]);
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') {
    throw new AudioFormatError('not a WAV file (no RIFF/WAVE header)', source);
  }
  let fmt: DataView | undefined;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = at + 8;
    if (id === 'fmt ') fmt = new DataView(bytes.buffer, bytes.byteOffset + body, Math.min(size, bytes.length - body));
    else if (id === 'data') {
      if (!fmt) break;
      const end = size === 0 || body + size > bytes.length ? bytes.length : body + size;
      return sampleReader(formatOf(fmt, source), new DataView(bytes.buffer, bytes.byteOffset + body, end - body));
    }
    at = body + size + (size % 2);
  }
  if (!fmt) throw new AudioFormatError('no format (fmt) chunk before the audio data', source);
  formatOf(fmt, source);
  throw new AudioFormatError('no audio (data) chunk', source);
}

/** Decodes every sample, one Float32Array per channel. */
export function decodeWav(bytes: Uint8Array, source = 'WAV data'): WavAudio {
  const wav = parseWav(bytes, source);
  const channels = Array.from({ length: wav.channelCount }, () => new Float32Array(wav.frames));
  for (let c = 0; c < wav.channelCount; c++) {
    const out = channels[c];
    for (let f = 0; f < wav.frames; f++) out[f] = wav.sample(f, c);
  }
  return { sampleRate: wav.sampleRate, channels };
}

/** 16-bit mono: each channel rounded to 16 bits, then averaged by `downmix`. */
export function downmixToMono(wav: WavAudio): PcmAudio {
  const { channels, sampleRate } = wav;
  if (channels.length === 1) return { samples: float32ToInt16(channels[0]), sampleRate };
  return { samples: downmix(interleave(channels.map(float32ToInt16)), channels.length), sampleRate };
}

/** Reads a WAV file as 16-bit mono, resampled to `options.sampleRate` when given. */
export async function readWav(path: string, options: ReadWavOptions = {}): Promise<PcmAudio> {
  if (options.sampleRate !== undefined) checkSampleRate(options.sampleRate);
  let bytes: Buffer;
  try {
    bytes = await readFile(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new AudioFormatError(code === 'ENOENT' ? 'no such file' : `cannot be read (${code ?? String(err)})`, path);
  }
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  if (bytes.length > maxBytes)
    throw new AudioFormatError(`${bytes.length} bytes is over the ${maxBytes}-byte limit`, path);
  const mono = downmixToMono(decodeWav(bytes, path));
  if (options.sampleRate === undefined || options.sampleRate === mono.sampleRate) return mono;
  return {
    samples: await resample(mono.samples, mono.sampleRate, options.sampleRate, options),
    sampleRate: options.sampleRate,
  };
}

/** 16-bit PCM WAV bytes; pass several channels (equal lengths) for a multi-channel file. */
export function encodeWav(channels: Int16Array | readonly Int16Array[], sampleRate: number): Buffer {
  checkSampleRate(sampleRate);
  const list = channels instanceof Int16Array ? [channels] : channels;
  if (list.length === 0) throw new AudioFormatError('a WAV needs at least one channel');
  if (list.some((c) => c.length !== list[0].length)) throw new AudioFormatError('WAV channels must have equal lengths');
  const samples = list.length === 1 ? list[0] : interleave(list);
  return Buffer.concat([wavHeader(sampleRate, list.length, samples.length * 2), int16ToBytes(samples)]);
}

export async function writeWav(
  path: string,
  channels: Int16Array | readonly Int16Array[],
  sampleRate: number,
): Promise<void> {
  await writeFile(path, encodeWav(channels, sampleRate));
}

/**
 * The canonical 44-byte header of a 16-bit PCM WAV: `encodeWav` writes it, and
 * so do writers that stream the samples to disk first and know the length only
 * at the end (the recorder).
 */
export function wavHeader(sampleRate: number, channelCount: number, dataBytes: number): Buffer {
  const h = Buffer.alloc(44);
  h.write('RIFF', 0, 'ascii');
  h.writeUInt32LE(36 + dataBytes, 4);
  h.write('WAVE', 8, 'ascii');
  h.write('fmt ', 12, 'ascii');
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(FORMAT_PCM, 20);
  h.writeUInt16LE(channelCount, 22);
  h.writeUInt32LE(sampleRate, 24);
  h.writeUInt32LE(sampleRate * channelCount * 2, 28);
  h.writeUInt16LE(channelCount * 2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36, 'ascii');
  h.writeUInt32LE(dataBytes, 40);
  return h;
}

/** Equal-length channels → one interleaved buffer, frame by frame. */
function interleave(channels: readonly Int16Array[]): Int16Array {
  const n = channels.length;
  const out = new Int16Array((channels[0]?.length ?? 0) * n);
  for (let c = 0; c < n; c++) {
    const ch = channels[c];
    for (let f = 0; f < ch.length; f++) out[f * n + c] = ch[f];
  }
  return out;
}

function formatOf(fmt: DataView, source: string): Format {
  if (fmt.byteLength < 16)
    throw new AudioFormatError(`format (fmt) chunk is truncated (${fmt.byteLength} of 16 bytes)`, source);
  let code = fmt.getUint16(0, true);
  const channelCount = fmt.getUint16(2, true);
  const sampleRate = fmt.getUint32(4, true);
  const bits = fmt.getUint16(14, true);
  if (code === FORMAT_EXTENSIBLE) {
    if (fmt.byteLength < 26) throw new AudioFormatError('extensible format chunk is truncated', source);
    code = fmt.getUint16(24, true); // the first two bytes of the SubFormat GUID are the plain tag
  }
  if (
    !((code === FORMAT_PCM && [8, 16, 24, 32].includes(bits)) || (code === FORMAT_FLOAT && [32, 64].includes(bits)))
  ) {
    throw new AudioFormatError(
      `unsupported encoding (format 0x${code.toString(16)}, ${bits}-bit); use PCM or float`,
      source,
    );
  }
  if (channelCount < 1) throw new AudioFormatError('zero channels', source);
  if (sampleRate < 1000 || sampleRate > 192_000)
    throw new AudioFormatError(`sample rate ${sampleRate} Hz is out of range`, source);
  return { code, channelCount, sampleRate, bits };
}

function sampleReader(format: Format, data: DataView): WavInfo {
  const { code, channelCount, sampleRate, bits } = format;
  const bytesPer = bits / 8;
  const frameBytes = bytesPer * channelCount;
  let read: (at: number) => number;
  if (code === FORMAT_FLOAT) read = bits === 32 ? (at) => data.getFloat32(at, true) : (at) => data.getFloat64(at, true);
  else if (bits === 8)
    read = (at) => (data.getUint8(at) - 128) / 128; // 8-bit WAV is unsigned, silence at 128
  else if (bits === 16) read = (at) => data.getInt16(at, true) / 32768;
  else if (bits === 24) read = (at) => (data.getUint16(at, true) | (data.getInt8(at + 2) << 16)) / 8388608;
  else read = (at) => data.getInt32(at, true) / 2147483648;
  return {
    sampleRate,
    channelCount,
    bitsPerSample: bits,
    format: code === FORMAT_FLOAT ? 'float' : 'pcm',
    frames: Math.floor(data.byteLength / frameBytes),
    sample: (frame, channel) => read(frame * frameBytes + channel * bytesPer),
  };
}
