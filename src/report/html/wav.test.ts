import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stereoWav } from '../../results/fixtures.testutil.js';
import { WavFormatError, parseWav, waveEnvelope } from './wav.js';

function unpack(b64: string): Int8Array {
  const buf = Buffer.from(b64, 'base64');
  return new Int8Array(buf.buffer, buf.byteOffset, buf.length);
}

describe('parseWav', () => {
  it('reads a 16-bit stereo recording: rate, channels, frames and samples per channel', () => {
    const wav = parseWav(stereoWav(1, 8000, [[0, 0.5]], [[0.5, 1]]));
    expect(wav).toMatchObject({ sampleRate: 8000, channels: 2, bitsPerSample: 16, format: 'pcm', frames: 8000 });
    const peak = (ch: number, from: number, to: number): number => {
      let m = 0;
      for (let f = from; f < to; f++) m = Math.max(m, Math.abs(wav.sample(f, ch)));
      return m;
    };
    expect(peak(0, 0, 4000)).toBeGreaterThan(0.3);
    expect(peak(0, 4000, 8000)).toBe(0);
    expect(peak(1, 0, 4000)).toBe(0);
    expect(peak(1, 4000, 8000)).toBeGreaterThan(0.4);
  });

  it('reads what a recorder that died left: a data size of 0 or past the end', () => {
    const full = stereoWav(0.5, 8000, [[0, 0.5]], []);
    const zeroed = Buffer.from(full);
    zeroed.writeUInt32LE(0, 40);
    expect(parseWav(zeroed).frames).toBe(4000);
    const cut = full.subarray(0, 44 + 400);
    expect(parseWav(cut).frames).toBe(100);
  });

  it('reads files written by sox: 24-bit, 8-bit, float, mono, and extra chunks', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-wav-'));
    const cases: Array<[string[], Partial<ReturnType<typeof parseWav>>]> = [
      [['-b', '24', '-c', '2'], { bitsPerSample: 24, channels: 2 }],
      [['-b', '8', '-c', '1'], { bitsPerSample: 8, channels: 1 }],
      [['-e', 'floating-point', '-b', '32', '-c', '2'], { format: 'float', bitsPerSample: 32 }],
    ];
    for (const [args, expected] of cases) {
      const file = join(dir, `t${args.join('')}.wav`);
      execFileSync('sox', ['-n', '-r', '16000', ...args, file, 'synth', '0.25', 'sine', '440', 'vol', '0.5']);
      const wav = parseWav(readFileSync(file), file);
      expect(wav).toMatchObject({ sampleRate: 16000, frames: 4000, ...expected });
      let peak = 0;
      for (let f = 0; f < wav.frames; f++) peak = Math.max(peak, Math.abs(wav.sample(f, 0)));
      expect(peak).toBeGreaterThan(0.45);
      expect(peak).toBeLessThan(0.55);
    }
  });

  it('names the file and the problem when it is no WAV it can read', () => {
    expect(() => parseWav(Buffer.from('not a wav at all'), 'rec/x.wav')).toThrow(WavFormatError);
    expect(() => parseWav(Buffer.from('not a wav at all'), 'rec/x.wav')).toThrow('rec/x.wav: not a WAV file earshot can draw: no RIFF/WAVE header');
    const adpcm = stereoWav(0.1, 8000, [], []);
    adpcm.writeUInt16LE(2, 20);
    expect(() => parseWav(adpcm)).toThrow(/unsupported encoding \(format 2, 16 bits\)/);
  });
});

describe('waveEnvelope', () => {
  it('keeps each channel apart and places loud and silent stretches in the right buckets', () => {
    const env = waveEnvelope(parseWav(stereoWav(2, 8000, [[0, 1]], [[1, 2]])), 100);
    expect(env).toMatchObject({ buckets: 100, duration_ms: 2000, sample_rate: 8000 });
    const [left, right] = env.channels.map(unpack);
    const loud = (ch: Int8Array, b: number): number => ch[b * 2 + 1] - ch[b * 2];
    expect(loud(left, 10)).toBeGreaterThan(85);
    expect(loud(left, 90)).toBe(0);
    expect(loud(right, 10)).toBe(0);
    expect(loud(right, 90)).toBeGreaterThan(115);
  });

  it('stays a few KB however long the recording is', () => {
    const env = waveEnvelope(parseWav(stereoWav(30, 8000, [[0, 30]], [[0, 30]])), 1000);
    expect(env.channels.join('').length).toBeLessThan(6000);
  });

  it('uses one bucket per frame for very short recordings', () => {
    expect(waveEnvelope(parseWav(stereoWav(0.001, 8000, [], [])), 1000).buckets).toBe(8);
  });
});
