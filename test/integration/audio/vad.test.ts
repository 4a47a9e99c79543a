import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { fliteSpeech } from '../../../src/audio/flite.testutil.js';
import { audibleBounds } from '../../../src/audio/level.js';
import { concatPcm, silence, sineWave } from '../../../src/audio/pcm.js';
import { resample } from '../../../src/audio/resample.js';
import { SileroVad } from '../../../src/audio/silero.js';
import { StreamingVad, type VadEvent, type VadFrame } from '../../../src/audio/vad.js';
import { AudioOptionError, VadModelError } from '../../../src/audio/errors.js';
import { readWav } from '../../../src/audio/wav.js';

let model: SileroVad;
let speech: Int16Array; // Flite, 16 kHz, trimmed to its audible span
beforeAll(async () => {
  model = await SileroVad.load();
  const tts = await fliteSpeech('Hello there. What is the capital of France?');
  const b = audibleBounds(tts.samples, tts.sampleRate)!;
  speech = tts.samples.slice(b.first, b.end);
});
afterAll(() => model.close());

async function detect(
  pcm: Int16Array,
  sampleRate: number,
  options: Partial<Parameters<typeof StreamingVad.create>[1]> = {},
  chunkMs = 20,
) {
  const vad = await StreamingVad.create(model, { sampleRate, ...options });
  const events: VadEvent[] = [];
  const chunk = Math.round((chunkMs * sampleRate) / 1000);
  for (let at = 0; at < pcm.length; at += chunk) events.push(...(await vad.push(pcm.subarray(at, at + chunk))));
  events.push(...(await vad.flush()));
  return events;
}

const ms = (samples: number, rate: number): number => (samples * 1000) / rate;

describe('streaming VAD (Silero v4)', () => {
  it('finds one utterance in silence: start at the speech (within a model frame or two), end at its end', async () => {
    const pcm = concatPcm([silence(1000, 16000), speech, silence(1000, 16000)]);
    const ev = await detect(pcm, 16000);
    expect(ev.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
    expect(ms(ev[0].sample, 16000) - 1000).toBeGreaterThanOrEqual(-32);
    expect(ms(ev[0].sample, 16000) - 1000).toBeLessThanOrEqual(100);
    expect(Math.abs(ms(ev[1].sample, 16000) - (1000 + ms(speech.length, 16000)))).toBeLessThanOrEqual(100);
  });

  it('takes any input rate and reports positions in input samples', async () => {
    const at16k = concatPcm([silence(700, 16000), speech, silence(700, 16000)]);
    const base = await detect(at16k, 16000);
    for (const rate of [8000, 24000, 48000]) {
      const ev = await detect(await resample(at16k, 16000, rate), rate);
      expect(ev.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
      // Same speech, other rate: the same start to within one 32 ms model frame.
      expect(Math.abs(ms(ev[0].sample, rate) - ms(base[0].sample, 16000))).toBeLessThanOrEqual(33);
      // Telephone band (8 kHz) loses the closing "s" of "France" above 4 kHz: the end comes a few frames early.
      const endTolerance = rate === 8000 ? 160 : 33;
      expect(Math.abs(ms(ev[1].sample, rate) - ms(base[1].sample, 16000))).toBeLessThanOrEqual(endTolerance);
    }
  });

  it('gives the same answer however the audio is chunked', async () => {
    const pcm = concatPcm([silence(500, 16000), speech, silence(900, 16000)]);
    const a = await detect(pcm, 16000, {}, 20);
    const b = await detect(pcm, 16000, {}, 137);
    const c = await detect(pcm, 16000, {}, 5000);
    expect(b).toEqual(a);
    expect(c).toEqual(a);
  });

  it('hears no speech in silence, in noise or in a tone', async () => {
    const noise = Int16Array.from({ length: 32000 }, () => Math.round((Math.random() * 2 - 1) * 3300)); // -20 dBFS
    expect(await detect(noise, 16000)).toEqual([]);
    expect(await detect(sineWave(1000, 2000, 16000, -10), 16000)).toEqual([]);
    expect(await detect(silence(2000, 16000), 16000)).toEqual([]);
  });

  it('minSpeechMs: a 60 ms fragment of speech is ignored, unless the minimum is one frame', async () => {
    const blip = concatPcm([silence(500, 16000), speech.subarray(3000, 3960), silence(800, 16000)]);
    expect(await detect(blip, 16000)).toEqual([]);
    expect((await detect(blip, 16000, { minSpeechMs: 32 })).map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
  });

  it('minSilenceMs: a 400 ms pause splits speech only when the redemption is shorter', async () => {
    const two = concatPcm([silence(500, 16000), speech, silence(400, 16000), speech, silence(900, 16000)]);
    expect((await detect(two, 16000, { minSilenceMs: 700 })).length).toBe(2);
    expect((await detect(two, 16000, { minSilenceMs: 200 })).map((e) => e.type)).toEqual([
      'speech_start',
      'speech_end',
      'speech_start',
      'speech_end',
    ]);
  });

  it('hears a real human voice (LibriVox) and reports each 32 ms frame in order', async () => {
    const clip = await readWav(
      '/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav',
    );
    const frames: VadFrame[] = [];
    const pcm = concatPcm([silence(1000, 16000), clip.samples, silence(1000, 16000)]);
    const ev = await detect(pcm, 16000, { onFrame: (f) => frames.push(f) });
    expect(ev[0].type).toBe('speech_start');
    expect(ms(ev[0].sample, 16000)).toBeGreaterThanOrEqual(1000 - 32);
    expect(ms(ev[0].sample, 16000)).toBeLessThan(1400);
    expect(ev[ev.length - 1].type).toBe('speech_end');
    expect(
      frames.every(
        (f, i) => f.endSample - f.startSample === 512 && (i === 0 || f.startSample === frames[i - 1].endSample),
      ),
    ).toBe(true);
    expect(frames.filter((f) => f.speaking).length).toBeGreaterThan(100);
  });

  it('ends speech that runs to the end of the stream on flush', async () => {
    const ev = await detect(concatPcm([silence(300, 16000), speech]), 16000);
    expect(ev.map((e) => e.type)).toEqual(['speech_start', 'speech_end']);
  });

  it('prints nothing: no [VAD] log lines from loading or running the model', async () => {
    const spies = (['log', 'debug', 'info', 'warn', 'error'] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation(() => {}),
    );
    try {
      const own = await SileroVad.load();
      const vad = await StreamingVad.create(own, { sampleRate: 24000, minSpeechMs: 7 });
      await vad.push(await resample(concatPcm([silence(300, 16000), speech]), 16000, 24000));
      await vad.flush();
      await own.close();
      expect(spies.flatMap((s) => s.mock.calls)).toEqual([]);
    } finally {
      for (const s of spies) s.mockRestore();
    }
  });

  it('refuses bad options and a missing model with a clear error', async () => {
    await expect(StreamingVad.create(model, { sampleRate: 16000, positiveThreshold: 1.5 })).rejects.toThrow(
      AudioOptionError,
    );
    await expect(
      StreamingVad.create(model, { sampleRate: 16000, positiveThreshold: 0.3, negativeThreshold: 0.4 }),
    ).rejects.toThrow(/negativeThreshold/);
    await expect(StreamingVad.create(model, { sampleRate: 0 })).rejects.toThrow(AudioOptionError);
    await expect(SileroVad.load({ modelPath: '/nonexistent/silero.onnx' })).rejects.toThrow(VadModelError);
    await expect(SileroVad.load({ modelPath: '/nonexistent/silero.onnx' })).rejects.toThrow(
      /\/nonexistent\/silero\.onnx/,
    );
  });
});
