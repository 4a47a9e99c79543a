import { describe, expect, it } from 'vitest';
import { MicHistory } from './mic-history.js';
import type { MicFrame } from './virtual-mic.js';

const RATE = 16000;

function frame(micStart: number, inStart: number | null, playedMs: number, fill: number, samples = 320): MicFrame {
  return {
    samples: new Int16Array(samples).fill(fill),
    micStart,
    inStart,
    playedMs,
    arrivedMs: inStart === null ? null : playedMs,
  };
}

describe('MicHistory: what the microphone played, traced back to the incoming stream', () => {
  const history = new MicHistory(RATE);
  history.append(frame(0, 0, 100, 1));
  history.append(frame(320, null, 120, 0)); // generated silence
  history.append(frame(640, 320, 140, 2));

  it('maps a sample to its incoming index and play time', () => {
    expect(history.locate(10)).toEqual({ inIndex: 10, atMs: 100 + 10 / 16, arrivedMs: 100 });
    expect(history.locate(650)).toEqual({ inIndex: 330, atMs: 140 + 10 / 16, arrivedMs: 140 });
    expect(history.locate(400)?.inIndex).toBeNull();
  });

  it('maps an end instant (one past a last sample) through the sample before it', () => {
    // One past the first frame: the instant its last sample finished playing, not the silence after it.
    expect(history.locate(320, 'end')).toEqual({ inIndex: 320, atMs: 120, arrivedMs: 100 });
    expect(history.locate(960, 'end')).toEqual({ inIndex: 640, atMs: 160, arrivedMs: 140 });
  });

  it('slices samples across frames, clipped to what it holds', () => {
    const { samples, from } = history.slice(300, 700);
    expect(from).toBe(300);
    expect([...samples.subarray(0, 20)]).toEqual(Array(20).fill(1));
    expect([...samples.subarray(20, 340)]).toEqual(Array(320).fill(0));
    expect([...samples.subarray(340)]).toEqual(Array(60).fill(2));
    expect(history.slice(900, 5000).samples.length).toBe(60);
    expect(history.locate(960)).toBeNull();
  });

  it('keeps only the last minute: older frames are forgotten', () => {
    const h = new MicHistory(RATE, 100);
    for (let i = 0; i < 20; i++) h.append(frame(i * 320, i * 320, i * 20, i));
    expect(h.end).toBe(6400);
    expect(h.start).toBeGreaterThanOrEqual(6400 - 1600 - 320);
    expect(h.locate(0)).toBeNull();
    expect(h.locate(6399)?.inIndex).toBe(6399);
  });
});
