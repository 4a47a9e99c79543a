import { describe, expect, it } from 'vitest';
import { concatPcm, mixPcm, silence, sineWave } from '../pcm.js';
import { toneAmplitude } from '../dtmf.js';
import {
  activeLevelDbfs,
  applyConditions,
  mergeConditions,
  meanPower,
  mulawDecode,
  mulawEncode,
  timeStretch,
  type ChannelConditions,
} from './index.js';

const RATE = 16000;
/** 500 ms of silence, 2 s of a 440 Hz tone at -12 dBFS peak, 500 ms of silence. */
const probe = (): Int16Array => concatPcm([silence(500, RATE), sineWave(440, 2000, RATE, -12), silence(500, RATE)]);
const at = (ms: number): number => (ms * RATE) / 1000;

/** SNR from the noisy probe: noise power from the leading silence, signal power = (tone + noise) − noise. */
function measuredSnrDb(noisy: Int16Array): number {
  const noise = meanPower(noisy, at(20), at(480));
  const both = meanPower(noisy, at(520), at(2480));
  return 10 * Math.log10((both - noise) / noise);
}

const apply = (
  pcm: Int16Array,
  conditions: ChannelConditions,
  streamId = 0,
  chunkSamples?: number,
): Promise<Int16Array> =>
  applyConditions(pcm, conditions, { sampleRate: RATE, streamId, ...(chunkSamples ? { chunkSamples } : {}) });

describe('noise', () => {
  for (const type of ['white', 'pink'] as const) {
    for (const snr of [20, 10, 5]) {
      it(`${type} noise at ${snr} dB SNR measures within ±1 dB`, async () => {
        const noisy = await apply(probe(), { noise: { type, snr_db: snr }, seed: 7 });
        expect(Math.abs(measuredSnrDb(noisy) - snr)).toBeLessThan(1);
      });
    }
  }

  it('babble loops the given voices at the set SNR', async () => {
    // Stand-in voices: a steady chord (a stationary source keeps the measurement's windows comparable).
    const voices = mixPcm(
      mixPcm(sineWave(210, 1500, RATE, -20), sineWave(331, 1500, RATE, -20)),
      sineWave(587, 1500, RATE, -20),
    );
    const noisy = await applyConditions(
      probe(),
      { noise: { type: 'babble', snr_db: 10 }, seed: 3 },
      { sampleRate: RATE, streamId: 0, babble: async () => voices },
    );
    expect(Math.abs(measuredSnrDb(noisy) - 10)).toBeLessThan(1);
  });

  it('refuses babble with no source, naming it', async () => {
    await expect(apply(probe(), { noise: { type: 'babble', snr_db: 10 } })).rejects.toThrow(/babble/);
  });

  it('the same seed gives the same bytes; another seed, or another turn, other bytes', async () => {
    const c: ChannelConditions = {
      noise: { type: 'white', snr_db: 10 },
      loss: { rate: 0.1, burst_ms: 40, conceal: 'zero' },
      seed: 7,
    };
    const a = await apply(probe(), c);
    const b = await apply(probe(), c);
    expect(Buffer.from(a.buffer).equals(Buffer.from(b.buffer))).toBe(true);
    const other = await apply(probe(), { ...c, seed: 8 });
    expect(Buffer.from(a.buffer).equals(Buffer.from(other.buffer))).toBe(false);
    const nextTurn = await apply(probe(), c, 1);
    expect(Buffer.from(a.buffer).equals(Buffer.from(nextTurn.buffer))).toBe(false);
  });

  it('is chunk-wise: 1-sample, 20 ms and whole-buffer chunks give the same bytes', async () => {
    const c: ChannelConditions = {
      gain: { gain_db: 3, clip_dbfs: -3 },
      noise: { type: 'pink', snr_db: 15 },
      loss: { rate: 0.2, burst_ms: 60, conceal: 'repeat' },
      seed: 11,
    };
    const whole = await apply(probe(), c, 0, 1_000_000);
    const frames = await apply(probe(), c, 0, 320);
    const single = await apply(probe(), c, 0, 1);
    expect(Buffer.from(frames.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
    expect(Buffer.from(single.buffer).equals(Buffer.from(whole.buffer))).toBe(true);
  });
});

describe('telephony', () => {
  it('µ-law codes: silence is 0xFF, full scale saturates, and the round trip is within the segment step', () => {
    expect(mulawEncode(0)).toBe(0xff);
    expect(mulawDecode(0xff)).toBe(0);
    expect(mulawDecode(mulawEncode(32767))).toBe(32124);
    expect(mulawDecode(mulawEncode(-32768))).toBe(-32124);
    for (const x of [-20000, -1000, -37, 5, 100, 1234, 9000, 30000]) {
      const y = mulawDecode(mulawEncode(x));
      // 4-bit mantissa: the step is at most 1/16 of the segment, ~3.2% of the value, plus the bias near zero.
      expect(Math.abs(y - x)).toBeLessThanOrEqual(Math.abs(x) * 0.035 + 8);
    }
  });

  it('keeps the length, changes the bytes, passes 1 kHz and cuts 100 Hz and 6 kHz', async () => {
    const c: ChannelConditions = { telephony: { codec: 'mulaw' } };
    const tone = (hz: number): Int16Array => sineWave(hz, 1000, RATE, -12);
    const mid = await apply(tone(1000), c);
    expect(mid.length).toBe(RATE);
    expect(Buffer.from(mid.buffer).equals(Buffer.from(tone(1000).buffer))).toBe(false);
    const level = (pcm: Int16Array, hz: number): number =>
      20 *
      Math.log10(toneAmplitude(pcm, RATE, hz, at(200), at(800)) / toneAmplitude(tone(hz), RATE, hz, at(200), at(800)));
    expect(Math.abs(level(mid, 1000))).toBeLessThan(1);
    expect(level(await apply(tone(100), c), 100)).toBeLessThan(-20);
    expect(level(await apply(tone(6000), c), 6000)).toBeLessThan(-30);
  });
});

describe('loss', () => {
  it('loses about the set share of 20 ms packets, in bursts, and zero-fills them', async () => {
    const tone = sineWave(440, 60_000, RATE, -12);
    const out = await apply(tone, { loss: { rate: 0.1, burst_ms: 60, conceal: 'zero' }, seed: 5 });
    const packet = at(20);
    let lost = 0;
    let bursts = 0;
    let prevLost = false;
    for (let p = 0; p < out.length / packet; p++) {
      const isLost = out.subarray(p * packet, (p + 1) * packet).every((s) => s === 0);
      if (isLost) lost++;
      if (isLost && !prevLost) bursts++;
      prevLost = isLost;
    }
    const packets = out.length / packet;
    expect(lost / packets).toBeGreaterThan(0.08);
    expect(lost / packets).toBeLessThan(0.12);
    // 60 ms bursts are three packets (two bursts can abut, so a little under).
    expect(lost / bursts).toBeGreaterThan(2.5);
  });

  it('repeat concealment plays the last packet that arrived', async () => {
    const ramp = Int16Array.from({ length: at(2000) }, (_, i) => (i % 1000) + 1);
    const out = await apply(ramp, { loss: { rate: 0.3, burst_ms: 20, conceal: 'repeat' }, seed: 2 });
    const packet = at(20);
    let repeated = 0;
    for (let p = 1; p < out.length / packet; p++) {
      const cur = out.subarray(p * packet, (p + 1) * packet);
      const orig = ramp.subarray(p * packet, (p + 1) * packet);
      if (!cur.every((s, i) => s === orig[i])) {
        repeated++;
        // A concealed packet is some earlier packet as received, never silence.
        expect(cur.some((s) => s !== 0)).toBe(true);
      }
    }
    expect(repeated).toBeGreaterThan(10);
  });
});

describe('gain, clipping and speaking rate', () => {
  it('gain scales and clipping caps at clip_dbfs', async () => {
    const tone = sineWave(440, 500, RATE, -20);
    const louder = await apply(tone, { gain: { gain_db: 6.0206, clip_dbfs: 0 } });
    expect(activeLevelDbfs(louder, RATE)! - activeLevelDbfs(tone, RATE)!).toBeCloseTo(6, 1);
    const clipped = await apply(tone, { gain: { gain_db: 20, clip_dbfs: -6 } });
    expect(Math.max(...clipped)).toBeLessThanOrEqual(16423);
    expect(Math.max(...clipped)).toBeGreaterThan(16000);
  });

  it('speaking rate 1.25 is 0.8 times as long with the pitch kept', async () => {
    const tone = sineWave(440, 2000, RATE, -12);
    const fast = await apply(tone, { speaking_rate: { factor: 1.25 } });
    expect(fast.length).toBe(Math.round(tone.length / 1.25));
    const on = toneAmplitude(fast, RATE, 440, at(100), at(1500));
    expect(toneAmplitude(fast, RATE, 550, at(100), at(1500))).toBeLessThan(on / 10);
    expect(on).toBeGreaterThan(toneAmplitude(tone, RATE, 440) * 0.8);
    expect(timeStretch(tone, 0.5, RATE).length).toBe(tone.length * 2);
  });
});

describe('mergeConditions', () => {
  it('the innermost layer wins per condition', () => {
    const file: ChannelConditions = { noise: { type: 'white', snr_db: 20 }, telephony: { codec: 'mulaw' }, seed: 1 };
    const turn: ChannelConditions = { noise: { type: 'pink', snr_db: 5 } };
    expect(mergeConditions(file, undefined, turn)).toEqual({
      noise: { type: 'pink', snr_db: 5 },
      telephony: { codec: 'mulaw' },
      seed: 1,
    });
    expect(mergeConditions(undefined, undefined)).toBeUndefined();
  });

  it('leaves audio without conditions untouched', async () => {
    const tone = probe();
    expect(await apply(tone, { seed: 4 })).toBe(tone);
  });
});
