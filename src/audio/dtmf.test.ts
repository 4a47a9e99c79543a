import { describe, expect, it } from 'vitest';
import { detectDtmf, dtmfFrequencies, dtmfTones, toneAmplitude } from './dtmf.js';
import { AudioFormatError } from './errors.js';
import { concatPcm, dbfsToAmplitude, silence } from './pcm.js';

describe('DTMF', () => {
  it('uses the standard keypad pairs', () => {
    expect(dtmfFrequencies('1')).toEqual({ lowHz: 697, highHz: 1209 });
    expect(dtmfFrequencies('5')).toEqual({ lowHz: 770, highHz: 1336 });
    expect(dtmfFrequencies('0')).toEqual({ lowHz: 941, highHz: 1336 });
    expect(dtmfFrequencies('#')).toEqual({ lowHz: 941, highHz: 1477 });
    expect(dtmfFrequencies('d')).toEqual({ lowHz: 941, highHz: 1633 });
  });

  it('lays out tone and gap lengths as configured', () => {
    const pcm = dtmfTones('12', { sampleRate: 8000, toneMs: 80, gapMs: 40 });
    expect(pcm.length).toBe(2 * (640 + 320));
    expect(pcm.subarray(640, 960).every((s) => s === 0)).toBe(true);
    expect(toneAmplitude(pcm, 8000, 697, 0, 640)).toBeCloseTo(dbfsToAmplitude(-10), -2);
    expect(toneAmplitude(pcm, 8000, 1209, 0, 640)).toBeCloseTo(dbfsToAmplitude(-10), -2);
    expect(toneAmplitude(pcm, 8000, 1336, 0, 640)).toBeLessThan(dbfsToAmplitude(-40));
  });

  it('every key survives a round trip through the detector, at 8 and 16 kHz', () => {
    for (const sampleRate of [8000, 16000]) {
      const digits = '0123456789*#ABCD';
      const pcm = concatPcm([silence(50, sampleRate), dtmfTones(digits, { sampleRate, toneMs: 70, gapMs: 50 })]);
      expect(
        detectDtmf(pcm, sampleRate)
          .map((d) => d.digit)
          .join(''),
      ).toBe(digits);
    }
  });

  it('repeated keys need the gap between them, and silence or speech-like single tones are not keys', () => {
    const sampleRate = 16000;
    expect(detectDtmf(dtmfTones('555', { sampleRate }), sampleRate).map((d) => d.digit)).toEqual(['5', '5', '5']);
    expect(detectDtmf(silence(500, sampleRate), sampleRate)).toEqual([]);
    const single = dtmfTones('1', { sampleRate }).map((_, i) =>
      Math.round(8000 * Math.sin((2 * Math.PI * 697 * i) / sampleRate)),
    );
    expect(detectDtmf(single, sampleRate)).toEqual([]);
  });

  it('names a bad key', () => {
    expect(() => dtmfTones('12x', { sampleRate: 8000 })).toThrow(AudioFormatError);
    expect(() => dtmfTones('12x', { sampleRate: 8000 })).toThrow(/"x"/);
  });
});
