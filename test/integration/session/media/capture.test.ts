import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  audibleBounds,
  CallRecorder,
  concatPcm,
  readWav,
  rms,
  SileroVad,
  silence,
} from '../../../../src/audio/index.js';
import type { EarshotEvent } from '../../../../src/results/events.js';
import { createStt, createTts, type SttProvider } from '../../../../src/speech/index.js';
import { BotCapture, type BotCaptureOptions } from '../../../../src/session/media/capture.js';
import { ScenarioFiles } from '../../../../src/session/media/scenario.testutil.js';

/**
 * The bot capture on real speech (Flite's rendering of a reply) delivered as a
 * bot streams it: 20 ms chunks arriving at real-time spacing. Arrival times are
 * given, not waited for, so the test is exact and fast.
 */
const RATE = 16000;
const files = new ScenarioFiles();
let vad: SileroVad;
let stt: SttProvider;
let reply: Int16Array;
beforeAll(async () => {
  vad = await SileroVad.load();
  stt = await createStt('sphinx');
  const tts = await createTts('flite', { noCache: true });
  reply = (await tts.synthesize('The capital of Germany is Berlin.', { sampleRate: RATE })).pcm;
  await tts.close();
});
afterAll(async () => {
  await vad.close();
  await stt.close();
  files.cleanup();
});

interface Rig {
  capture: BotCapture;
  events: EarshotEvent[];
  notes: Array<{ turn: number; note: string }>;
  trace: string[];
  now: { ms: number };
}

function rig(options: Partial<BotCaptureOptions> = {}): Rig {
  const events: EarshotEvent[] = [];
  const notes: Rig['notes'] = [];
  const trace: string[] = [];
  const now = { ms: 0 };
  const capture = new BotCapture({
    vad,
    recorder: null,
    stt,
    emit: (e) => events.push(e),
    trace: (l) => trace.push(l),
    note: (turn, note) => notes.push({ turn, note }),
    nowMs: () => now.ms,
    ...options,
  });
  capture.beginTurn(1);
  return { capture, events, notes, trace, now };
}

/** Pushes `pcm` as 20 ms chunks arriving in real time from `startMs`; returns the arrival of the last. */
function stream(r: Rig, pcm: Int16Array, startMs: number): number {
  const n = (RATE * 20) / 1000;
  let at = startMs;
  for (let i = 0; i < pcm.length; i += n, at += 20) {
    r.now.ms = at;
    r.capture.push({ kind: 'audio', pcm: pcm.subarray(i, i + n), sampleRate: RATE, numChannels: 1 }, at);
  }
  return at;
}

async function until(done: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!done() && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
}

const named = (events: EarshotEvent[], name: string): EarshotEvent[] => events.filter((e) => e.name === name);

describe('bot capture', () => {
  it('dates the audible start and end of the reply to the sample and transcribes the spoken segment into a response', async () => {
    const r = rig();
    const voiced = audibleBounds(reply, RATE)!;
    r.capture.speaking('started');
    const end = stream(r, concatPcm([reply, silence(800, RATE)]), 1000);
    r.now.ms = end;
    r.capture.speaking('stopped');
    await until(() => named(r.events, 'response').length > 0);
    await r.capture.finish();
    const [started] = named(r.events, 'bot_audio_started');
    const [stopped] = named(r.events, 'bot_audio_stopped');
    expect(Math.abs(started.at_ms - (1000 + (voiced.first * 1000) / RATE))).toBeLessThan(2);
    expect(Math.abs(stopped.at_ms - (1000 + (voiced.end * 1000) / RATE))).toBeLessThan(30);
    expect(named(r.events, 'response')).toEqual([
      { name: 'response', at_ms: end, text: 'the capital of germany is berlin' },
    ]);
  });

  it("holds a reply's transcript until the detector has heard its audio stop: a fast recognizer cannot put the response before bot_audio_stopped", async () => {
    const r = rig();
    r.capture.speaking('started');
    // The bot reports it stopped as soon as its last frame is out: the detector has not heard the silence after it yet.
    const end = stream(r, reply, 1000);
    r.now.ms = end;
    r.capture.speaking('stopped');
    await until(() => r.trace.some((l) => l.startsWith('transcribed:')));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(named(r.events, 'bot_audio_stopped')).toEqual([]);
    expect(named(r.events, 'response')).toEqual([]);
    // The session's tick lets the detector hear the silence: the stop, then the transcript.
    r.now.ms = end + 1500;
    r.capture.tick();
    await until(() => named(r.events, 'response').length > 0);
    expect(r.events.filter((e) => e.name === 'bot_audio_stopped' || e.name === 'response').map((e) => e.name)).toEqual([
      'bot_audio_stopped',
      'response',
    ]);
    expect(named(r.events, 'response')[0]).toMatchObject({
      text: 'the capital of germany is berlin',
      at_ms: end + 1500,
    });
    await r.capture.finish();
  });

  it('lets a held transcript go after about three seconds of ticks when the bot keeps sounding after it said it stopped', async () => {
    const r = rig();
    const voiced = audibleBounds(reply, RATE)!;
    const spoken = reply.slice(voiced.first, voiced.end);
    r.capture.speaking('started');
    const end = stream(r, spoken, 0);
    r.capture.speaking('stopped');
    await until(() => r.trace.some((l) => l.startsWith('transcribed:')));
    // More speech, without a break, a tick per 100 ms of it: the detector keeps hearing the bot.
    const more = concatPcm([spoken, spoken]);
    const chunk = (RATE * 100) / 1000;
    for (let i = 0; i < 29; i++) {
      stream(r, more.subarray(i * chunk, (i + 1) * chunk), end + i * 100);
      // As in a session, the detector has placed what arrived before the next tick.
      await new Promise((resolve) => setTimeout(resolve, 15));
      r.capture.tick();
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(named(r.events, 'response')).toEqual([]);
    r.capture.tick();
    await until(() => named(r.events, 'response').length > 0);
    expect(named(r.events, 'bot_audio_stopped')).toEqual([]);
    expect(named(r.events, 'response').map((e) => ('text' in e ? e.text : ''))).toEqual([
      'the capital of germany is berlin',
    ]);
    await r.capture.finish();
  });

  it('reports the stop when the bot just goes quiet (no more audio arrives): the idle tick lets the detector hear the silence', async () => {
    const r = rig({ stt: null });
    const end = stream(r, reply, 0);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(named(r.events, 'bot_audio_stopped')).toEqual([]);
    r.now.ms = end + 1500;
    r.capture.tick();
    await new Promise((resolve) => setTimeout(resolve, 200));
    const voiced = audibleBounds(reply, RATE)!;
    const [stopped] = named(r.events, 'bot_audio_stopped');
    // Dated to the last audible sample, not to when the silence was noticed.
    expect(Math.abs(stopped.at_ms - (voiced.end * 1000) / RATE)).toBeLessThan(30);
    await r.capture.finish();
  });

  it("reports where each run of the bot's frames ended, silence included: after a gap in arrivals, and once it has been idle", async () => {
    const ends: number[] = [];
    const r = rig({ stt: null, streamEnd: (at) => ends.push(at) });
    const sent = concatPcm([reply, silence(400, RATE)]);
    const first = 1000 + (sent.length * 1000) / RATE;
    stream(r, sent, 1000);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(ends).toEqual([]);
    // A second run arrives 1 s after the first ended: the first ended where its last frame did.
    stream(r, reply, first + 1000);
    const second = first + 1000 + (reply.length * 1000) / RATE;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ends).toEqual([first]);
    r.now.ms = second + 300;
    r.capture.tick();
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(ends).toEqual([first, second]);
    await r.capture.finish();
    expect(ends).toEqual([first, second]);
  });

  it('without speaking reports (a bot without RTVI), ends each spoken segment where its audio stops', async () => {
    const r = rig({ cutAt: 'audio' });
    const end = stream(r, concatPcm([reply, silence(900, RATE)]), 0);
    r.now.ms = end;
    await until(() => named(r.events, 'response').length > 0);
    expect(named(r.events, 'response').map((e) => ('text' in e ? e.text : ''))).toEqual([
      'the capital of germany is berlin',
    ]);
    // A speaking report, if one came, would not cut it.
    r.capture.speaking('stopped');
    await r.capture.finish();
    expect(named(r.events, 'response')).toHaveLength(1);
  });

  it('a drop (barge-in, new turn) abandons the transcription in flight: no stale response', async () => {
    const r = rig();
    r.capture.speaking('started');
    stream(r, reply, 0);
    r.capture.speaking('stopped');
    // PocketSphinx takes half a second or more: the drop lands while it runs, and its process is killed.
    await new Promise((resolve) => setTimeout(resolve, 150));
    const t0 = performance.now();
    r.capture.drop();
    await r.capture.finish();
    expect(performance.now() - t0).toBeLessThan(300);
    expect(named(r.events, 'response')).toEqual([]);
    expect(r.trace.filter((l) => l.startsWith('transcribe: abandoned'))).toHaveLength(1);
  });

  it('a recognizer that ignores the abort (a custom factory: STT, say) cannot hold up what comes after it', async () => {
    const deaf: SttProvider = {
      name: 'deaf',
      model: 'none',
      transcribe: () => new Promise(() => undefined),
      close: async () => undefined,
    };
    const r = rig({ stt: deaf });
    r.capture.speaking('started');
    stream(r, reply, 0);
    r.capture.speaking('stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
    r.capture.drop();
    const t0 = performance.now();
    await r.capture.finish();
    expect(performance.now() - t0).toBeLessThan(100);
    expect(r.trace.filter((l) => l.startsWith('transcribe: abandoned'))).toHaveLength(1);

    // Nor can it keep a finished session open.
    const again = rig({ stt: deaf });
    again.capture.speaking('started');
    stream(again, reply, 0);
    again.capture.speaking('stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const t1 = performance.now();
    await again.capture.finish();
    expect(performance.now() - t1).toBeLessThan(100);
  });

  it('a turn sent right after the bot said it finished ends the burst there: a quick next reply gets its own onset', async () => {
    const voiced = audibleBounds(reply, RATE)!;
    // Two replies 150 ms apart: less silence than the detector needs to hear an end by itself.
    const spoken = reply.slice(voiced.first, voiced.end);
    const spokenMs = (spoken.length * 1000) / RATE;
    for (const reports of [true, false]) {
      const r = rig({ stt: null });
      if (reports) r.capture.speaking('started');
      stream(r, spoken, 0);
      if (reports) r.capture.speaking('stopped');
      r.capture.drop(); // the next turn sends
      await until(() => !reports || named(r.events, 'bot_audio_stopped').length > 0, 2000);
      stream(r, concatPcm([silence(140, RATE), spoken]), spokenMs + 20);
      await r.capture.finish();
      const starts = named(r.events, 'bot_audio_started').map((e) => e.at_ms);
      if (reports) {
        expect(starts).toHaveLength(2);
        expect(Math.abs(starts[1] - (spokenMs + 160))).toBeLessThan(25);
      } else {
        // A bot that never reports speaking: nothing says the first reply was over, so one burst.
        expect(starts).toHaveLength(1);
      }
    }
  });

  it('audio before the bot reports it started speaking is not part of the spoken segment', async () => {
    const r = rig();
    stream(r, reply, 0);
    r.capture.speaking('started');
    r.capture.speaking('stopped');
    await r.capture.finish();
    expect(named(r.events, 'response')).toEqual([]);
    expect(named(r.events, 'bot_audio_started')).toHaveLength(1);
  });

  it('caps the audio taken in per turn, with one note on the turn, and starts afresh on the next turn', async () => {
    const r = rig({ maxTurnAudioMs: 500, stt: null });
    stream(r, reply, 0);
    expect(r.notes).toEqual([{ turn: 1, note: expect.stringContaining('capped at 1 s') as unknown as string }]);
    r.capture.beginTurn(2);
    stream(r, reply.subarray(0, 3200), 5000);
    expect(r.notes).toHaveLength(1);
    await r.capture.finish();
  });

  it('puts the bot audio on the recording’s right channel where the detector placed it on the session timeline', async () => {
    const path = files.path('capture.wav');
    const recorder = await CallRecorder.create({ path, sampleRate: RATE, originMs: 0 });
    const r = rig({ recorder, stt: null });
    stream(r, reply, 1000);
    await r.capture.finish();
    await recorder.close();
    const wav = await readWav(path);
    expect(wav.sampleRate).toBe(RATE);
    // readWav downmixes; the user channel is silent, so the mono mix is half the bot channel.
    const voiced = audibleBounds(reply, RATE)!;
    const at = 1000 * (RATE / 1000) + voiced.first;
    expect(rms(wav.samples, 0, 15000)).toBe(0);
    expect(rms(wav.samples, at, at + 8000)).toBeGreaterThan(0.4 * rms(reply, voiced.first, voiced.first + 8000));
  });
});
