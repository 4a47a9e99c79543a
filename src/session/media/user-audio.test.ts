import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AudioFormatError, audibleBounds, encodeWav, rms, sineWave } from '../../audio/index.js';
import { createTts, type TtsProvider } from '../../speech/index.js';
import type { Turn } from '../../scenario/index.js';
import { ScenarioFiles } from './scenario.testutil.js';
import { loadTurnAudio, spokenTurns, UserAudioError } from './user-audio.js';

const files = new ScenarioFiles();
let flite: TtsProvider;
beforeAll(async () => {
  flite = await createTts('flite', { noCache: true });
});
afterAll(async () => {
  await flite.close();
  files.cleanup();
});

const turn = (t: Partial<Turn>): Turn => ({ expect: [], ...t });
const noTts = async (): Promise<TtsProvider> => {
  throw new Error('a recorded turn must not need the TTS');
};

describe('user turn audio', () => {
  it("plays a turn's recording instead of its text: any rate and channel count, downmixed and resampled", async () => {
    // 44.1 kHz stereo: a 300 Hz tone on the left, silence on the right, 500 ms.
    const left = sineWave(300, 500, 44100, -6);
    const path = files.write('caller.wav', encodeWav([left, new Int16Array(left.length)], 44100));
    const audio = await loadTurnAudio(turn({ audio: path, user: 'a tone' }), 0, { tts: noTts, sampleRate: 16000 });
    expect(audio.sampleRate).toBe(16000);
    expect(audio.samples.length).toBe(8000);
    // Averaging a full channel with a silent one halves the amplitude: about -6 dB of the left's RMS.
    const ratio = rms(audio.samples, 1000, 7000) / rms(left, 2000, 20000);
    expect(ratio).toBeGreaterThan(0.45);
    expect(ratio).toBeLessThan(0.55);
    expect(audio.label).toBe(path);
  });

  it('refuses a silent recording (the bot would hear nothing) and a missing one, naming the file', async () => {
    const quiet = files.write('quiet.wav', encodeWav(new Int16Array(1600), 16000));
    await expect(
      loadTurnAudio(turn({ audio: quiet, user: 'hello' }), 3, { tts: noTts, sampleRate: 16000 }),
    ).rejects.toThrow(UserAudioError);
    await expect(
      loadTurnAudio(turn({ audio: quiet, user: 'hello' }), 3, { tts: noTts, sampleRate: 16000 }),
    ).rejects.toThrow(/turn 3: .*quiet\.wav: the recording is silent/);
    await expect(
      loadTurnAudio(turn({ audio: files.path('absent.wav'), user: 'hello' }), 0, { tts: noTts, sampleRate: 16000 }),
    ).rejects.toThrow(AudioFormatError);
  });

  it('synthesizes the user text at the rate asked for, speech surrounded by a little silence', async () => {
    const audio = await loadTurnAudio(turn({ user: 'What is the capital of Germany?' }), 1, {
      tts: async () => flite,
      sampleRate: 24000,
    });
    expect(audio.sampleRate).toBe(24000);
    const seconds = audio.samples.length / 24000;
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(4);
    const voiced = audibleBounds(audio.samples, 24000)!;
    expect(voiced.first).toBeGreaterThan(0);
    expect(voiced.end).toBeLessThanOrEqual(audio.samples.length);
  });

  it("resamples the speech to the rate the bot takes (Pipecat does not): same sound, the bot's sample count", async () => {
    const text = 'What is the capital of Germany?';
    const at24 = await loadTurnAudio(turn({ user: text }), 1, { tts: async () => flite, sampleRate: 24000 });
    const sent = await loadTurnAudio(turn({ user: text }), 1, {
      tts: async () => flite,
      sampleRate: 24000,
      sendRate: 16000,
    });
    expect(sent.sampleRate).toBe(16000);
    expect(sent.samples.length).toBe(Math.round((at24.samples.length * 16000) / 24000));
    // The voiced span starts and ends at the same instants at either rate (within a 5 ms gate window).
    const a = audibleBounds(at24.samples, 24000)!;
    const b = audibleBounds(sent.samples, 16000)!;
    expect(Math.abs(a.first / 24 - b.first / 16)).toBeLessThan(5);
    expect(Math.abs(a.end / 24 - b.end / 16)).toBeLessThan(5);
    // A recording goes straight to the bot's rate.
    const tone = files.write('tone48.wav', encodeWav(sineWave(300, 500, 48000, -6), 48000));
    const played = await loadTurnAudio(turn({ audio: tone }), 0, { tts: noTts, sampleRate: 24000, sendRate: 16000 });
    expect([played.sampleRate, played.samples.length]).toEqual([16000, 8000]);
  });

  it('only turns with text or a recording speak', () => {
    expect(
      spokenTurns([turn({}), turn({ user: 'hi' }), turn({ dtmf: '1' }), turn({ audio: '/x.wav', user: 'x' })]),
    ).toEqual([1, 3]);
  });
});
