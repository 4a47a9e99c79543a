import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AudioFormatError } from './errors.js';
import { toneAmplitude } from './dtmf.js';
import { sineWave } from './pcm.js';
import { decodeWav, downmixToMono, encodeWav, parseWav, readWav, writeWav } from './wav.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-wav-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sox(args: string[]): Buffer {
  return execFileSync('sox', args, { stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 1 << 26 });
}

/** What sox itself reads from `path`, interleaved: signed 32-bit (its internal form), or 32-bit float. */
function soxSamples(path: string, as: 'int' | 'float'): Int32Array | Float32Array {
  const raw = sox([path, '-t', 'raw', '-e', as === 'int' ? 'signed-integer' : 'floating-point', '-b', '32', '-L', '-']);
  const aligned = Buffer.from(raw);
  return as === 'int'
    ? new Int32Array(aligned.buffer, aligned.byteOffset, raw.length / 4)
    : new Float32Array(aligned.buffer, aligned.byteOffset, raw.length / 4);
}

describe('WAV', () => {
  it('round-trips 16-bit mono exactly, extremes included', () => {
    const pcm = new Int16Array([0, 1, -1, 32767, -32768, 12345, -23456]);
    const wav = decodeWav(encodeWav(pcm, 16000));
    expect(wav.sampleRate).toBe(16000);
    expect(Array.from(downmixToMono(wav).samples)).toEqual(Array.from(pcm));
  });

  it('writes files sox reads back as the same rate, channels and samples', async () => {
    const path = join(dir, 'ours.wav');
    const left = sineWave(440, 50, 24000);
    const right = Int16Array.from(left, (s, i) => (i % 2 ? -32768 : 32767) - s);
    await writeWav(path, [left, right], 24000);
    expect(sox(['--i', '-r', path]).toString().trim()).toBe('24000');
    expect(sox(['--i', '-c', path]).toString().trim()).toBe('2');
    const raw = sox([path, '-t', 'raw', '-e', 'signed-integer', '-b', '16', '-L', '-']);
    const interleaved = Array.from({ length: raw.length / 2 }, (_, i) => raw.readInt16LE(i * 2));
    expect(interleaved).toEqual(Array.from(left).flatMap((l, i) => [l, right[i]]));
  });

  it('decodes what sox writes in every PCM and float format exactly as sox reads it', () => {
    const formats: Array<[string[], number, 'pcm' | 'float']> = [
      [['-e', 'unsigned-integer', '-b', '8'], 8, 'pcm'],
      [['-e', 'signed-integer', '-b', '16'], 16, 'pcm'],
      [['-e', 'signed-integer', '-b', '24'], 24, 'pcm'],
      [['-e', 'signed-integer', '-b', '32'], 32, 'pcm'],
      [['-e', 'floating-point', '-b', '32'], 32, 'float'],
      [['-e', 'floating-point', '-b', '64'], 64, 'float'],
    ];
    for (const [encoding, bits, format] of formats) {
      for (const [channelCount, rate] of [
        [1, 22050],
        [2, 44100],
        [3, 8000],
      ]) {
        // 3 channels (and anything over 16 bits) makes sox write a WAVE_FORMAT_EXTENSIBLE header; 8-bit mono at 22.05 kHz an odd-sized data chunk (6615 bytes and a pad byte).
        const path = join(dir, `sox-${bits}${format}-${channelCount}.wav`);
        const tones = ['sine', '440', 'square', '300', 'whitenoise'].slice(
          0,
          channelCount === 3 ? 5 : channelCount * 2,
        );
        sox([
          '-n',
          '-r',
          String(rate),
          '-c',
          String(channelCount),
          ...encoding,
          path,
          'synth',
          '0.3',
          ...tones,
          'gain',
          '-1',
        ]);
        const wav = parseWav(readFileSync(path), path);
        expect(wav).toMatchObject({
          sampleRate: rate,
          channelCount,
          bitsPerSample: bits,
          format,
          frames: Number(sox(['--i', '-s', path])),
        });
        const decoded = decodeWav(readFileSync(path), path);
        const theirs = soxSamples(path, bits === 32 && format === 'float' ? 'float' : 'int');
        expect(theirs.length).toBe(wav.frames * channelCount);
        const mismatches: string[] = [];
        for (let i = 0; i < theirs.length && mismatches.length < 3; i++) {
          const [frame, channel] = [Math.floor(i / channelCount), i % channelCount];
          // sox holds samples as int32, so an int file's sample × 2^31 is exactly what it reads (its own f64 files hold int32 / 2^31 too).
          const ours =
            theirs instanceof Float32Array ? decoded.channels[channel][frame] : wav.sample(frame, channel) * 2147483648;
          if (ours !== theirs[i])
            mismatches.push(`${path} frame ${frame} channel ${channel}: ${ours} vs sox ${theirs[i]}`);
        }
        expect(mismatches).toEqual([]);
      }
    }
  });

  it('reads 8-bit as unsigned around 128 and 24-bit full scale as -1, not +1', () => {
    const u8 = Buffer.concat([encodeWav(new Int16Array(0), 8000), Buffer.from([128, 0, 255, 64])]);
    u8.writeUInt16LE(1, 32); // block align
    u8.writeUInt16LE(8, 34);
    u8.writeUInt32LE(4, 40);
    expect(Array.from(decodeWav(u8).channels[0])).toEqual([0, -1, 127 / 128, -0.5]);
    const s24 = Buffer.concat([
      encodeWav(new Int16Array(0), 8000),
      Buffer.from([0, 0, 0x80, 0xff, 0xff, 0x7f, 0xff, 0xff, 0xff]),
    ]);
    s24.writeUInt16LE(3, 32);
    s24.writeUInt16LE(24, 34);
    s24.writeUInt32LE(9, 40);
    expect(Array.from(decodeWav(s24).channels[0])).toEqual([-1, 8388607 / 8388608, -1 / 8388608]);
  });

  it('reads what a recorder that died left: a data size of 0 or past the end, a partial frame dropped', () => {
    const full = encodeWav([sineWave(220, 500, 8000), sineWave(330, 500, 8000)], 8000);
    const zeroed = Buffer.from(full);
    zeroed.writeUInt32LE(0, 40);
    expect(parseWav(zeroed).frames).toBe(4000);
    expect(Array.from(decodeWav(zeroed).channels[1])).toEqual(Array.from(decodeWav(full).channels[1]));
    const cut = full.subarray(0, 44 + 401);
    expect(parseWav(cut).frames).toBe(100);
    expect(Array.from(decodeWav(cut).channels[0])).toEqual(Array.from(decodeWav(full).channels[0].subarray(0, 100)));
  });

  it('writes stereo with channels kept apart, and downmixes by averaging', async () => {
    const path = join(dir, 'stereo.wav');
    await writeWav(path, [new Int16Array([1000, 2000]), new Int16Array([3000, -2000])], 8000);
    const wav = decodeWav(readFileSync(path));
    expect(wav.channels.length).toBe(2);
    expect(Array.from(downmixToMono(wav).samples)).toEqual([2000, 0]);
  });

  it('reads 24-bit stereo 44.1 kHz (an extensible-format file from sox) as 16 kHz mono', async () => {
    const path = join(dir, 'x24.wav');
    sox(['-n', '-r', '44100', '-c', '2', '-b', '24', path, 'synth', '0.5', 'sine', '1000', 'gain', '-6']);
    const pcm = await readWav(path, { sampleRate: 16000 });
    expect(pcm.sampleRate).toBe(16000);
    expect(pcm.samples.length).toBe(8000);
    expect(toneAmplitude(pcm.samples, 16000, 1000, 1000, 7000)).toBeCloseTo(16384, -3);
  });

  it('reads 32-bit float WAVs', async () => {
    const path = join(dir, 'f32.wav');
    sox([
      '-n',
      '-r',
      '22050',
      '-c',
      '1',
      '-e',
      'floating-point',
      '-b',
      '32',
      path,
      'synth',
      '0.2',
      'sine',
      '440',
      'gain',
      '-6',
    ]);
    const pcm = await readWav(path);
    expect(pcm.sampleRate).toBe(22050);
    expect(pcm.samples.length).toBe(4410);
    expect(toneAmplitude(pcm.samples, 22050, 440, 500, 4000)).toBeCloseTo(16384, -3);
  });

  it('skips odd-sized chunks before the data with their pad byte', () => {
    const plain = encodeWav(sineWave(440, 10, 8000), 8000);
    const list = Buffer.from([...Buffer.from('LIST'), 3, 0, 0, 0, 65, 66, 67, 0]);
    const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
    withList.writeUInt32LE(withList.length - 8, 4);
    expect(Array.from(downmixToMono(decodeWav(withList)).samples)).toEqual(Array.from(sineWave(440, 10, 8000)));
  });

  it('reads real speech: a LibriVox clip from pocketsphinx-testdata', async () => {
    const pcm = await readWav(
      '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav',
    );
    expect(pcm.sampleRate).toBe(16000);
    expect(pcm.samples.length).toBeGreaterThan(16000);
  });

  it('gives a located one-line error for a missing, foreign, truncated or unsupported file', async () => {
    await expect(readWav(join(dir, 'nope.wav'))).rejects.toThrow(/nope\.wav: no such file/);
    const text = join(dir, 'text.wav');
    writeFileSync(text, 'hello, not audio');
    await expect(readWav(text)).rejects.toThrow(AudioFormatError);
    await expect(readWav(text)).rejects.toThrow(/text\.wav: not a WAV file/);
    const head = encodeWav(sineWave(440, 10, 8000), 8000).subarray(0, 30);
    expect(() => decodeWav(head, 'cut.wav')).toThrow('cut.wav: format (fmt) chunk is truncated (10 of 16 bytes)');
    const dataFirst = Buffer.concat([
      Buffer.from('RIFF\0\0\0\0WAVEdata\0\0\0\0'),
      encodeWav(new Int16Array(0), 8000).subarray(12, 36),
    ]);
    expect(() => parseWav(dataFirst, 'odd.wav')).toThrow('odd.wav: no format (fmt) chunk before the audio data');
    const noData = encodeWav(new Int16Array(0), 8000).subarray(0, 36);
    expect(() => decodeWav(noData, 'nodata.wav')).toThrow(/no audio \(data\) chunk/);
    const mulaw = join(dir, 'ulaw.wav');
    sox(['-n', '-r', '8000', '-e', 'mu-law', mulaw, 'synth', '0.1', 'sine', '440']);
    await expect(readWav(mulaw)).rejects.toThrow(
      `${mulaw}: unsupported encoding (format 0x7, 8-bit); use PCM or float`,
    );
    const adpcm = encodeWav(new Int16Array(8), 8000);
    adpcm.writeUInt16LE(2, 20);
    expect(() => parseWav(adpcm, 'rec/x.wav')).toThrow(
      'rec/x.wav: unsupported encoding (format 0x2, 16-bit); use PCM or float',
    );
    await expect(readWav(mulaw, { maxBytes: 10 })).rejects.toThrow(/over the 10-byte limit/);
  });
});
