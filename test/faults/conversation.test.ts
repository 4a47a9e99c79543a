import { describe, expect, it } from 'vitest';
import { faultyBots, fixture, harnessTrouble, runAgainst, verdicts } from './faults.testutil.js';

/**
 * Bots that break down mid-conversation: they crash, hang, dawdle or hang up
 * halfway through an answer. The scenario that meets the fault fails with the
 * kind that says what happened, within its budget; the scenarios before and
 * after it keep their own verdicts in results.jsonl.
 */
const bot = faultyBots();

describe('a bot that breaks down mid-conversation', () => {
  it('crash-after-turn=1: the scenario it dies in fails bot_disconnected (1006) in that turn; the next one fails connect_failed; the one before passed', async () => {
    const b = await bot('crash-after-turn=1');
    const run = await runAgainst(
      b.url,
      [fixture('one_question'), fixture('two_questions'), fixture('greeting')],
      ['--connect-timeout', '1', '--timeout', '5'],
    );
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_one_question', 'passed', []],
      ['fault_two_questions', 'failed', ['bot_disconnected']],
      ['fault_greeting', 'failed', ['connect_failed']],
    ]);
    const [, crashed, after] = run.results;
    expect(crashed.turns.map((t) => t.status)).toEqual(['passed', 'passed', 'failed']);
    expect(crashed.failures[0]).toMatchObject({ turn_index: 2, expectation_index: 0, event: 'llm_response' });
    expect(crashed.failures[0].reason).toMatch(/closed the connection while waiting for 'llm_response'.*code 1006/);
    // It failed when the socket dropped, not at the 5 s deadline.
    expect(crashed.turns[2].duration_ms).toBeLessThan(2000);
    expect(after.failures[0].reason).toMatch(/within 1000 ms/);
    expect(after.duration_ms).toBeLessThan(2500);
    expect(await b.stop()).toBe(70);
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(10_000);
  }, 30_000);

  it('hang-after-turn=1: the silent turn fails timeout at its within_ms, the socket still open; scenarios before and after pass', async () => {
    const b = await bot('hang-after-turn=1');
    const run = await runAgainst(
      b.url,
      [fixture('one_question'), fixture('two_questions'), fixture('another_question')],
      ['--timeout', '1.5'],
    );
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_one_question', 'passed', []],
      ['fault_two_questions', 'failed', ['timeout']],
      ['fault_another_question', 'passed', []],
    ]);
    const hung = run.results[1];
    expect(hung.failures[0]).toMatchObject({
      turn_index: 2,
      reason: "no matching 'llm_response' event arrived within 1500ms",
    });
    expect(hung.turns[2].duration_ms).toBeGreaterThanOrEqual(1450);
    expect(hung.turns[2].duration_ms).toBeLessThan(2500);
    // The deadline, then closing a socket the bot no longer answers on: bounded by the close timeout.
    expect(hung.duration_ms).toBeLessThan(1500 + 1000 + 2500);
    expect(b.child.exitCode).toBeNull();
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(12_000);
  }, 30_000);

  it('slow=700: answers that start after within_ms fail timeout; the same bot passes scenarios that allow for it, and the delay is measured', async () => {
    const b = await bot('slow=700');
    const run = await runAgainst(
      b.url,
      [fixture('one_question'), fixture('impatient'), fixture('another_question')],
      ['--timeout', '4'],
    );
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_one_question', 'passed', []],
      ['fault_impatient', 'failed', ['timeout']],
      ['fault_another_question', 'passed', []],
    ]);
    const impatient = run.results[1];
    expect(impatient.failures[0]).toMatchObject({
      turn_index: 1,
      expectation_index: 0,
      event: 'llm_started',
      reason: "no matching 'llm_started' event arrived within 300ms",
    });
    expect(impatient.turns[1].duration_ms).toBeGreaterThanOrEqual(290);
    expect(impatient.turns[1].duration_ms).toBeLessThan(1200);
    for (const r of [run.results[0], run.results[2]]) {
      const answer = r.turns[1].expectations[0];
      expect(answer.matched_after_ms).toBeGreaterThanOrEqual(700);
      expect(answer.matched_after_ms).toBeLessThan(3000);
    }
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(12_000);
  }, 30_000);

  it('disconnect-mid-audio (text): the first answer is cut off by a 1011 close; that scenario fails bot_disconnected, the ones around it pass', async () => {
    const b = await bot('disconnect-mid-audio');
    const run = await runAgainst(
      b.url,
      [fixture('greeting'), fixture('one_question'), fixture('menu')],
      ['--timeout', '5'],
    );
    expect(harnessTrouble(run)).toEqual([]);
    expect(verdicts(run.results)).toEqual([
      ['fault_greeting', 'passed', []],
      ['fault_one_question', 'failed', ['bot_disconnected']],
      ['fault_menu', 'passed', []],
    ]);
    const cut = run.results[1];
    expect(cut.failures[0]).toMatchObject({ turn_index: 1, event: 'llm_response' });
    expect(cut.failures[0].reason).toContain(
      'connection closed by the bot (code 1011: refbot fault: disconnect-mid-audio)',
    );
    expect(cut.turns[1].duration_ms).toBeLessThan(2000);
    expect(b.child.exitCode).toBeNull();
    expect(run.code).toBe(1);
    expect(run.wallMs).toBeLessThan(10_000);
  }, 30_000);
});
