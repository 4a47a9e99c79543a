import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../../src/core/clock.js';
import { audibleBounds, SileroVad } from '../../../../src/audio/index.js';
import { createTts, type TtsProvider } from '../../../../src/speech/index.js';
import { UtteranceDetector, type SpeechEdge, type Utterance } from '../../../../src/refbot/input/utterance-detector.js';

/**
 * The real Silero VAD on real (Flite) speech, frame by frame as the virtual
 * microphone delivers it: the detector must find the utterance, date its
 * voiced edges to exactly the samples the energy gate finds in the audio the
 * client sent, and cut the utterance out for the recognizer.
 */
const RATE = 16000;
let vad: SileroVad;
let tts: TtsProvider;

beforeAll(async () => {
  vad = await SileroVad.load();
  tts = await createTts('flite');
});
afterAll(async () => {
  await vad.close();
  await tts.close();
});

async function listen(stream: Int16Array, firstInIndex: number): Promise<{ starts: SpeechEdge[]; ends: Utterance[] }> {
  const clock = new ManualClock(0);
  const starts: SpeechEdge[] = [];
  const ends: Utterance[] = [];
  let failure: unknown;
  const detector = await UtteranceDetector.create({
    model: vad,
    sampleRate: RATE,
    clock,
    onSpeechStart: (e) => starts.push(e),
    onSpeechEnd: (u) => ends.push(u),
    onError: (err) => (failure = err),
  });
  // 20 ms frames, played at 10 s + their position; the incoming stream had `firstInIndex` samples before.
  for (let at = 0; at < stream.length; at += 320) {
    const samples = stream.subarray(at, at + 320);
    const playedMs = 10_000 + (at * 1000) / RATE;
    clock.set(playedMs);
    detector.feed({ samples, micStart: at, inStart: firstInIndex + at, playedMs, arrivedMs: playedMs });
  }
  // Let the VAD's queued inferences finish.
  for (let i = 0; i < 200 && ends.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 50));
  if (failure) throw failure;
  return { starts, ends };
}

describe('UtteranceDetector: Silero VAD + energy gate on the microphone stream', () => {
  it('finds one utterance and dates its voiced start and end to the sample the client sent', async () => {
    const speech = (await tts.synthesize('What is the capital of France?', { sampleRate: RATE })).pcm;
    const lead = 16000; // 1 s of silence before, 1 s after
    const stream = new Int16Array(lead + speech.length + 16000);
    stream.set(speech, lead);
    const bounds = audibleBounds(speech, RATE)!;

    const { starts, ends } = await listen(stream, 5000);
    expect(starts).toHaveLength(1);
    expect(ends).toHaveLength(1);
    const [start] = starts;
    const { end, pcm } = ends[0];
    expect(start.voicedSample).toBe(lead + bounds.first);
    expect(start.inVoicedSample).toBe(5000 + lead + bounds.first);
    expect(start.voicedMs).toBeCloseTo(10_000 + ((lead + bounds.first) * 1000) / RATE, 6);
    expect(end.voicedSample).toBe(lead + bounds.end);
    expect(end.inVoicedSample).toBe(5000 + lead + bounds.end);
    expect(end.voicedMs).toBeCloseTo(10_000 + ((lead + bounds.end) * 1000) / RATE, 6);
    // The VAD's frame edges are near the voiced ones (32 ms frames, Silero's own onset lag).
    expect(Math.abs(start.vadSample - start.voicedSample!)).toBeLessThan(0.2 * RATE);
    expect(Math.abs(end.vadSample - end.voicedSample!)).toBeLessThan(0.2 * RATE);
    // The recognizer gets the whole utterance, with a little room on both sides.
    expect(pcm.length).toBeGreaterThan(bounds.end - bounds.first);
    expect(audibleBounds(pcm, RATE)!.end - audibleBounds(pcm, RATE)!.first).toBe(bounds.end - bounds.first);
  });

  it('hears nothing in silence', async () => {
    const { starts, ends } = await listen(new Int16Array(3 * RATE), 0);
    expect(starts).toEqual([]);
    expect(ends).toEqual([]);
  });
});
