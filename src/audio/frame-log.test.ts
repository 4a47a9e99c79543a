import { describe, expect, it } from 'vitest';
import { FrameLog } from './frame-log.js';

describe('FrameLog', () => {
  it('keeps exact records up to its capacity and aggregates everything', () => {
    const log = new FrameLog(5000);
    for (let i = 0; i < 9000; i++) log.add(i, i * 20, i * 20 + (i % 10) / 10, i % 2 === 0);
    expect(log.count).toBe(9000);
    expect(log.keptCount).toBe(5000);
    expect(log.truncated).toBe(true);
    expect(log.record(4099)).toEqual({ index: 4099, dueMs: 81980, sentMs: 81980.9, speech: false });
    expect(log.record(5000)).toBeUndefined();
    expect(log.records().length).toBe(5000);
    expect(log.latenessSummary().maxMs).toBeCloseTo(0.9, 9);
  });
});
