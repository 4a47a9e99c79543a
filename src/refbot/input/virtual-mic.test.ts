import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ManualTimerDriver } from '../../core/timers.js';
import { type MicFrame, VirtualMic } from './virtual-mic.js';

const RATE = 16000;
const FRAME = 320; // 20 ms

function setup(): { clock: ManualClock; timers: ManualTimerDriver; mic: VirtualMic; frames: MicFrame[] } {
  const clock = new ManualClock(1000);
  const timers = new ManualTimerDriver(clock);
  const frames: MicFrame[] = [];
  const mic = new VirtualMic({ sampleRate: RATE, clock, timers, onFrame: (f) => frames.push(f) });
  return { clock, timers, mic, frames };
}

function tone(samples: number, value = 1000): Int16Array {
  return new Int16Array(samples).fill(value);
}

describe('VirtualMic: live frames (a client streaming its microphone in real time)', () => {
  it('plays each 20 ms message the moment it arrives, stamped with its arrival, at its place in the incoming stream', () => {
    const { clock, timers, mic, frames } = setup();
    for (let i = 0; i < 5; i++) {
      mic.push(tone(FRAME, i + 1), clock.now());
      timers.advance(20);
    }
    expect(frames.map((f) => f.playedMs)).toEqual([1000, 1020, 1040, 1060, 1080]);
    expect(frames.map((f) => f.inStart)).toEqual([0, 320, 640, 960, 1280]);
    expect(frames.map((f) => f.micStart)).toEqual([0, 320, 640, 960, 1280]);
    expect(frames.map((f) => f.samples[0])).toEqual([1, 2, 3, 4, 5]);
    expect(mic.samplesIn).toBe(1600);
  });

  it('adds no delay for a frame that arrives late: it plays on arrival (the time is the arrival)', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(FRAME), clock.now());
    timers.advance(27); // 7 ms late
    mic.push(tone(FRAME), clock.now());
    expect(frames[1].playedMs).toBe(1027);
    expect(frames[1].arrivedMs).toBe(1027);
  });

  it('invents nothing while a live stream stalls briefly: a late frame just plays late', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(FRAME), clock.now());
    timers.advance(400); // a busy client
    mic.push(tone(FRAME), clock.now());
    expect(frames.map((f) => [f.inStart, f.playedMs])).toEqual([
      [0, 1000],
      [320, 1400],
    ]);
  });

  it('fills in silence once a live stream has stopped for a second, from where it stopped; the silence has no incoming index', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(FRAME), clock.now()); // plays 1000..1020
    timers.advance(1100);
    const silence = frames.slice(1);
    expect(silence.length).toBeGreaterThanOrEqual(50);
    expect(silence[0].playedMs).toBe(1020);
    expect(silence.every((f) => f.inStart === null && f.arrivedMs === null && f.samples.every((x) => x === 0))).toBe(
      true,
    );
    // Live audio again: it plays at once, and its incoming index continues where the stream left off.
    mic.push(tone(FRAME, 9), clock.now());
    const resumed = frames[frames.length - 1];
    expect(resumed.inStart).toBe(320);
    expect(resumed.playedMs).toBe(clock.now());
    expect(resumed.micStart).toBe(frames.slice(0, -1).reduce((n, f) => n + f.samples.length, 0));
  });
});

describe('VirtualMic: uploads (older clients send an utterance in a few large messages)', () => {
  it('plays a 1 s message out at real time, one 20 ms frame per tick', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(RATE), clock.now());
    expect(frames).toHaveLength(1);
    timers.advance(500);
    expect(frames.length).toBe(26); // frames due at 0, 20, ..., 500 ms
    timers.advance(480);
    expect(frames.length).toBe(50);
    expect(frames.map((f) => f.playedMs - 1000)).toEqual(Array.from({ length: 50 }, (_, i) => i * 20));
    expect(frames.every((f) => f.arrivedMs === 1000)).toBe(true);
  });

  it('queues a live frame that arrives during an upload behind it (order is kept)', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(3200, 1), clock.now()); // 200 ms upload
    timers.advance(50);
    mic.push(tone(FRAME, 2), clock.now());
    timers.advance(300);
    const values = frames.filter((f) => f.inStart !== null).map((f) => f.samples[0]);
    expect(values).toEqual([...Array(10).fill(1), 2]);
    expect(frames.find((f) => f.samples[0] === 2)!.playedMs).toBe(1200);
  });

  it('generates silence between uploads so a VAD can end the turn', () => {
    const { clock, timers, mic, frames } = setup();
    mic.push(tone(1600), clock.now()); // 100 ms
    timers.advance(1000);
    const played = frames.filter((f) => f.inStart === null);
    expect(played.length).toBeGreaterThanOrEqual(44);
    // Back to back on the microphone's timeline: no gap, no overlap.
    for (let i = 1; i < frames.length; i++)
      expect(frames[i].micStart).toBe(frames[i - 1].micStart + frames[i - 1].samples.length);
  });
});

it('VirtualMic.close stops every timer: nothing more is delivered', () => {
  const { clock, timers, mic, frames } = setup();
  mic.push(tone(RATE), clock.now());
  mic.close();
  timers.advance(2000);
  expect(frames).toHaveLength(1);
  expect(timers.size).toBe(0);
});
