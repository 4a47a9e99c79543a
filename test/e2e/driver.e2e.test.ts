import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EarshotEvent } from '../../src/results/events.js';
import type { Failure } from '../../src/results/types.js';
import { loadScenario, type Scenario } from '../../src/scenario/index.js';
import { driveSession } from '../../src/drivers/index.js';
import { DeadlineError } from '../../src/events/index.js';
import type { DriverRuntime, SessionDriver, SessionProgress } from '../../src/session/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';

/**
 * The driver seam against a real reference bot: a driver that is not the
 * script decides each user turn from what the bot said in reply, as a
 * simulated caller will, using only what the runtime offers drivers.
 */
const dir = mkdtempSync(join(tmpdir(), 'earshot-driver-'));
let bot: RefbotProcess;
let scenario: Scenario;
beforeAll(async () => {
  writeFileSync(join(dir, 'package.json'), '{}\n');
  writeFileSync(join(dir, 'caller.yaml'), 'name: caller\nturns: []\n');
  scenario = await loadScenario(join(dir, 'caller.yaml'));
  bot = await startRefbotProcess();
});
afterAll(async () => {
  await bot?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Asks about one capital after another, each question chosen from the last reply; hangs up after Paris. */
class CapitalsCaller implements SessionDriver {
  readonly heard: string[] = [];
  constructor(private readonly failOnTurn?: number) {}

  plannedTurns(): [] {
    return [];
  }

  async run(runtime: DriverRuntime): Promise<void> {
    await this.turn(runtime, null); // the greeting
    let question: string | null = 'What is the capital of Germany?';
    while (question !== null) {
      const reply = await this.turn(runtime, question);
      question = reply.includes('Berlin') ? 'And the capital of France?' : null;
    }
  }

  private async turn(runtime: DriverRuntime, question: string | null): Promise<string> {
    const turn = runtime.openTurn(question === null ? {} : { user: question });
    const index = turn.index;
    if (index === this.failOnTurn) throw new Error('the caller lost its train of thought');
    // A question drops what is still queued from the last reply; the greeting's turn only observes.
    const sent = await turn.send(question === null ? {} : { user: question });
    const failures: Failure[] = [];
    let reply = '';
    try {
      // In text modality a reply ends with the bot's llm-stopped: its words are the llm_response.
      const event: EarshotEvent = await runtime.stream.next((e) => e.name === 'llm_response', sent.anchorMs + 5000);
      reply = 'text' in event ? event.text : '';
      turn.record({ index: 0, event: 'llm_response', status: 'passed', text: reply });
    } catch (err) {
      if (!(err instanceof DeadlineError)) throw err;
      const failure: Failure = {
        kind: 'timeout',
        turn_index: index,
        expectation_index: 0,
        event: 'llm_response',
        reason: 'no reply within 5000ms',
      };
      failures.push(failure);
      turn.record({ index: 0, event: 'llm_response', status: 'failed' }, failure);
    }
    this.heard.push(reply);
    turn.end(failures);
    return reply;
  }
}

describe('a driver other than the script, on the session runtime', () => {
  it('sends turns it decides from the replies, reads what the bot said, and records each turn in the result', async () => {
    const caller = new CapitalsCaller();
    const progress: SessionProgress[] = [];
    const { result, trace } = await driveSession(
      scenario,
      { url: bot.url, onProgress: (p) => progress.push(p) },
      caller,
    );
    expect(result.status).toBe('passed');
    expect(caller.heard).toEqual([
      expect.stringContaining('Hello'),
      'The capital of Germany is Berlin.',
      'The capital of France is Paris.',
    ]);
    expect(result.turns.map((t) => [t.index, t.status, t.input, t.expectations.map((e) => e.text)])).toEqual([
      [0, 'passed', {}, [expect.stringContaining('Hello')]],
      [1, 'passed', { user: 'What is the capital of Germany?' }, ['The capital of Germany is Berlin.']],
      [2, 'passed', { user: 'And the capital of France?' }, ['The capital of France is Paris.']],
    ]);
    // Each turn's timing window opened at its send, and the bot's metrics landed on the turn.
    expect(result.turns[2].started_at_ms).toBeGreaterThan(result.turns[1].started_at_ms!);
    expect(result.turns[1].metrics?.llm_ttfb_ms).toBeGreaterThanOrEqual(0);
    expect(result.events?.filter((e) => e.name === 'llm_response')).toHaveLength(3);
    expect(progress.map((p) => p.type)).toEqual([
      'turn_start',
      'expectation',
      'turn_end',
      'turn_start',
      'expectation',
      'turn_end',
      'turn_start',
      'expectation',
      'turn_end',
    ]);
    expect(trace).toMatch(/\[ t2\] {2}send: text "And the capital of France\?"/);
    expect(trace).toContain('done: PASSED');
  }, 30_000);

  it('a driver that throws mid-turn is a harness error of that turn, and the session still tears down', async () => {
    const { result, trace } = await driveSession(scenario, { url: bot.url }, new CapitalsCaller(1));
    expect(result.status).toBe('error');
    expect(result.failures).toEqual([
      {
        kind: 'harness_error',
        turn_index: 1,
        expectation_index: null,
        event: null,
        reason: 'the caller lost its train of thought',
      },
    ]);
    expect(result.turns.map((t) => t.status)).toEqual(['passed', 'failed']);
    expect(trace).toMatch(/connection closed \(1000/);
  }, 30_000);
});
