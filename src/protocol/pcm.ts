/**
 * 16-bit little-endian PCM as it travels on the wire, to and from `Int16Array`
 * samples. Copies always: wire buffers are pooled by `ws` and may be unaligned.
 */
import { endianness } from 'node:os';

const LITTLE_ENDIAN_HOST = endianness() === 'LE';

/** Samples from little-endian bytes; undefined when the byte count is odd. */
export function pcmFromBytes(bytes: Uint8Array): Int16Array | undefined {
  if (bytes.byteLength % 2 !== 0) return undefined;
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const pcm = new Int16Array(copy.buffer);
  if (!LITTLE_ENDIAN_HOST) swap16(copy);
  return pcm;
}

/**
 * Little-endian bytes of `pcm` (a view when the host is little-endian, which it is everywhere Node runs in practice).
 */
export function pcmToBytes(pcm: Int16Array): Uint8Array {
  const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  if (LITTLE_ENDIAN_HOST) return bytes;
  const copy = Uint8Array.from(bytes);
  swap16(copy);
  return copy;
}

function swap16(b: Uint8Array): void {
  for (let i = 0; i + 1 < b.length; i += 2) {
    const t = b[i];
    b[i] = b[i + 1];
    b[i + 1] = t;
  }
}

// Standard alphabet, padding optional: Node's decoder silently skips stray
// characters, so a strict check first is what turns garbage into a violation.
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function decodeBase64(text: string): Uint8Array | undefined {
  if (!BASE64.test(text) || text.length % 4 === 1) return undefined;
  const buf = Buffer.from(text, 'base64');
  return new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
}

export function encodeBase64(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('base64');
}

/** Samples from base64 PCM, or a reason it cannot be 16-bit PCM. */
export function pcmFromBase64(text: string, path: string): Int16Array | string {
  const bytes = decodeBase64(text);
  if (!bytes) return `${path}: not base64`;
  return pcmFromBytes(bytes) ?? `${path}: ${bytes.byteLength} bytes is not a whole number of 16-bit samples`;
}

/**
 * Audio formats a peer may send: the rates the audio layer can resample
 * (src/audio checks the same range) and a sane channel count. A peer's number
 * becomes a buffer size and a resampling ratio downstream, so one outside these
 * bounds is a protocol violation here, not an exception (or an allocation) there.
 */
export const MIN_WIRE_SAMPLE_RATE = 1000;
export const MAX_WIRE_SAMPLE_RATE = 192_000;
export const MAX_WIRE_CHANNELS = 32;

/** Why `sampleRate` / `numChannels` cannot be audio earshot handles, or null when they can. */
export function audioFormatProblem(sampleRate: number, numChannels: number, path: string): string | null {
  if (!Number.isInteger(sampleRate) || sampleRate < MIN_WIRE_SAMPLE_RATE || sampleRate > MAX_WIRE_SAMPLE_RATE) {
    return (
      `${path} sample rate ${sampleRate}: ` +
      `expected an integer from ${MIN_WIRE_SAMPLE_RATE} to ${MAX_WIRE_SAMPLE_RATE} Hz`
    );
  }
  if (!Number.isInteger(numChannels) || numChannels < 1 || numChannels > MAX_WIRE_CHANNELS) {
    return `${path} channel count ${numChannels}: expected 1 to ${MAX_WIRE_CHANNELS}`;
  }
  return null;
}
