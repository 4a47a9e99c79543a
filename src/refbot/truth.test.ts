import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { RefbotError } from './errors.js';
import { TruthLog } from './truth.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-truth-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('TruthLog: one JSON line per fact', () => {
  it('stamps each line with the clock time and its epoch equivalent, times to the microsecond', () => {
    const path = join(dir, 'a.jsonl');
    const clock = new ManualClock(1234.56789);
    const log = new TruthLog(path, clock);
    log.write({ event: 'bot_ready', conn: 1 });
    log.write({ event: 'user_transcription', conn: 1, turn: 1, text: 'hello', stt_ms: 512.34567, t_ms: 2000.0001 });
    log.close();
    const lines = readFileSync(path, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines[0]).toEqual({ event: 'bot_ready', t_ms: 1234.568, epoch_ms: expect.any(Number), conn: 1 });
    expect(lines[0].epoch_ms as number).toBeCloseTo(performance.timeOrigin + 1234.568, 2);
    expect(lines[1]).toMatchObject({
      event: 'user_transcription',
      t_ms: 2000,
      stt_ms: 512.346,
      text: 'hello',
      turn: 1,
    });
  });

  it('appends to an existing log', () => {
    const path = join(dir, 'b.jsonl');
    for (let i = 0; i < 2; i++) {
      const log = new TruthLog(path, new ManualClock());
      log.write({ event: 'exit', reason: 'closed', exit_code: 0 });
      log.close();
    }
    expect(readFileSync(path, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('without a path it logs nothing; an unwritable path is a usage error naming it', () => {
    const off = new TruthLog(null, new ManualClock());
    expect(off.enabled).toBe(false);
    off.write({ event: 'bot_ready', conn: 1 });
    const bad = join(dir, 'no-such-dir', 'x.jsonl');
    expect(() => new TruthLog(bad, new ManualClock())).toThrow(RefbotError);
    expect(() => new TruthLog(bad, new ManualClock())).toThrow(/cannot open the truth log .*no-such-dir/);
  });
});
