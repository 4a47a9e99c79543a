import { readFile, writeFile } from 'node:fs/promises';
import wavDecoder from 'wav-decoder';
import wavEncoder from 'wav-encoder';
import { AudioFormatError, checkSampleRate } from './errors.js';
import { float32ToInt16, int16ToFloat32, type PcmAudio } from './pcm.js';
import { resample, type ResamplerOptions } from './resample.js';

/**
 * WAV in and out. Decoding and encoding are wav-decoder / wav-encoder; this
 * module puts a structural check in front of the decoder so a bad file gets a
 * located, one-line error (the decoder itself reads past the end or loops on
 * some inputs), and normalises what the decoder cannot take: WAVE_FORMAT_EXTENSIBLE
 * headers (what sox and most DAWs write for 24-bit or multi-channel audio) and
 * odd-sized chunks with their pad byte.
 */
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

/** Decodes any PCM (8/16/24/32-bit) or float (32/64-bit) WAV, any rate, any channel count. */
export function decodeWav(bytes: Uint8Array, source = 'WAV data'): WavAudio {
  const canonical = canonicalWav(bytes, source);
  let decoded;
  try {
    decoded = wavDecoder.decode.sync(canonical, { symmetric: true });
  } catch (err) {
    throw new AudioFormatError(`not decodable: ${err instanceof Error ? err.message : String(err)}`, source);
  }
  return { sampleRate: decoded.sampleRate, channels: decoded.channelData };
}

/** Averages the channels into one 16-bit mono signal. */
export function downmixToMono(wav: WavAudio): PcmAudio {
  const { channels } = wav;
  if (channels.length === 1) return { samples: float32ToInt16(channels[0]), sampleRate: wav.sampleRate };
  const n = channels[0]?.length ?? 0;
  const mixed = new Float32Array(n);
  for (const ch of channels) for (let i = 0; i < n; i++) mixed[i] += ch[i];
  for (let i = 0; i < n; i++) mixed[i] /= channels.length;
  return { samples: float32ToInt16(mixed), sampleRate: wav.sampleRate };
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
  if (bytes.length > maxBytes) throw new AudioFormatError(`${bytes.length} bytes is over the ${maxBytes}-byte limit`, path);
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
  const ab = wavEncoder.encode.sync(
    { sampleRate, channelData: list.map((c) => int16ToFloat32(c)) },
    { bitDepth: 16, symmetric: true },
  );
  return Buffer.from(ab);
}

export async function writeWav(path: string, channels: Int16Array | readonly Int16Array[], sampleRate: number): Promise<void> {
  await writeFile(path, encodeWav(channels, sampleRate));
}

/**
 * The canonical 44-byte header of a 16-bit PCM WAV, for writers that stream the
 * samples to disk first and know the length only at the end (the recorder).
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

/** Walks the RIFF chunks and rebuilds `RIFF/WAVE fmt data` with a plain format tag, as an ArrayBuffer. */
function canonicalWav(bytes: Uint8Array, source: string): ArrayBuffer {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number): string => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || tag(0) !== 'RIFF' || tag(8) !== 'WAVE') {
    throw new AudioFormatError('not a WAV file (no RIFF/WAVE header)', source);
  }
  let fmt: Uint8Array | null = null;
  let data: Uint8Array | null = null;
  for (let at = 12; at + 8 <= bytes.length && !data; ) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    const body = bytes.subarray(at + 8, Math.min(bytes.length, at + 8 + size));
    if (id === 'fmt ') fmt = body;
    else if (id === 'data') data = body;
    at += 8 + size + (size % 2);
  }
  if (!fmt || fmt.length < 16) throw new AudioFormatError('no format (fmt) chunk before the audio data', source);
  if (!data) throw new AudioFormatError('no audio (data) chunk', source);
  const fv = new DataView(fmt.buffer, fmt.byteOffset, fmt.byteLength);
  let format = fv.getUint16(0, true);
  const channelCount = fv.getUint16(2, true);
  const sampleRate = fv.getUint32(4, true);
  const bits = fv.getUint16(14, true);
  if (format === FORMAT_EXTENSIBLE) {
    if (fmt.length < 26) throw new AudioFormatError('extensible format chunk is truncated', source);
    format = fv.getUint16(24, true); // first two bytes of the SubFormat GUID are the plain tag
  }
  const supported =
    (format === FORMAT_PCM && [8, 16, 24, 32].includes(bits)) || (format === FORMAT_FLOAT && [32, 64].includes(bits));
  if (!supported) {
    throw new AudioFormatError(`unsupported encoding (format 0x${format.toString(16)}, ${bits}-bit); use PCM or float`, source);
  }
  if (channelCount < 1) throw new AudioFormatError('zero channels', source);
  if (sampleRate < 1000 || sampleRate > 192_000) throw new AudioFormatError(`sample rate ${sampleRate} Hz is out of range`, source);
  const blockBytes = channelCount * (bits / 8);
  const dataBytes = data.length - (data.length % blockBytes);
  const out = new Uint8Array(44 + dataBytes);
  const ov = new DataView(out.buffer);
  out.set(wavHeader(sampleRate, channelCount, dataBytes));
  ov.setUint16(20, format, true);
  ov.setUint32(28, sampleRate * blockBytes, true);
  ov.setUint16(32, blockBytes, true);
  ov.setUint16(34, bits, true);
  out.set(data.subarray(0, dataBytes), 44);
  return out.buffer;
}
