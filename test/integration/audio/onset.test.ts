import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fliteSpeech } from '../../../src/audio/flite.testutil.js';
import { audibleBounds } from '../../../src/audio/level.js';
import { concatPcm, mixPcm, silence } from '../../../src/audio/pcm.js';
import { resample } from '../../../src/audio/resample.js';
import { SileroVad } from '../../../src/audio/silero.js';
import { OnsetDetector, type OnsetEvent, type PlacedChunk } from '../../../src/audio/onset.js';
import { AudioOptionError } from '../../../src/audio/errors.js';

let vad: SileroVad;
let tts: Int16Array; // Flite at 16 kHz, as synthesized: leading and trailing silence included
let crisp: Int16Array; // the same speech cut inside a vowel: an onset with no ramp, unambiguous to the sample
beforeAll(async () => {
  vad = await SileroVad.load();
  tts = (await fliteSpeech('What is the capital of France?')).samples;
  const b = audibleBounds(tts, 16000)!;
  crisp = tts.slice(b.first + 2400, b.end);
});
afterAll(() => vad.close());

/** A deterministic generator for chunk sizes and network jitter. */
function rng(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

interface Delivery {
  samples: Int16Array;
  arrivalMs: number;
}

/** How a bot streams audio: chunks of `chunkMs` (or random 10–60 ms), at real-time pace from `startMs`, arriving up to `jitterMs` late. */
function realTime(
  pcm: Int16Array,
  rate: number,
  startMs: number,
  opts: { chunkMs?: number; jitterMs?: number; seed?: number } = {},
): Delivery[] {
  const r = rng(opts.seed ?? 7);
  const out: Delivery[] = [];
  let last = -Infinity;
  for (let at = 0; at < pcm.length; ) {
    const n = Math.round(((opts.chunkMs ?? 10 + Math.floor(r() * 50)) * rate) / 1000);
    const arrival = Math.max(last, startMs + (at * 1000) / rate + r() * (opts.jitterMs ?? 0));
    out.push({ samples: pcm.subarray(at, at + n), arrivalMs: arrival });
    last = arrival;
    at += n;
  }
  return out;
}

async function feed(
  det: OnsetDetector,
  chunks: Delivery[],
  rate: number,
): Promise<{ events: OnsetEvent[]; placed: PlacedChunk[] }> {
  const placed: PlacedChunk[] = [];
  for (const c of chunks) placed.push(await det.push(c.samples, rate, c.arrivalMs));
  return { events: placed.flatMap((p) => p.events), placed };
}

const at = (startMs: number, sample: number, rate: number): number => startMs + (sample * 1000) / rate;

describe('onset detector', () => {
  it('dates the first and last audible sample of speech streamed in real time, to within 2 ms', async () => {
    const det = new OnsetDetector({ vad });
    const b = audibleBounds(tts, 16000)!;
    const chunks = realTime(tts, 16000, 1000, { chunkMs: 20, jitterMs: 5 });
    const anchor = chunks[0].arrivalMs;
    const { events, placed } = await feed(det, chunks, 16000);
    events.push(...(await det.finish()));
    expect(events.map((e) => e.type)).toEqual(['bot_audio_started', 'bot_audio_stopped']);
    expect(Math.abs(events[0].atMs - at(anchor, b.first, 16000))).toBeLessThanOrEqual(2);
    expect(Math.abs(events[1].atMs - at(anchor, b.end, 16000))).toBeLessThanOrEqual(2);
    // Chunks play back to back from the first arrival; jitter under the gap tolerance does not move them.
    expect(placed.every((p, i) => Math.abs(p.startMs - (anchor + i * 20)) < 1e-6)).toBe(true);
  });

  it('finds a hard onset to the sample, at 24 kHz, in random chunk sizes after streamed silence', async () => {
    const det = new OnsetDetector({ vad });
    const speech24 = await resample(crisp, 16000, 24000);
    const lead = silence(1200, 24000);
    const pcm = concatPcm([lead, speech24, silence(800, 24000)]);
    const chunks = realTime(pcm, 24000, 5000, { jitterMs: 3, seed: 11 });
    const { events } = await feed(det, chunks, 24000);
    events.push(...(await det.finish()));
    const truth = at(chunks[0].arrivalMs, lead.length + audibleBounds(speech24, 24000)!.first, 24000);
    expect(events[0].type).toBe('bot_audio_started');
    expect(Math.abs(events[0].atMs - truth)).toBeLessThanOrEqual(0.1);
    expect(events.map((e) => e.type)).toEqual(['bot_audio_started', 'bot_audio_stopped']);
  });

  it('places a burst (a whole reply in one message) as it would play: from its arrival', async () => {
    const det = new OnsetDetector({ vad });
    const b = audibleBounds(tts, 16000)!;
    const { events } = await feed(det, [{ samples: tts, arrivalMs: 300 }], 16000);
    events.push(...(await det.finish()));
    expect(Math.abs(events[0].atMs - at(300, b.first, 16000))).toBeLessThanOrEqual(2);
    expect(Math.abs(events[1].atMs - at(300, b.end, 16000))).toBeLessThanOrEqual(2);
  });

  it('re-anchors after a pause in sending; idle() reports the stop while nothing arrives', async () => {
    const det = new OnsetDetector({ vad });
    const b = audibleBounds(tts, 16000)!;
    const first = realTime(tts, 16000, 1000, { chunkMs: 20 });
    const r1 = await feed(det, first, 16000);
    const endOfFirst = 1000 + (tts.length * 1000) / 16000;
    const stopped = await det.idle(endOfFirst + 1000);
    expect([...r1.events, ...stopped].map((e) => e.type)).toEqual(['bot_audio_started', 'bot_audio_stopped']);
    expect(Math.abs(stopped[0].atMs - at(1000, b.end, 16000))).toBeLessThanOrEqual(2);
    expect(det.speaking).toBe(false);
    // The bot speaks again 2.7 s later: the new run starts at its own arrival, whatever filled the gap.
    const second = realTime(tts, 16000, 9000, { chunkMs: 40, jitterMs: 2, seed: 3 });
    const r2 = await feed(det, second, 16000);
    const e2 = [...r2.events, ...(await det.finish())];
    expect(e2.map((e) => e.type)).toEqual(['bot_audio_started', 'bot_audio_stopped']);
    expect(Math.abs(e2[0].atMs - at(second[0].arrivalMs, b.first, 16000))).toBeLessThanOrEqual(2);
    expect(r2.placed[0].startMs).toBe(second[0].arrivalMs);
  });

  it('a bot cut off mid-word (barge-in) stops where its audio stops', async () => {
    const det = new OnsetDetector({ vad });
    const b = audibleBounds(tts, 16000)!;
    const cutAt = b.first + 16000; // one second into the speech, mid-sentence
    const chunks = realTime(tts.subarray(0, cutAt), 16000, 2000, { chunkMs: 20 });
    const { events } = await feed(det, chunks, 16000);
    const end = await det.idle(2000 + (cutAt * 1000) / 16000 + 2000);
    const stop = [...events, ...end].find((e) => e.type === 'bot_audio_stopped')!;
    const lastAudible = audibleBounds(tts.subarray(0, cutAt), 16000)!.end;
    expect(Math.abs(stop.atMs - at(2000, lastAudible, 16000))).toBeLessThanOrEqual(2);
  });

  it('is not fooled by a low hiss under the audio', async () => {
    const det = new OnsetDetector({ vad });
    const r = rng(5);
    const pcm = concatPcm([silence(800, 16000), crisp, silence(800, 16000)]);
    const hiss = Int16Array.from({ length: pcm.length }, () => Math.round((r() * 2 - 1) * 18)); // about -68 dBFS
    const noisy = mixPcm(pcm, hiss);
    const { events } = await feed(det, realTime(noisy, 16000, 0, { chunkMs: 20 }), 16000);
    events.push(...(await det.finish()));
    expect(events.map((e) => e.type)).toEqual(['bot_audio_started', 'bot_audio_stopped']);
    expect(Math.abs(events[0].atMs - at(0, 12800 + audibleBounds(crisp, 16000)!.first, 16000))).toBeLessThanOrEqual(1);
  });

  it('follows a change of sample rate between replies', async () => {
    const det = new OnsetDetector({ vad });
    const r1 = await feed(det, realTime(tts, 16000, 0, { chunkMs: 20 }), 16000);
    const tts24 = await resample(tts, 16000, 24000);
    const r2 = await feed(det, realTime(tts24, 24000, 6000, { chunkMs: 20 }), 24000);
    const events = [...r1.events, ...r2.events, ...(await det.finish())];
    expect(events.map((e) => e.type)).toEqual([
      'bot_audio_started',
      'bot_audio_stopped',
      'bot_audio_started',
      'bot_audio_stopped',
    ]);
    expect(Math.abs(events[2].atMs - at(6000, audibleBounds(tts24, 24000)!.first, 24000))).toBeLessThanOrEqual(2);
  });

  it('reports nothing for silence, and refuses nonsense options', async () => {
    const det = new OnsetDetector({ vad });
    const { events } = await feed(det, realTime(silence(3000, 16000), 16000, 0, { chunkMs: 20 }), 16000);
    expect([...events, ...(await det.finish())]).toEqual([]);
    expect(() => new OnsetDetector({ vad, minSilenceMs: -1 })).toThrow(AudioOptionError);
    await expect(det.push(new Int16Array(10), 0, 0)).rejects.toThrow(AudioOptionError);
  });
});
