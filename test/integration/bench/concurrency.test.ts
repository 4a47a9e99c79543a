import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../support/paths.js';

/**
 * `npm run bench:concurrency` at its smallest: one real-time audio session
 * against the light reference bot, the JSON written as documented.
 */
describe('bench/concurrency.ts', () => {
  it('runs one session against the light bot and writes max_sessions and one level with every figure', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-concurrency-test-'));
    try {
      const out = join(dir, 'out.json');
      const run = spawnSync(
        process.execPath,
        ['--import', 'tsx', 'bench/concurrency.ts', '--levels', '1', '--turns', '1', '--no-transcribe', '--json', out],
        {
          cwd: ROOT,
          encoding: 'utf8',
          timeout: 120_000,
        },
      );
      expect(run.status, run.stderr).toBe(0);
      expect(run.stdout).toMatch(/largest N with p99 lateness ≤ 2 ms and p95 \|error\| ≤ 10 ms: [01]/);
      const json = JSON.parse(readFileSync(out, 'utf8')) as {
        max_sessions: number;
        levels: Array<Record<string, unknown>>;
        turns: number;
      };
      expect([0, 1]).toContain(json.max_sessions);
      expect(json.turns).toBe(1);
      expect(json.levels).toHaveLength(1);
      const [level] = json.levels;
      expect(level.sessions).toBe(1);
      expect(level.passed).toBe(1);
      // The one turn's voice-to-voice was measured by earshot and matched to the bot's truth.
      expect(level.turns_matched).toBe(1);
      for (const key of [
        'lateness_p50_ms',
        'lateness_p99_ms',
        'lateness_max_ms',
        'error_p50_ms',
        'error_p95_ms',
        'cpu_pct_per_session',
        'rss_mb',
      ]) {
        expect(typeof level[key], key).toBe('number');
      }
      expect(level.lateness_p50_ms as number).toBeLessThanOrEqual(level.lateness_p99_ms as number);
      expect(level.lateness_p99_ms as number).toBeLessThanOrEqual(level.lateness_max_ms as number);
      expect(level.rss_mb as number).toBeGreaterThan(10);
      expect(json.max_sessions === 1).toBe(level.within_limits);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
