import { describe, expect, it } from 'vitest';
import { faultyBots, fixture, harnessTrouble, runAgainst, verdicts } from './faults.testutil.js';

/**
 * Bots that never let a conversation start. Each scenario of the run fails
 * on its own, within its own budget, with the kind that says what happened;
 * none blocks the next, and every one is in results.jsonl.
 */
const bot = faultyBots();

const SCENARIOS = [fixture('greeting'), fixture('one_question')];
const NAMES = ['fault_greeting', 'fault_one_question'];

describe('a bot that refuses or never gets ready', () => {
  it('refuse: each scenario fails connect_failed at its connect timeout (1 s), naming the 503; the run goes on to the next', async () => {
    const b = await bot('refuse');
    const run = await runAgainst(b.url, SCENARIOS, ['--connect-timeout', '1']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual(NAMES.map((n) => [n, 'failed', ['connect_failed']]));
    for (const r of run.results) {
      expect(r.failures[0]).toMatchObject({ turn_index: null, expectation_index: null });
      expect(r.failures[0].reason).toMatch(
        /could not connect to ws:\/\/127\.0\.0\.1:\d+\/\S* within 1000 ms \(\d+ attempts\): .*503/,
      );
      expect(r.turns.every((t) => t.status === 'not_run')).toBe(true);
      expect(r.duration_ms).toBeGreaterThanOrEqual(950);
      expect(r.duration_ms).toBeLessThan(2500);
    }
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(2 * 1000 + 6000);
    // Nothing reached the bot, which is still up.
    expect(b.child.exitCode).toBeNull();
  }, 30_000);

  it('no-ready: each scenario fails handshake_timeout at its handshake timeout (1 s) and the run goes on to the next', async () => {
    const b = await bot('no-ready');
    const run = await runAgainst(b.url, SCENARIOS, ['--handshake-timeout', '1']);
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual(NAMES.map((n) => [n, 'failed', ['handshake_timeout']]));
    for (const r of run.results) {
      expect(r.failures[0]).toMatchObject({ turn_index: null, reason: 'bot-ready not received within 1000ms' });
      expect(r.turns.every((t) => t.status === 'not_run')).toBe(true);
      expect(r.events).toEqual([]);
      expect(r.duration_ms).toBeGreaterThanOrEqual(950);
      // The handshake budget, plus closing a socket the silent bot still holds open.
      expect(r.duration_ms).toBeLessThan(3500);
    }
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(2 * 3500 + 5000);
    expect(b.child.exitCode).toBeNull();
  }, 30_000);
});
