import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { EarshotError } from '../../core/errors.js';
import {
  DEFAULT_DTMF_IDLE_TIMEOUT_MS,
  DtmfAggregator,
  DtmfKeyError,
  ManualScheduler,
  realScheduler,
  type DtmfEntry,
} from './dtmf-aggregator.js';

function setup(options: { idleTimeoutMs?: number; terminator?: string; prefix?: string } = {}) {
  const clock = new ManualClock(1000);
  const scheduler = new ManualScheduler(clock);
  const entries: DtmfEntry[] = [];
  const firstKeys: Array<[string, number]> = [];
  const agg = new DtmfAggregator({
    ...options,
    clock,
    scheduler,
    onEntry: (e) => entries.push(e),
    onFirstKey: (key, atMs) => firstKeys.push([key, atMs]),
  });
  return { clock, scheduler, entries, firstKeys, agg };
}

describe('DtmfAggregator', () => {
  it("defaults to Pipecat's DTMFAggregator idle timeout of 2 seconds", () => {
    expect(DEFAULT_DTMF_IDLE_TIMEOUT_MS).toBe(2000);
  });

  it('flushes "DTMF: 1#" immediately on the # key', () => {
    const { agg, entries, scheduler } = setup();
    agg.press('1');
    expect(entries).toEqual([]);
    agg.press('#');
    expect(entries).toEqual([
      { text: 'DTMF: 1#', digits: '1#', firstKeyAtMs: 1000, lastKeyAtMs: 1000, reason: 'terminator' },
    ]);
    expect(scheduler.pending).toBe(0);
  });

  it('flushes a single key without # after the idle timeout, not before', () => {
    const { agg, entries, clock, scheduler } = setup();
    agg.press('2');
    scheduler.advance(1999);
    expect(entries).toEqual([]);
    scheduler.advance(1);
    expect(entries).toEqual([{ text: 'DTMF: 2', digits: '2', firstKeyAtMs: 1000, lastKeyAtMs: 1000, reason: 'idle' }]);
    expect(clock.now()).toBe(3000);
  });

  it('restarts the idle timeout at each key, so a slow typist keeps one entry', () => {
    const { agg, entries, clock, scheduler } = setup();
    for (const key of '555123') {
      agg.press(key);
      scheduler.advance(1500);
    }
    expect(entries).toEqual([]);
    scheduler.advance(500);
    expect(entries.map((e) => e.text)).toEqual(['DTMF: 555123']);
    expect(entries[0].firstKeyAtMs).toBe(1000);
    expect(entries[0].lastKeyAtMs).toBe(1000 + 5 * 1500);
    expect(clock.now()).toBe(1000 + 5 * 1500 + 2000);
  });

  it('runs the idle timeout from the key arrival time, not from when it was handled', () => {
    const { agg, entries, clock, scheduler } = setup();
    clock.advance(500);
    agg.press('7', 1000); // arrived 500 ms before it was handed over
    scheduler.advance(1499);
    expect(entries).toEqual([]);
    scheduler.advance(1);
    expect(entries.map((e) => [e.text, e.reason])).toEqual([['DTMF: 7', 'idle']]);
  });

  it('keeps entries apart: digits then # flush, the next key starts a new entry', () => {
    const { agg, entries, firstKeys, scheduler } = setup();
    for (const key of '3') agg.press(key);
    scheduler.advance(2000);
    for (const key of '5551234567#') agg.press(key);
    expect(entries.map((e) => e.text)).toEqual(['DTMF: 3', 'DTMF: 5551234567#']);
    expect(firstKeys.map(([k]) => k)).toEqual(['3', '5']);
    scheduler.advance(10_000);
    expect(entries).toHaveLength(2);
  });

  it('reports the first key of each entry (when Pipecat interrupts the bot)', () => {
    const { agg, firstKeys, clock } = setup();
    agg.press('1');
    clock.advance(100);
    agg.press('2');
    agg.press('#');
    clock.advance(100);
    agg.press('9', clock.now());
    expect(firstKeys).toEqual([
      ['1', 1000],
      ['9', 1200],
    ]);
  });

  it('a lone # is an entry of its own', () => {
    const { agg, entries } = setup();
    agg.press('#');
    expect(entries.map((e) => e.text)).toEqual(['DTMF: #']);
  });

  it('accepts * and every digit, and rejects anything else with a DtmfKeyError', () => {
    const { agg, entries } = setup();
    for (const key of '0123456789*') agg.press(key);
    agg.press('#');
    expect(entries[0].digits).toBe('0123456789*#');
    for (const bad of ['A', '12', '', 'pound']) {
      expect(() => agg.press(bad)).toThrow(DtmfKeyError);
    }
    const err = (() => {
      try {
        agg.press('x');
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(EarshotError);
    expect((err as DtmfKeyError).key).toBe('x');
    expect((err as Error).message).toContain('not a DTMF key: "x"');
  });

  it('takes a custom prefix, terminator and timeout', () => {
    const { agg, entries, scheduler } = setup({ prefix: 'keys=', terminator: '*', idleTimeoutMs: 500 });
    agg.press('4');
    agg.press('*');
    agg.press('#');
    scheduler.advance(499);
    expect(entries.map((e) => e.text)).toEqual(['keys=4*']);
    scheduler.advance(1);
    expect(entries.map((e) => e.text)).toEqual(['keys=4*', 'keys=#']);
  });

  it('rejects a terminator that is not a key and a timeout that is not positive', () => {
    expect(() => setup({ terminator: 'x' })).toThrow(DtmfKeyError);
    expect(() => setup({ idleTimeoutMs: 0 })).toThrow(/idle timeout must be positive/);
  });

  it('flush() sends the entry in progress at once and cancels its timer', () => {
    const { agg, entries, scheduler } = setup();
    agg.flush();
    expect(entries).toEqual([]);
    agg.press('4');
    agg.press('2');
    agg.flush();
    expect(entries.map((e) => [e.text, e.reason])).toEqual([['DTMF: 42', 'flush']]);
    expect(scheduler.pending).toBe(0);
  });

  it('dispose() drops the entry in progress, stops its timer and ignores later keys', () => {
    const { agg, entries, scheduler } = setup();
    agg.press('1');
    agg.dispose();
    expect(scheduler.pending).toBe(0);
    agg.press('2');
    agg.press('#');
    scheduler.advance(5000);
    agg.flush();
    expect(entries).toEqual([]);
    expect(agg.pending).toBe('');
  });

  it('flushes on the idle timeout with the real timer too', async () => {
    const entries: DtmfEntry[] = [];
    const agg = new DtmfAggregator({ idleTimeoutMs: 30, scheduler: realScheduler, onEntry: (e) => entries.push(e) });
    agg.press('8');
    expect(entries).toEqual([]);
    await new Promise((r) => setTimeout(r, 80));
    expect(entries.map((e) => e.text)).toEqual(['DTMF: 8']);
    agg.dispose();
  });
});
