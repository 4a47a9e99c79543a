import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer, verdictContent, type LlmServer } from '../../../test/support/llm-server.js';
import type { ServerMessage } from '../../protocol/index.js';
import type { Scenario } from '../../scenario/index.js';
import { ScenarioFiles } from '../../session/media/scenario.testutil.js';
import {
  llmReply,
  SessionClock,
  settle,
  startScriptedBot,
  type BotScript,
  type ScriptedBot,
} from '../../session/scripted-bot.testutil.js';
import type { SessionOutcome } from '../../session/index.js';
import { runSession } from '../run.js';

/**
 * The script driver on the session runtime, against a scripted bot on a real
 * loopback socket, on manual time: the order it plays turns in, what a failed
 * turn does to the rest, `send_after`, a bot that hangs up, and the judge
 * reading the conversation the turns made.
 */
const files = new ScenarioFiles();
afterAll(() => files.cleanup());
let n = 0;
function scenario(body: string): Promise<Scenario> {
  return files.load(`name: script\nscenarios:\n  - name: s\n${body}`, `s${n++}.yaml`);
}

const bots: ScriptedBot[] = [];
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.close()));
});
async function bot(script: BotScript): Promise<ScriptedBot> {
  const b = await startScriptedBot(script);
  bots.push(b);
  return b;
}

/** Answers a capital question; says nothing to anything else. */
const CAPITALS: Record<string, string> = { France: 'Paris', Germany: 'Berlin', Italy: 'Rome' };
function capitals(text: string): ServerMessage[] {
  const country = Object.keys(CAPITALS).find((c) => text.includes(c));
  return country ? llmReply('The capital ', `is ${CAPITALS[country]}.`) : [];
}

const TWO_TURNS = `    turns:
      - user: What is the capital of France?
        expect: [{event: llm_response, text_contains: Paris, within_ms: 5000}]
      - user: And of Germany?
        expect: [{event: llm_response, text_contains: Berlin, within_ms: 5000}]
`;

describe('the script driver', () => {
  it('plays the turns in order, each sent once the last was matched, and records what matched', async () => {
    const b = await bot({ onText: capitals });
    const time = new SessionClock();
    const { result } = await runSession(await scenario(TWO_TURNS), time.config({ url: b.url }));
    expect(result.status).toBe('passed');
    expect(result.turns.map((t) => [t.status, t.expectations])).toEqual([
      [
        'passed',
        [{ index: 0, event: 'llm_response', status: 'passed', matched_after_ms: 0, text: 'The capital is Paris.' }],
      ],
      [
        'passed',
        [{ index: 0, event: 'llm_response', status: 'passed', matched_after_ms: 0, text: 'The capital is Berlin.' }],
      ],
    ]);
    expect(b.received).toEqual([
      'client-ready',
      'send-text:What is the capital of France?',
      'send-text:And of Germany?',
    ]);
  });

  it('a failed turn ends the scenario: the turns after it are listed, not run, and never sent', async () => {
    // Germany first: the bot says nothing to the first question, so its turn times out.
    const b = await bot({ onText: (text) => (text.includes('France') ? [] : capitals(text)) });
    const time = new SessionClock();
    const run = runSession(await scenario(TWO_TURNS), time.config({ url: b.url }));
    await time.until(/match: waiting for 'llm_response'/);
    time.pass(5000);
    const { result } = await run;
    expect(result.status).toBe('failed');
    expect(result.failures.map((f) => [f.kind, f.turn_index, f.reason])).toEqual([
      ['timeout', 0, "no matching 'llm_response' event arrived within 5000ms"],
    ]);
    expect(result.turns.map((t) => t.status)).toEqual(['failed', 'not_run']);
    expect(b.received).toEqual(['client-ready', 'send-text:What is the capital of France?']);
  });

  it('stop_on_failure: false plays every turn, each scored on its own', async () => {
    const b = await bot({ onText: (text) => (text.includes('France') ? [] : capitals(text)) });
    const time = new SessionClock();
    const run = runSession(await scenario(`    stop_on_failure: false\n${TWO_TURNS}`), time.config({ url: b.url }));
    await time.until(/match: waiting for 'llm_response'/);
    time.pass(5000);
    const { result } = await run;
    expect(result.turns.map((t) => t.status)).toEqual(['failed', 'passed']);
    expect(b.received.at(-1)).toBe('send-text:And of Germany?');
  });

  it('send_after waits for its event, then the delay, on the session clock', async () => {
    const b = await bot({ onText: capitals });
    const time = new SessionClock();
    const run = runSession(
      await scenario(`    turns:
      - user: What is the capital of France?
        expect: [{event: llm_response, within_ms: 5000}]
      - user: And of Italy?
        send_after: {event: llm_response, delay_ms: 1500}
        expect: [{event: llm_response, text_contains: Rome, within_ms: 5000}]
`),
      time.config({ url: b.url }),
    );
    await time.until(/send_after: waiting for 'llm_response' \+ 1500ms/);
    await settle();
    expect(b.received).toHaveLength(2);
    time.pass(1499);
    await settle();
    expect(b.received).toHaveLength(2);
    time.pass(1);
    const { result } = await run;
    expect(result.status).toBe('passed');
    expect(b.received.at(-1)).toBe('send-text:And of Italy?');
    expect(result.turns[1].started_at_ms).toBe(1500);
  });

  it('a send_after whose event never comes fails the turn with send_after_timeout, after its 30 s', async () => {
    const b = await bot({ onText: capitals });
    const time = new SessionClock();
    const run = runSession(
      await scenario(`    turns:
      - user: Hello?
        send_after: {event: bot_started_speaking}
        expect: [{event: llm_response}]
`),
      time.config({ url: b.url }),
    );
    await time.until(/send_after: waiting for 'bot_started_speaking'/);
    time.pass(30_000);
    const { result } = await run;
    expect(result.failures.map((f) => [f.kind, f.event])).toEqual([['send_after_timeout', 'bot_started_speaking']]);
    expect(b.received).toEqual(['client-ready']);
  });

  it('a bot that hangs up mid-turn fails that turn as bot_disconnected; the rest are not run', async () => {
    const b = await bot({ onText: () => 'hang-up' });
    const time = new SessionClock();
    const { result } = await runSession(await scenario(TWO_TURNS), time.config({ url: b.url }));
    expect(result.status).toBe('failed');
    expect(result.failures.map((f) => [f.kind, f.turn_index])).toEqual([['bot_disconnected', 0]]);
    expect(result.turns.map((t) => t.status)).toEqual(['failed', 'not_run']);
  });
});

describe("the script driver's judge", () => {
  let llm: LlmServer;
  beforeAll(async () => {
    llm = await startLlmServer(() => verdictContent('yes', 'it named the city'));
  });
  afterAll(() => llm.close());

  it('is built before the call and reads the conversation the turns made: the user, the calls, the reply', async () => {
    const call: ServerMessage = {
      type: 'llm-function-call-in-progress',
      data: { function_name: 'capital_of', tool_call_id: 'c1', arguments: { country: 'France' } },
    };
    const b = await bot({ onText: (text) => [call, ...capitals(text)] });
    const time = new SessionClock();
    const outcome: SessionOutcome = await runSession(
      await scenario(`    turns:
      - user: What is the capital of France?
        expect: [{event: llm_response, eval: names the capital of France, within_ms: 5000}]
`),
      time.config({ url: b.url, judgeOverride: `openai:stand-in@${llm.url}` }),
    );
    expect(outcome.result.status).toBe('passed');
    expect(outcome.result.turns[0].expectations[0]).toMatchObject({
      status: 'passed',
      judge_reason: 'it named the city',
    });
    const shown = JSON.stringify(llm.requests.at(-1)?.body.messages);
    expect(shown).toContain('What is the capital of France?');
    expect(shown).toContain('capital_of');
    expect(shown).toContain('The capital is Paris.');
    expect(outcome.trace).toMatch(/judge: .*\(--judge openai:stand-in@http:\/\/127\.0\.0\.1:\d+\/v1, in place of/);
  });

  it('one that cannot be built fails each eval: as no_judge, and every other check still runs', async () => {
    const b = await bot({ onText: capitals });
    const time = new SessionClock();
    const { result } = await runSession(
      await scenario(`    judge: {eval: {service: nonesuch}}
    turns:
      - user: What is the capital of France?
        expect:
          - {event: llm_response, text_contains: Paris, within_ms: 5000}
          - {event: llm_response, eval: is polite, within_ms: 5000}
`),
      time.config({ url: b.url }),
    );
    expect(result.turns[0].expectations.map((e) => e.status)).toEqual(['passed', 'failed']);
    expect(result.failures.map((f) => f.kind)).toEqual(['no_judge']);
  });
});
