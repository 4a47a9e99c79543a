import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ManualTimerDriver } from '../../core/timers.js';
import { type SentFrame, Speaker } from './speaker.js';

const RATE = 16000;

function setup(): {
  clock: ManualClock;
  timers: ManualTimerDriver;
  speaker: Speaker;
  wire: Array<{ atMs: number; samples: number; first: number }>;
} {
  const clock = new ManualClock(500);
  const timers = new ManualTimerDriver(clock);
  const wire: Array<{ atMs: number; samples: number; first: number }> = [];
  const speaker = new Speaker({
    clock,
    timers,
    sampleRate: RATE,
    send: (pcm) => wire.push({ atMs: clock.now(), samples: pcm.length, first: pcm[0] }),
  });
  return { clock, timers, speaker, wire };
}

function ramp(samples: number, from = 0): Int16Array {
  return Int16Array.from({ length: samples }, (_, i) => from + i);
}

describe('Speaker: the bot audio pacer', () => {
  it('sends the first frame at once and the rest every 20 ms from that instant, the last frame short', () => {
    const { timers, speaker, wire } = setup();
    speaker.play({ pcm: ramp(1000) });
    expect(wire).toHaveLength(1);
    timers.advance(100);
    expect(wire.map((w) => w.atMs)).toEqual([500, 520, 540, 560]);
    expect(wire.map((w) => w.samples)).toEqual([320, 320, 320, 40]);
    expect(speaker.samplesOut).toBe(1000);
    expect(speaker.idle).toBe(true);
  });

  it('plays queued segments back to back, calling onStart just before each first frame and onDone after each last', () => {
    const { timers, speaker, wire } = setup();
    const log: string[] = [];
    speaker.play({
      pcm: ramp(640),
      onStart: (s) => log.push(`start A @${s.outStart}`),
      onDone: () => log.push(`done A @${wire.length}`),
    });
    speaker.play({
      pcm: ramp(640, 5000),
      onStart: (s) => log.push(`start B @${s.outStart} after ${wire.length} frames`),
      onDone: () => log.push('done B'),
    });
    timers.advance(200);
    expect(log).toEqual(['start A @0', 'done A @2', 'start B @640 after 2 frames', 'done B']);
    expect(wire.map((w) => w.atMs)).toEqual([500, 520, 540, 560]);
    expect(wire[2].first).toBe(5000);
  });

  it('reports each frame with its position in the outgoing stream and its send time', () => {
    const { timers, speaker } = setup();
    const frames: Array<[SentFrame, number]> = [];
    speaker.play({ pcm: ramp(960), onFrame: (f, offset) => frames.push([f, offset]) });
    timers.advance(60);
    expect(frames).toEqual([
      [{ outStart: 0, samples: 320, sentMs: 500 }, 0],
      [{ outStart: 320, samples: 320, sentMs: 520 }, 320],
      [{ outStart: 640, samples: 320, sentMs: 540 }, 640],
    ]);
  });

  it('stop() silences it between two frames: nothing after the frame already sent', () => {
    const { timers, speaker, wire } = setup();
    speaker.play({ pcm: ramp(16000) });
    timers.advance(95);
    const last = speaker.stop();
    expect(last).toEqual({ outStart: 4 * 320, samples: 320, sentMs: 580 });
    timers.advance(1000);
    expect(wire).toHaveLength(5);
    expect(timers.size).toBe(0);
  });

  it('catches up after a stall by sending the overdue frames back to back, keeping the schedule', () => {
    const { timers, speaker, wire } = setup();
    speaker.play({ pcm: ramp(3200) });
    timers.stall(65);
    timers.fireDue();
    // Due at 520, 540 and 560: all three go out at 565.
    expect(wire.map((w) => w.atMs)).toEqual([500, 565, 565, 565]);
    timers.advance(15);
    expect(wire[4].atMs).toBe(580); // back on the 20 ms grid from 500
  });

  it('starts a new schedule when audio is queued after it went idle', () => {
    const { timers, speaker, wire } = setup();
    speaker.play({ pcm: ramp(320) });
    timers.advance(333);
    speaker.play({ pcm: ramp(640) });
    timers.advance(40);
    expect(wire.map((w) => w.atMs)).toEqual([500, 833, 853]);
  });

  it('burst() sends a whole segment at once (the audio-burst fault)', () => {
    const { speaker, wire } = setup();
    speaker.burst({ pcm: ramp(16000) });
    expect(wire).toHaveLength(50);
    expect(new Set(wire.map((w) => w.atMs)).size).toBe(1);
  });
});
