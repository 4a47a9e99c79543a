import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import wavEncoder from 'wav-encoder';
import { AudioFormatError } from './errors.js';
import { toneAmplitude } from './dtmf.js';
import { int16ToFloat32, sineWave } from './pcm.js';
import { decodeWav, downmixToMono, encodeWav, readWav, wavHeader, writeWav } from './wav.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-wav-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sox(args: string[]): void {
  execFileSync('sox', args, { stdio: 'ignore' });
}

describe('WAV', () => {
  it('round-trips 16-bit mono exactly, extremes included', () => {
    const pcm = new Int16Array([0, 1, -1, 32767, -32768, 12345, -23456]);
    const wav = decodeWav(encodeWav(pcm, 16000));
    expect(wav.sampleRate).toBe(16000);
    expect(Array.from(downmixToMono(wav).samples)).toEqual(Array.from(pcm));
  });

  it('writes the same 44-byte header for streamed files as wav-encoder does for whole ones', () => {
    const left = new Int16Array(100);
    const whole = Buffer.from(wavEncoder.encode.sync({ sampleRate: 24000, channelData: [int16ToFloat32(left), int16ToFloat32(left)] }));
    expect(wavHeader(24000, 2, 400).equals(whole.subarray(0, 44))).toBe(true);
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
    sox(['-n', '-r', '22050', '-c', '1', '-e', 'floating-point', '-b', '32', path, 'synth', '0.2', 'sine', '440', 'gain', '-6']);
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
    const pcm = await readWav('/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav');
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
    expect(() => decodeWav(head, 'cut.wav')).toThrow(/cut\.wav: no format/);
    const noData = encodeWav(new Int16Array(0), 8000).subarray(0, 36);
    expect(() => decodeWav(noData, 'nodata.wav')).toThrow(/no audio \(data\) chunk/);
    const mulaw = join(dir, 'ulaw.wav');
    sox(['-n', '-r', '8000', '-e', 'mu-law', mulaw, 'synth', '0.1', 'sine', '440']);
    await expect(readWav(mulaw)).rejects.toThrow(/unsupported encoding \(format 0x7/);
    await expect(readWav(mulaw, { maxBytes: 10 })).rejects.toThrow(/over the 10-byte limit/);
  });
});
