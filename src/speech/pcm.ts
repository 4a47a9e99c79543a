/**
 * The little PCM and WAV handling the speech providers need: 16-bit mono
 * little-endian PCM in, out and through files.
 *
 * Private to speech until `src/audio` lands its PCM and WAV module; then these
 * become re-exports of it (see the report to the lead).
 */

export function int16ToFloat32(pcm: Int16Array): Float32Array {
  const out = new Float32Array(pcm.length);
  for (let i = 0; i < pcm.length; i++) out[i] = pcm[i] / 32768;
  return out;
}

/** Clips to [-1, 1] and rounds; a float stream from a model may overshoot. */
export function float32ToInt16(samples: Float32Array): Int16Array {
  const out = new Int16Array(samples.length);
  for (let i = 0; i < samples.length; i++) {
    const s = Math.max(-1, Math.min(1, samples[i]));
    out[i] = Math.round(s < 0 ? s * 32768 : s * 32767);
  }
  return out;
}

/** `padSamples` zero samples on each side. */
export function padWithSilence(pcm: Int16Array, padSamples: number): Int16Array {
  if (padSamples <= 0) return pcm;
  const out = new Int16Array(pcm.length + 2 * padSamples);
  out.set(pcm, padSamples);
  return out;
}

/** A copy as little-endian bytes (Int16Array is platform-endian; every platform we run on is LE, but be exact). */
export function int16ToBytes(pcm: Int16Array): Buffer {
  const buf = Buffer.alloc(pcm.length * 2);
  for (let i = 0; i < pcm.length; i++) buf.writeInt16LE(pcm[i], i * 2);
  return buf;
}

export function bytesToInt16(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const out = new Int16Array(Math.floor(bytes.byteLength / 2));
  for (let i = 0; i < out.length; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** A canonical 44-byte-header PCM WAV, 16-bit mono. */
export function encodeWav(pcm: Int16Array, sampleRate: number): Buffer {
  const data = int16ToBytes(pcm);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'ascii');
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8, 'ascii');
  header.write('fmt ', 12, 'ascii');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'ascii');
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

export interface DecodedWav {
  pcm: Int16Array;
  sampleRate: number;
}

/**
 * Reads a 16-bit PCM WAV (mono, or the first channel of a multi-channel file),
 * walking the chunk list rather than assuming a 44-byte header: Flite and
 * other writers add chunks. Throws a plain Error; callers wrap it with context.
 */
export function decodeWav(file: Uint8Array): DecodedWav {
  const buf = Buffer.from(file.buffer, file.byteOffset, file.byteLength);
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let offset = 12;
  let channels = 0;
  let sampleRate = 0;
  let bits = 0;
  let format = 0;
  while (offset + 8 <= buf.length) {
    const id = buf.toString('ascii', offset, offset + 4);
    const size = buf.readUInt32LE(offset + 4);
    const body = offset + 8;
    if (id === 'fmt ') {
      format = buf.readUInt16LE(body);
      channels = buf.readUInt16LE(body + 2);
      sampleRate = buf.readUInt32LE(body + 4);
      bits = buf.readUInt16LE(body + 14);
    } else if (id === 'data') {
      if (format !== 1 || bits !== 16) throw new Error(`unsupported WAV encoding (format ${format}, ${bits}-bit)`);
      const end = Math.min(buf.length, body + size);
      const all = bytesToInt16(buf.subarray(body, end));
      if (channels <= 1) return { pcm: all, sampleRate };
      const frames = Math.floor(all.length / channels);
      const mono = new Int16Array(frames);
      for (let i = 0; i < frames; i++) mono[i] = all[i * channels];
      return { pcm: mono, sampleRate };
    }
    offset = body + size + (size % 2);
  }
  throw new Error('WAV file has no data chunk');
}
