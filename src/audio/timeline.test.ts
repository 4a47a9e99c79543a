import { describe, expect, it } from 'vitest';
import { ChunkTimeline, SampleRing } from './timeline.js';

describe('ChunkTimeline', () => {
  it('plays chunks back to back from the first arrival, through jitter', () => {
    const t = new ChunkTimeline(16000, 50);
    expect(t.append(320, 1000)).toBe(1000);
    expect(t.append(320, 1023)).toBe(1020); // 3 ms late: still continuous
    expect(t.append(320, 1030)).toBe(1040); // early (a burst): after what is queued
    expect(t.endMs).toBe(1060);
    expect(t.timeOf(160)).toBe(1010);
  });

  it('re-anchors after a gap longer than gapMs, and keeps earlier samples where they were', () => {
    const t = new ChunkTimeline(8000, 50);
    t.append(800, 0);
    expect(t.gapBefore(130)).toBe(0);
    expect(t.gapBefore(200)).toBe(100);
    expect(t.append(80, 200)).toBe(200);
    expect(t.timeOf(799)).toBeCloseTo(99.875, 9);
    expect(t.timeOf(800)).toBe(200);
    t.extend(80);
    expect(t.append(8, 230, true)).toBe(230);
    t.forgetBefore(900);
    expect(t.timeOf(900)).toBe(212.5);
  });
});

describe('SampleRing', () => {
  it('holds the last samples by stream index, across wrap-around and silence', () => {
    const r = new SampleRing(10);
    r.append(Int16Array.from([1, 2, 3, 4, 5, 6, 7]));
    r.appendSilence(2);
    r.append(Int16Array.from([8, 9, 10]));
    expect(r.start).toBe(2);
    expect(r.endSample).toBe(12);
    expect(Array.from(r.slice(0, 12).samples)).toEqual([3, 4, 5, 6, 7, 0, 0, 8, 9, 10]);
    expect(r.slice(0, 12).from).toBe(2);
    r.append(Int16Array.from({ length: 25 }, (_, i) => i));
    expect(Array.from(r.slice(30, 40).samples)).toEqual([18, 19, 20, 21, 22, 23, 24]);
    r.appendSilence(100);
    expect(r.endSample).toBe(137);
    expect(Array.from(r.slice(130, 137).samples)).toEqual([0, 0, 0, 0, 0, 0, 0]);
  });
});
