import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { monotonicClock } from '../../../../src/core/clock.js';
import { audibleBounds, resample } from '../../../../src/audio/index.js';
import { createTts } from '../../../../src/speech/index.js';
import { IncomingAudio } from '../../../../src/refbot/input/incoming-audio.js';
import { SpeechModels } from '../../../../src/refbot/input/speech-models.js';
import type { SpeechEdge, Utterance } from '../../../../src/refbot/input/utterance-detector.js';

describe('IncomingAudio: any rate, any channel count, real VAD', () => {
  const models = new SpeechModels();
  let speech48k: Int16Array;
  beforeAll(async () => {
    const tts = await createTts('flite');
    const pcm16k = (await tts.synthesize('What is the capital of Spain?', { sampleRate: 16000 })).pcm;
    await tts.close();
    speech48k = await resample(pcm16k, 16000, 48000);
  });
  afterAll(() => models.close());

  it('hears stereo 48 kHz streamed in real-time-sized messages, with edges in the incoming stream’s own samples', async () => {
    const starts: SpeechEdge[] = [];
    const ends: Utterance[] = [];
    const errors: unknown[] = [];
    const input = new IncomingAudio({
      clock: monotonicClock,
      models,
      onSpeechStart: (e) => starts.push(e),
      onSpeechEnd: (u) => ends.push(u),
      onError: (e) => errors.push(e),
    });
    const mono = new Int16Array(48000 + speech48k.length + 48000);
    mono.set(speech48k, 48000);
    const stereo = new Int16Array(mono.length * 2);
    for (let i = 0; i < mono.length; i++) stereo[2 * i] = stereo[2 * i + 1] = mono[i];
    // 20 ms messages, pushed faster than real time: each is "live" and played on arrival.
    for (let at = 0; at < stereo.length; at += 1920)
      input.push(stereo.subarray(at, at + 1920), 48000, 2, performance.now());
    for (let i = 0; i < 300 && ends.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    input.close();
    expect(errors).toEqual([]);
    expect(input.sampleRate).toBe(48000);
    expect(input.samplesIn).toBe(mono.length);
    const bounds = audibleBounds(speech48k, 48000)!;
    expect(starts).toHaveLength(1);
    expect(starts[0].inVoicedSample).toBe(48000 + bounds.first);
    expect(ends[0].end.inVoicedSample).toBe(48000 + bounds.end);
    expect(ends[0].sampleRate).toBe(48000);
  });

  it('tells the client about a sample rate it cannot use, and hears nothing from it', () => {
    const errors: unknown[] = [];
    const input = new IncomingAudio({
      clock: monotonicClock,
      models,
      onSpeechStart: () => {},
      onSpeechEnd: () => {},
      onError: (e) => errors.push(e),
    });
    input.push(new Int16Array(320), 3, 1, 0);
    expect(String(errors[0])).toMatch(/sampleRate: expected an integer between 1000 and 192000 Hz, got 3/);
    expect(input.sampleRate).toBeNull();
    input.close();
  });
});
