import { describe, expect, it } from 'vitest';
import { StatsInputError } from './errors.js';
import { latencyStats, percentile, summarizeLatencies } from './percentiles.js';

const TEN = [120, 150, 180, 200, 210, 250, 300, 420, 800, 1500];

describe('percentile, nearest rank', () => {
  it('takes the value at rank ⌈p/100 · n⌉ (hand-computed for n = 10)', () => {
    // ranks: p50 → 5, p90 → 9, p95 → ⌈9.5⌉ = 10, p99 → ⌈9.9⌉ = 10, p10 → 1, p11 → ⌈1.1⌉ = 2
    expect(percentile(TEN, 50)).toBe(210);
    expect(percentile(TEN, 90)).toBe(800);
    expect(percentile(TEN, 95)).toBe(1500);
    expect(percentile(TEN, 99)).toBe(1500);
    expect(percentile(TEN, 10)).toBe(120);
    expect(percentile(TEN, 11)).toBe(150);
  });

  it('does not let float noise push an exact rank up (p95 of 20 values is rank 19)', () => {
    const twenty = Array.from({ length: 20 }, (_, i) => i + 1);
    expect(percentile(twenty, 95)).toBe(19);
    expect(percentile(twenty, 90)).toBe(18);
    expect(percentile(twenty, 0)).toBe(1);
    expect(percentile(twenty, 100)).toBe(20);
  });

  it('returns the one value of a single sample for every p', () => {
    expect([0, 50, 99, 100].map((p) => percentile([42], p))).toEqual([42, 42, 42, 42]);
  });
});

describe('percentile, linear (Hyndman & Fan type 7)', () => {
  it('interpolates at h = (n − 1) · p/100 (hand-computed for n = 10)', () => {
    // p50: h = 4.5 → 210 + 0.5·(250 − 210) = 230
    expect(percentile(TEN, 50, 'linear')).toBe(230);
    // p90: h = 8.1 → 800 + 0.1·(1500 − 800) = 870
    expect(percentile(TEN, 90, 'linear')).toBe(870);
    // p95: h = 8.55 → 800 + 0.55·700 = 1185
    expect(percentile(TEN, 95, 'linear')).toBe(1185);
    expect(percentile(TEN, 0, 'linear')).toBe(120);
    expect(percentile(TEN, 100, 'linear')).toBe(1500);
  });
});

describe('percentile input', () => {
  it('rejects an empty sample and a p outside 0..100', () => {
    expect(() => percentile([], 50)).toThrow(StatsInputError);
    expect(() => percentile(TEN, 101)).toThrow(/within 0..100, got 101/);
    expect(() => percentile(TEN, Number.NaN)).toThrow(StatsInputError);
  });
});

describe('latencyStats', () => {
  it('summarizes unsorted values, skipping nulls and non-finite values', () => {
    const shuffled = [800, null, 120, 1500, 210, 200, undefined, 250, 150, Number.NaN, 300, 420, 180];
    expect(latencyStats(shuffled)).toEqual({
      count: 10,
      min: 120,
      mean: 413,
      p50: 210,
      p90: 800,
      p95: 1500,
      p99: 1500,
      max: 1500,
    });
  });

  it('is null when nothing was measured', () => {
    expect(latencyStats([null, undefined])).toBeNull();
  });
});

describe('summarizeLatencies', () => {
  it('builds one distribution per latency metric over many turns', () => {
    const turns = [
      { voice_to_voice_ms: 900, interruption_ms: null },
      { voice_to_voice_ms: 700, interruption_ms: 300 },
      { voice_to_voice_ms: 800 },
    ];
    const s = summarizeLatencies(turns);
    expect(s.voice_to_voice_ms).toMatchObject({ count: 3, p50: 800, max: 900, mean: 800 });
    expect(s.interruption_ms).toMatchObject({ count: 1, p99: 300 });
    expect(s.llm_ttfb_ms).toBeNull();
    expect(Object.keys(s)).toEqual([
      'voice_to_voice_ms',
      'llm_ttfb_ms',
      'first_token_ms',
      'speech_padding_ms',
      'bot_speech_ms',
      'interruption_ms',
    ]);
  });
});
