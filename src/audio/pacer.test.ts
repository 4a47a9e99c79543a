import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Pacer } from './pacer.js';
import type { FrameContent, PacedFrame } from './mic-types.js';
import { ManualTimerDriver } from '../core/timers.js';
import { concatPcm, silence, sineWave } from './pcm.js';
import { AudioOptionError } from './errors.js';

const RATE = 16000;
const SPF = 320;

function setup(startMs = 0) {
  const clock = new ManualClock(startMs);
  const timers = new ManualTimerDriver(clock);
  const pacer = new Pacer({ clock, timers });
  const frames: PacedFrame[] = [];
  const stream = pacer.createStream({ sampleRate: RATE, sink: (f) => void frames.push(f), label: 'a' });
  return { clock, timers, pacer, frames, stream };
}

/** A numbered ramp, so every frame's content says which samples it carries. */
function ramp(n: number, from = 1): Int16Array {
  return Int16Array.from({ length: n }, (_, i) => 1000 + ((from + i) % 20000));
}

describe('pacer: the frame grid', () => {
  it('sends one frame per 20 ms slot from a grid-aligned start, on time, silence when nothing is queued', () => {
    const { timers, frames, stream } = setup();
    timers.advanceTo(200);
    expect(stream.startMs).toBe(0);
    expect(frames.map((f) => f.dueMs)).toEqual([0, 20, 40, 60, 80, 100, 120, 140, 160, 180, 200]);
    expect(frames.every((f) => f.sentMs === f.dueMs && !f.speech && f.samples.length === SPF)).toBe(true);
    expect(frames.map((f) => f.index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  });

  it('serves every stream from one shared timer', () => {
    const { clock, timers, pacer, frames } = setup();
    const other: PacedFrame[] = [];
    clock.set(7);
    const b = pacer.createStream({ sampleRate: 24000, sink: (f) => void other.push(f), label: 'b' });
    expect(b.startMs).toBe(20);
    expect(timers.size).toBe(1);
    timers.advanceTo(100);
    expect(timers.size).toBe(1);
    expect(other.map((f) => f.dueMs)).toEqual([20, 40, 60, 80, 100]);
    expect(other[0].samples.length).toBe(480);
    expect(frames.length).toBe(6);
  });

  it('honours startAtMs by rounding up to the grid', () => {
    const { pacer, timers } = setup();
    const s = pacer.createStream({ sampleRate: RATE, sink: () => {}, startAtMs: 1001 });
    expect(s.startMs).toBe(1020);
    timers.advanceTo(1000);
    expect(s.stats().framesSent).toBe(0);
  });

  it('refuses a rate without whole samples per frame, and a closed pacer', () => {
    const { pacer } = setup();
    expect(() => pacer.createStream({ sampleRate: 11025, sink: () => {} })).toThrow(AudioOptionError);
    pacer.close();
    expect(() => pacer.createStream({ sampleRate: RATE, sink: () => {} })).toThrow(/closed/);
  });
});

describe('pacer: utterances', () => {
  it('sends queued speech frame by frame, pads the last frame, then returns to silence', async () => {
    const { clock, timers, frames, stream } = setup();
    timers.advanceTo(30);
    const speech = ramp(800);
    const u = stream.enqueue(speech, { label: 'hello' });
    timers.advanceTo(140);
    const spoken = frames.filter((f) => f.speech);
    expect(spoken.map((f) => f.dueMs)).toEqual([40, 60, 80]);
    expect(Array.from(concatPcm(spoken.map((f) => f.samples)).subarray(0, 800))).toEqual(Array.from(speech));
    expect(spoken[2].samples.subarray(160).every((s) => s === 0)).toBe(true);
    expect(frames.filter((f) => f.dueMs > 80).every((f) => !f.speech)).toBe(true);
    const t = await u.finished;
    expect(t).toMatchObject({
      state: 'completed',
      label: 'hello',
      firstFrameDueMs: 40,
      lastFrameDueMs: 80,
      samplesSent: 800,
    });
    expect(t.utteranceStartMs).toBe(40);
    expect(t.utteranceEndMs).toBe(90); // 800 samples = 50 ms after the first due time
    expect(clock.now()).toBe(140);
  });

  it('times the voiced span, not the silence a TTS engine puts around speech', async () => {
    const { timers, stream } = setup();
    const pcm = concatPcm([silence(130, RATE), sineWave(300, 200, RATE, -20), silence(70, RATE)]);
    timers.advanceTo(10);
    const u = stream.enqueue(pcm);
    timers.advanceTo(1000);
    const t = await u.finished;
    expect(t.firstFrameDueMs).toBe(20);
    // 130 ms of silence, and sin(0) = 0 makes the tone's first sample silent: one sample (1/16 ms) later.
    expect(t.utteranceStartMs).toBeCloseTo(20 + 130 + 1 / 16, 6);
    expect(t.utteranceEndMs).toBeGreaterThan(20 + 330 - 0.5);
    expect(t.utteranceEndMs).toBeLessThanOrEqual(20 + 330);
  });

  it('times a given voiced span instead, when noise over the speech would fool the gate', async () => {
    const { timers, stream } = setup();
    // Loud everywhere (noise over the whole utterance); the clean voice was 100..300 ms of it.
    const noisy = sineWave(1000, 400, RATE, -20);
    timers.advanceTo(10);
    const u = stream.enqueue(noisy, { voiced: { first: (100 * RATE) / 1000, end: (300 * RATE) / 1000 } });
    timers.advanceTo(1000);
    const t = await u.finished;
    expect(t.utteranceStartMs).toBeCloseTo(20 + 100, 6);
    expect(t.utteranceEndMs).toBeCloseTo(20 + 300, 6);
  });

  it('never places speech in a slot due before it was queued, and waits for notBeforeMs', async () => {
    const { timers, stream, clock } = setup();
    timers.advanceTo(40);
    clock.advance(0.5); // just after the frame due at 40 went out
    const a = stream.enqueue(ramp(320));
    const b = stream.enqueue(ramp(320), { notBeforeMs: 195 });
    timers.advanceTo(300);
    expect((await a.finished).firstFrameDueMs).toBe(60);
    expect((await b.finished).firstFrameDueMs).toBe(200);
  });

  it('plays queued utterances back to back in order', async () => {
    const { timers, stream, frames } = setup();
    const a = stream.enqueue(ramp(640)); // queued at 0, before the frame due at 0 went out
    const b = stream.enqueue(ramp(320));
    timers.advanceTo(200);
    expect((await a.finished).firstFrameDueMs).toBe(0);
    expect((await a.finished).lastFrameDueMs).toBe(20);
    expect((await b.finished).firstFrameDueMs).toBe(40);
    expect(frames.map((f) => f.utteranceId)).toEqual([1, 1, 2, null, null, null, null, null, null, null, null]);
  });

  it('barge-in: cancelSpeech cuts at the next frame boundary and drops the queue', async () => {
    const { timers, stream, frames } = setup();
    timers.advanceTo(10);
    const a = stream.enqueue(ramp(16000));
    const b = stream.enqueue(ramp(320));
    timers.advanceTo(100);
    const cut = stream.cancelSpeech();
    expect(cut.map((t) => t.state)).toEqual(['cancelled', 'cancelled']);
    timers.advanceTo(200);
    expect(frames.filter((f) => f.dueMs > 100).every((f) => !f.speech)).toBe(true);
    const ta = await a.finished;
    expect(ta).toMatchObject({ state: 'cancelled', firstFrameDueMs: 20, lastFrameDueMs: 100, samplesSent: 5 * 320 });
    expect(ta.utteranceEndMs).toBe(120); // the cut: end of the last frame sent
    const tb = await b.finished;
    expect(tb).toMatchObject({ state: 'cancelled', firstFrameDueMs: null, utteranceStartMs: null });
    expect(stream.speaking).toBe(false);
  });

  it('speak() resolves when sent, and rejects with the reason when aborted (cancelling the utterance)', async () => {
    const { timers, stream, frames } = setup();
    const done = stream.speak(ramp(640));
    timers.advanceTo(100);
    expect((await done).state).toBe('completed');
    const ac = new AbortController();
    const pending = stream.speak(ramp(16000), { signal: ac.signal });
    timers.advanceTo(160);
    ac.abort(new Error('user hung up'));
    await expect(pending).rejects.toThrow('user hung up');
    timers.advanceTo(240);
    expect(frames.filter((f) => f.dueMs > 160).every((f) => !f.speech)).toBe(true);
  });
});

describe('pacer: encoding ahead of the deadline', () => {
  function encoded() {
    const clock = new ManualClock(0);
    const timers = new ManualTimerDriver(clock, 2); // early work runs 2 ms before each tick
    const pacer = new Pacer({ clock, timers });
    const encodedAt: number[] = [];
    const frames: PacedFrame<string>[] = [];
    const encode = (f: FrameContent): string => {
      encodedAt.push(clock.now());
      return `${f.index}:${f.speech ? 'speech' : 'silence'}:${f.samples[0]}`;
    };
    const stream = pacer.createStream({ sampleRate: RATE, encode, sink: (f) => void frames.push(f) });
    return { clock, timers, stream, frames, encodedAt };
  }

  it('hands the sink a payload encoded before the deadline, once per frame', () => {
    const { timers, stream, frames, encodedAt } = encoded();
    timers.advanceTo(15);
    stream.enqueue(ramp(640));
    timers.advanceTo(100);
    expect(frames.map((f) => f.payload)).toEqual([
      '0:silence:0',
      '1:speech:1001',
      '2:speech:1321',
      '3:silence:0',
      '4:silence:0',
      '5:silence:0',
    ]);
    expect(encodedAt).toEqual([0, 18, 38, 58, 78, 98]); // 2 ms ahead (frame 0: as soon as the stream existed)
    expect(stream.stats().preparedFrames).toBe(6);
  });

  it('re-encodes a frame whose content changed after it was prepared (speech queued, or cut, in the last 2 ms)', () => {
    const { clock, timers, stream, frames } = encoded();
    timers.advanceTo(39);
    expect(clock.now()).toBe(39); // frame 2 is prepared as silence
    stream.enqueue(ramp(320 * 3), { notBeforeMs: 39 });
    timers.advanceTo(79);
    stream.cancelSpeech(); // frame 4 was prepared as speech
    timers.advanceTo(100);
    expect(frames.map((f) => f.payload)).toEqual([
      '0:silence:0',
      '1:silence:0',
      '2:speech:1001',
      '3:speech:1321',
      '4:silence:0',
      '5:silence:0',
    ]);
    expect(frames.every((f) => f.payload.startsWith(`${f.index}:${f.speech ? 'speech' : 'silence'}`))).toBe(true);
  });
});

describe('pacer: falling behind', () => {
  it('speech catches up: overdue speech frames go out back to back with their own due times', () => {
    const { timers, stream, frames } = setup();
    stream.enqueue(ramp(320 * 10));
    timers.advanceTo(40);
    timers.stall(75); // event loop blocked until 115
    timers.fireDue();
    const burst = frames.filter((f) => f.sentMs === 115);
    expect(burst.map((f) => f.dueMs)).toEqual([60, 80, 100]);
    expect(burst.every((f) => f.speech)).toBe(true);
    timers.advanceTo(200);
    expect(frames.filter((f) => f.dueMs > 100).every((f) => f.sentMs === f.dueMs)).toBe(true);
    expect(stream.stats().skippedSilenceFrames).toBe(0);
    expect(stream.stats().lateness.maxMs).toBe(55);
  });

  it('a voiced edge carried by a late frame is timed when it was sent: the bot cannot hear it earlier', async () => {
    const { timers, stream } = setup();
    const u = stream.enqueue(ramp(320 * 5)); // frames due 0..80, voiced to the end of the 80 ms frame
    timers.advanceTo(70);
    timers.stall(25); // blocked until 95: the frame due at 80 leaves 15 ms late
    timers.fireDue();
    timers.advanceTo(200);
    const t = await u.finished;
    expect(t.utteranceStartMs).toBe(0); // its first frame left on time
    expect(t.utteranceEndMs).toBe(100 + 15);
  });

  it('silence never bursts: late silence frames are skipped, only the newest goes out', () => {
    const { timers, stream, frames } = setup();
    timers.advanceTo(40);
    timers.stall(75);
    timers.fireDue();
    expect(frames.filter((f) => f.sentMs === 115).map((f) => f.dueMs)).toEqual([100]);
    const st = stream.stats();
    expect(st.skippedSilenceFrames).toBe(2);
    expect(st.frameSlots).toBe(st.framesSent + st.skippedSilenceFrames);
  });

  it('after a stall in silence, speech queued during it starts at the first slot due after it was queued', () => {
    const { timers, stream, frames, clock } = setup();
    timers.advanceTo(40);
    clock.advance(5);
    stream.enqueue(ramp(320 * 3)); // queued at 45
    timers.stall(100); // loop blocked until 145
    timers.fireDue();
    const sentAt145 = frames.filter((f) => f.sentMs === 145);
    expect(sentAt145.map((f) => [f.dueMs, f.speech])).toEqual([
      [60, true],
      [80, true],
      [100, true],
      [140, false], // the slot due at 120 was late silence: skipped
    ]);
  });

  it('keeps zero drift over an hour: every due time is start + n × 20 ms, and memory stays bounded', () => {
    const clock = new ManualClock(0);
    const timers = new ManualTimerDriver(clock);
    const pacer = new Pacer({ clock, timers });
    let last: PacedFrame | null = null;
    let count = 0;
    const stream = pacer.createStream({
      sampleRate: 8000,
      recordFrames: 1000,
      sink: (f) => {
        last = f;
        count++;
      },
    });
    for (let t = 0; t <= 3_600_000; t += 60_000) {
      timers.advanceTo(t);
      if (t % 600_000 === 0) stream.enqueue(ramp(8000 * 5));
    }
    const st = stream.stats();
    expect(count).toBe(180_001);
    expect(last!.dueMs).toBe(180_000 * 20);
    expect(st.lastDueMs).toBe(3_600_000);
    expect(st.speechFrames).toBe(6 * 250);
    expect(st.recordsKept).toBe(1000);
    expect(st.recordsTruncated).toBe(true);
    expect(st.lateness.count).toBe(180_001);
    expect(stream.frameRecords()[999]).toEqual({ index: 999, dueMs: 19_980, sentMs: 19_980, speech: false });
  });
});

describe('pacer: ending streams', () => {
  it('stop() ends the stream, cancels its speech and releases the timer when no stream is left', async () => {
    const { timers, stream, frames } = setup();
    const u = stream.enqueue(ramp(16000));
    timers.advanceTo(60);
    stream.stop();
    const end = await stream.ended;
    expect(end.end).toEqual({ reason: 'stopped' });
    expect((await u.finished).state).toBe('cancelled');
    expect(timers.size).toBe(0);
    timers.advanceTo(200);
    expect(frames.length).toBe(4);
    expect(stream.enqueue(ramp(10)).state).toBe('cancelled');
  });

  it('an aborted signal ends the stream with reason aborted', async () => {
    const { pacer, timers } = setup();
    const ac = new AbortController();
    const s = pacer.createStream({ sampleRate: RATE, sink: () => {}, signal: ac.signal });
    timers.advanceTo(40);
    ac.abort();
    expect((await s.ended).end?.reason).toBe('aborted');
  });

  it('a sink that throws or rejects ends its stream with sink_error; the other streams carry on', async () => {
    const { pacer, timers, frames } = setup();
    const bad = pacer.createStream({
      sampleRate: RATE,
      sink: (f) => {
        if (f.index === 2) throw new Error('socket closed');
      },
    });
    const bad2 = pacer.createStream({
      sampleRate: RATE,
      sink: async (f) => {
        if (f.index === 1) throw new Error('send failed');
      },
    });
    timers.advanceTo(100);
    expect((await bad.ended).end).toEqual({ reason: 'sink_error', error: 'socket closed' });
    expect((await bad2.ended).end).toEqual({ reason: 'sink_error', error: 'send failed' });
    expect(bad.stats().framesSent).toBe(3);
    expect(frames.length).toBe(6);
  });

  it('close() ends every stream with reason pacer_closed', async () => {
    const { pacer, stream, timers } = setup();
    timers.advanceTo(20);
    pacer.close();
    expect((await stream.ended).end?.reason).toBe('pacer_closed');
    expect(pacer.stats()).toMatchObject({ activeStreams: 0, streamsCreated: 1, ticks: 2 });
  });
});

describe('pacer: real time', () => {
  it('on the real clock, never sends a frame before it is due and accounts for every slot', async () => {
    const pacer = new Pacer();
    const frames: PacedFrame[][] = [[], [], []];
    const streams = frames.map((list, i) =>
      pacer.createStream({ sampleRate: RATE, label: `s${i}`, sink: (f) => void list.push(f) }),
    );
    streams[1].enqueue(ramp(320 * 20));
    await new Promise((r) => setTimeout(r, 600));
    const elapsedSlots = Math.floor((pacer.clock.now() - streams[0].startMs) / 20) + 1;
    pacer.close();
    for (const [i, list] of frames.entries()) {
      expect(list.every((f) => f.sentMs >= f.dueMs)).toBe(true);
      expect(list.every((f, k) => k === 0 || f.dueMs > list[k - 1].dueMs)).toBe(true);
      const st = streams[i].stats();
      expect(st.frameSlots).toBe(st.framesSent + st.skippedSilenceFrames);
      // Every slot that came due was served (the tick in flight when the test looks may still be pending).
      expect(st.frameSlots).toBeLessThanOrEqual(elapsedSlots);
      expect(st.frameSlots).toBeGreaterThanOrEqual(elapsedSlots - 2);
      expect(list.every((f) => f.dueMs === streams[i].startMs + f.index * 20)).toBe(true);
    }
    expect(frames[1].filter((f) => f.speech).length).toBe(20);
  });
});
