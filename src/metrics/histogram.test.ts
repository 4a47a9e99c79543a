import { describe, expect, it } from 'vitest';
import { StatsInputError } from './errors.js';
import { histogram, renderHistogram } from './histogram.js';

describe('histogram', () => {
  it('counts values into half-open buckets between explicit edges, with under- and overflow', () => {
    const h = histogram([50, 100, 199.9, 200, 250, 300, 999, null], { edgesMs: [100, 200, 300] });
    expect(h.buckets).toEqual([
      { from_ms: 100, to_ms: 200, count: 2 },
      { from_ms: 200, to_ms: 300, count: 2 },
    ]);
    expect(h).toMatchObject({ below: 1, above: 2 });
  });

  it('chooses round edges that cover every value when none are given', () => {
    const h = histogram([812, 845, 903, 1190], { buckets: 4 });
    // range 378 / 4 = 94.5 → step 100, from ⌊812/100⌋·100 = 800 to past 1190
    expect(h.buckets.map((b) => b.from_ms)).toEqual([800, 900, 1000, 1100]);
    expect(h.buckets[h.buckets.length - 1].to_ms).toBe(1200);
    expect(h.buckets.map((b) => b.count)).toEqual([2, 1, 0, 1]);
    expect(h.below + h.above).toBe(0);
  });

  it('puts a maximum that falls on a round edge inside the last bucket', () => {
    const h = histogram([0, 100], { buckets: 10 });
    expect(h.buckets[h.buckets.length - 1]).toEqual({ from_ms: 100, to_ms: 110, count: 1 });
    expect(h.above).toBe(0);
  });

  it('handles equal values, negative values and sub-millisecond steps', () => {
    expect(histogram([5, 5, 5]).buckets).toEqual([{ from_ms: 5, to_ms: 6, count: 3 }]);
    const neg = histogram([-30, -10, 20], { buckets: 5 });
    expect(neg.buckets[0].from_ms).toBe(-30);
    expect(neg.buckets.reduce((s, b) => s + b.count, 0)).toBe(3);
    const fine = histogram([0.1, 0.35, 0.7], { buckets: 3 });
    expect(fine.buckets.map((b) => b.from_ms)).toEqual([0, 0.2, 0.4, 0.6]);
  });

  it('rejects edges that do not ascend, too few edges and bad widths', () => {
    expect(() => histogram([1], { edgesMs: [100] })).toThrow(StatsInputError);
    expect(() => histogram([1], { edgesMs: [0, 100, 100] })).toThrow(/ascend strictly: edgesMs\[2\] = 100 after 100/);
    expect(() => histogram([1], { buckets: 0 })).toThrow(/positive integer/);
    expect(() => renderHistogram([1], { width: 0 })).toThrow(/width/);
  });
});

describe('renderHistogram', () => {
  it('draws fixed-width Unicode bars scaled to the fullest bucket, with aligned labels and counts', () => {
    const text = renderHistogram([150, 150, 150, 150, 250, 250, 950], { edgesMs: [100, 200, 300, 1000], width: 8 });
    expect(text.split('\n')).toEqual([
      '100 –  200 ms │████████ 4',
      '200 –  300 ms │████     2',
      '300 – 1000 ms │██       1',
    ]);
  });

  it('uses eighth blocks for fractions of a cell', () => {
    const text = renderHistogram([1, 1, 1, 1, 1, 1, 1, 1, 2], { edgesMs: [0, 2, 3], width: 1 });
    expect(text.split('\n')).toEqual(['0 – 2 ms │█ 8', '2 – 3 ms │▏ 1']);
  });

  it('draws ASCII bars and shows overflow rows only when something overflowed', () => {
    const text = renderHistogram([50, 120, 130, 5000], { edgesMs: [100, 200], width: 4, ascii: true });
    expect(text.split('\n')).toEqual(['    < 100 ms │##   1', '100 – 200 ms │#### 2', '    ≥ 200 ms │##   1']);
  });

  it('keeps the decimals of sub-millisecond edges in the labels', () => {
    const lines = renderHistogram([0.25, 0.75], { edgesMs: [0, 0.5, 1], width: 2 }).split('\n');
    expect(lines).toEqual(['0.0 – 0.5 ms │██ 1', '0.5 – 1.0 ms │██ 1']);
  });

  it('says so when there is nothing to draw', () => {
    expect(renderHistogram([null, Number.NaN])).toBe('(no values)');
  });
});
