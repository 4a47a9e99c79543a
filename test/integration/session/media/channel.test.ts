import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyConditions, concatPcm, encodeWav, meanPower, silence, sineWave } from '../../../../src/audio/index.js';
import type { Scenario } from '../../../../src/scenario/index.js';
import { CallerChannel } from '../../../../src/session/media/channel.js';
import { createTts, type TtsProvider } from '../../../../src/speech/index.js';

/**
 * The caller's line with real sources: babble made of Flite's bundled voices
 * (the session's TTS), and a noise recording read from a WAV file, each at
 * its SNR within ±1 dB on a 440 Hz probe with silence either side.
 */
const RATE = 16000;
const at = (ms: number): number => (ms * RATE) / 1000;
const probe = concatPcm([silence(500, RATE), sineWave(440, 2000, RATE, -12), silence(500, RATE)]);
const snrOf = (noisy: Int16Array): number => {
  const noise = meanPower(noisy, at(20), at(480));
  return 10 * Math.log10((meanPower(noisy, at(520), at(2480)) - noise) / noise);
};
let tts: TtsProvider;
const dir = mkdtempSync(join(tmpdir(), 'earshot-channel-'));

beforeAll(async () => {
  tts = await createTts('flite', { noCache: true });
});
afterAll(async () => {
  await tts.close();
  rmSync(dir, { recursive: true, force: true });
});

const scenario = (conditions: Scenario['conditions']): Scenario =>
  ({ kind: 'script', name: 's', turns: [], conditions }) as unknown as Scenario;

describe('CallerChannel', () => {
  it('babble from four bundled Flite voices at 10 dB SNR, the same on every call with the same seed', async () => {
    const channel = new CallerChannel({
      scenario: scenario({ noise: { type: 'babble', snr_db: 10 }, seed: 5 }),
      sampleRate: RATE,
      babbleTts: async () => tts,
    });
    const noisy = await channel.degrade(probe, undefined, 0);
    expect(Math.abs(snrOf(noisy) - 10)).toBeLessThan(1);
    expect(Buffer.from((await channel.degrade(probe, undefined, 0)).buffer).equals(Buffer.from(noisy.buffer))).toBe(
      true,
    );
  }, 60_000);

  it('a noise WAV looped at 5 dB SNR', async () => {
    // Two seconds of a steady two-tone hum as the "room".
    const hum = concatPcm(
      [sineWave(120, 2000, RATE, -20)].map((h) =>
        h.map((s, i) => s + Math.round(800 * Math.sin((2 * Math.PI * 2300 * i) / RATE))),
      ),
    );
    const file = join(dir, 'room.wav');
    writeFileSync(file, encodeWav(hum, RATE));
    const noisy = await applyConditions(
      probe,
      { noise: { type: 'wav', path: file, snr_db: 5 }, seed: 2 },
      { sampleRate: RATE, streamId: 0 },
    );
    expect(Math.abs(snrOf(noisy) - 5)).toBeLessThan(1);
  });

  it('--condition and --seed over the scenario, a turn replacing a condition', () => {
    const channel = new CallerChannel({
      scenario: scenario({ noise: { type: 'pink', snr_db: 30 }, seed: 1 }),
      sampleRate: RATE,
      overrides: { noise: { snr_db: 10 } },
      seed: 9,
    });
    expect(channel.conditionsFor(undefined)).toEqual({ noise: { type: 'pink', snr_db: 10 }, seed: 9 });
    expect(channel.conditionsFor({ conditions: { telephony: { codec: 'mulaw' } } })).toEqual({
      noise: { type: 'pink', snr_db: 10 },
      telephony: { codec: 'mulaw' },
      seed: 9,
    });
    expect(channel.seedFor([])).toBe(9);
    expect(new CallerChannel({ scenario: scenario(undefined), sampleRate: RATE }).seedFor([{}])).toBeNull();
  });
});
