import { describe, expect, it } from 'vitest';
import { FrameReplay } from './replay.js';

describe('FrameReplay', () => {
  it('gives each speech frame the next slice of its utterance, the last one zero-padded, silence otherwise', () => {
    const r = new FrameReplay(4);
    const samples = Int16Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    r.add(7, samples);
    expect(Array.from(r.next(0))).toEqual([0, 0, 0, 0]);
    expect(Array.from(r.next(7))).toEqual([1, 2, 3, 4]);
    expect(Array.from(r.next(7))).toEqual([5, 6, 7, 8]);
    expect(Array.from(r.next(7))).toEqual([9, 10, 0, 0]);
    expect(r.offsetOf(7)).toBe(10);
  });

  it('keeps utterances apart and forgets a dropped one (its frames become silence)', () => {
    const r = new FrameReplay(2);
    r.add(1, Int16Array.from([1, 1, 1, 1]));
    r.add(2, Int16Array.from([2, 2]));
    expect(Array.from(r.next(1))).toEqual([1, 1]);
    expect(Array.from(r.next(2))).toEqual([2, 2]);
    r.drop(1);
    expect(r.offsetOf(1)).toBeNull();
    expect(Array.from(r.next(1))).toEqual([0, 0]);
  });
});
