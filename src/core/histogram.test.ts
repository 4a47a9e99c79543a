import { describe, expect, it } from 'vitest';
import { DurationHistogram } from './histogram.js';

describe('DurationHistogram', () => {
  it('gives percentiles to 10 µs below 10 ms, 1 ms above, and the exact max', () => {
    const h = new DurationHistogram();
    for (let i = 1; i <= 1000; i++) h.record(i / 1000); // 0.001 … 1.000 ms
    const s = h.summary();
    expect(s.count).toBe(1000);
    // Reported as the upper edge of the 10 µs bucket: never below the true value, at most 10 µs above.
    expect(s.p50Ms).toBeGreaterThanOrEqual(0.5);
    expect(s.p50Ms).toBeLessThanOrEqual(0.51);
    expect(s.p99Ms).toBeGreaterThanOrEqual(0.99);
    expect(s.p99Ms).toBeLessThanOrEqual(1);
    expect(s.maxMs).toBe(1);
    expect(s.meanMs).toBeCloseTo(0.5005, 6);
    h.record(250.4);
    expect(h.quantile(1)).toBe(250.4);
    h.record(5000);
    expect(h.summary().maxMs).toBe(5000);
  });

  it('is empty-safe and merges', () => {
    const a = new DurationHistogram();
    expect(a.summary()).toMatchObject({ count: 0, p50Ms: null, maxMs: null });
    const b = new DurationHistogram();
    a.record(1);
    b.record(3);
    b.record(-0.01); // a frame a hair early counts in the lowest bucket; min keeps the true value
    a.merge(b);
    expect(a.summary()).toMatchObject({ count: 3, maxMs: 3, minMs: -0.01 });
  });
});
