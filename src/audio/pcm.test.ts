import { describe, expect, it } from 'vitest';
import {
  applyGain,
  bytesToInt16,
  concatPcm,
  dbfsToAmplitude,
  downmix,
  float32ToInt16,
  int16ToBytes,
  int16ToFloat32,
  mixPcm,
  msForSamples,
  padWithSilence,
  rms,
  rmsDbfs,
  samplesForMs,
  silence,
  sineWave,
} from './pcm.js';
import { AudioFormatError, AudioOptionError } from './errors.js';

describe('pcm', () => {
  it('converts between ms and samples at any rate', () => {
    expect(samplesForMs(20, 16000)).toBe(320);
    expect(samplesForMs(20, 24000)).toBe(480);
    expect(samplesForMs(10, 44100)).toBe(441);
    expect(msForSamples(480, 24000)).toBe(20);
  });

  it('downmixes interleaved channels by averaging, rounding, and drops a partial frame', () => {
    expect([...downmix(Int16Array.from([100, 300, -5, -6, 7, 8]), 2)]).toEqual([200, -5, 8]);
    expect([...downmix(Int16Array.from([3, 3, 4, 9]), 3)]).toEqual([3]);
    expect([...downmix(Int16Array.from([32767, 32767, -32768, -32768]), 2)]).toEqual([32767, -32768]);
    expect([...downmix(Int16Array.from([1, 2, 3]), 1)]).toEqual([1, 2, 3]);
  });

  it('pads with exact zeros on both sides', () => {
    expect(Array.from(padWithSilence(Int16Array.from([5, 6]), 2))).toEqual([0, 0, 5, 6, 0, 0]);
    const pcm = Int16Array.from([1]);
    expect(padWithSilence(pcm, 0)).toBe(pcm);
  });

  it('round-trips every 16-bit value through float32 exactly', () => {
    const all = new Int16Array(65536);
    for (let i = 0; i < all.length; i++) all[i] = i - 32768;
    expect(Array.from(float32ToInt16(int16ToFloat32(all)))).toEqual(Array.from(all));
  });

  it('clips float overshoot instead of wrapping around', () => {
    expect(Array.from(float32ToInt16(new Float32Array([1.5, -1.5, 0.5])))).toEqual([32767, -32768, 16384]);
  });

  it('writes little-endian bytes and reads them back, at any byte offset', () => {
    const pcm = new Int16Array([1, -2, 0x1234, -32768, 32767]);
    const bytes = int16ToBytes(pcm);
    expect(Array.from(bytes.subarray(0, 6))).toEqual([1, 0, 0xfe, 0xff, 0x34, 0x12]);
    const odd = Buffer.alloc(bytes.length + 1);
    bytes.copy(odd, 1);
    expect(Array.from(bytesToInt16(odd.subarray(1)))).toEqual(Array.from(pcm));
  });

  it('bytes of a subarray are only that subarray', () => {
    const pcm = new Int16Array([5, 6, 7, 8]);
    expect(Array.from(bytesToInt16(int16ToBytes(pcm.subarray(1, 3))))).toEqual([6, 7]);
  });

  it('refuses an odd byte count with the source named', () => {
    expect(() => bytesToInt16(new Uint8Array(3), 'raw-audio message')).toThrow(AudioFormatError);
    expect(() => bytesToInt16(new Uint8Array(3), 'raw-audio message')).toThrow(/raw-audio message: .*even byte count/);
  });

  it('makes silence of the right length and refuses a nonsense rate', () => {
    expect(silence(20, 16000)).toEqual(new Int16Array(320));
    expect(() => silence(20, 0)).toThrow(AudioOptionError);
  });

  it('concatenates and mixes with saturation', () => {
    expect(Array.from(concatPcm([new Int16Array([1, 2]), new Int16Array([]), new Int16Array([3])]))).toEqual([1, 2, 3]);
    const mixed = mixPcm(new Int16Array([30000, 1, 2]), new Int16Array([10000, -5, 7]), 0);
    expect(Array.from(mixed)).toEqual([32767, -4, 9]);
    expect(Array.from(mixPcm(new Int16Array([1]), new Int16Array([2, 3]), 2))).toEqual([1, 0, 2, 3]);
  });

  it('applies gain in dB', () => {
    const g = applyGain(new Int16Array([1000, -1000, 30000]), 6.0206);
    expect(Array.from(g)).toEqual([2000, -2000, 32767]);
  });

  it('measures RMS and dBFS: a full-scale sine is -3 dBFS, silence is -Infinity', () => {
    const sine = sineWave(1000, 1000, 16000, 0);
    expect(rmsDbfs(sine)).toBeCloseTo(-3.01, 1);
    expect(rmsDbfs(new Int16Array(100))).toBe(-Infinity);
    expect(rms(new Int16Array([3, -4, 3, -4]))).toBeCloseTo(Math.sqrt(12.5), 6);
    expect(dbfsToAmplitude(-6.0206)).toBeCloseTo(16384, 0);
  });
});
