import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../protocol/loopback.testutil.js';
import type { Scenario } from '../scenario/index.js';
import type { DriverRuntime, SessionDriver } from './driver.js';
import { ScenarioFiles } from './media/scenario.testutil.js';
import type { ControlReply } from './requests.js';
import { summarize } from './requests.js';
import { SessionRuntime } from './runtime.js';
import { SessionClock, settle, startScriptedBot, type ScriptedBot } from './scripted-bot.testutil.js';

/**
 * `DriverRuntime.control.request` on a real loopback socket and manual time: answers matched by request id
 * (in any order), refusals, deadlines, a closed connection, and a malformed answer.
 */
const files = new ScenarioFiles();
let scenario: Scenario;
beforeAll(async () => {
  scenario = await files.load('name: control\nturns:\n  - user: one\n');
});
afterAll(() => files.cleanup());

const bots: ScriptedBot[] = [];
afterEach(async () => {
  await Promise.all(bots.splice(0).map((b) => b.close()));
});
async function bot(script: Parameters<typeof startScriptedBot>[0] = {}): Promise<ScriptedBot> {
  const b = await startScriptedBot(script);
  bots.push(b);
  return b;
}

function driver(run: (rt: DriverRuntime) => Promise<void>): SessionDriver {
  return { plannedTurns: () => [], run: (rt) => run(rt) };
}

/** Waits until the bot has received `n` control requests. */
async function requestsSeen(b: ScriptedBot, n: number): Promise<void> {
  await waitFor(() => b.received.filter((r) => r.startsWith('client-message:')).length >= n);
}

describe('control requests (request/response by id)', () => {
  it('matches each answer to its request by id, whatever order they come in, and traces both ways', async () => {
    const b = await bot();
    const time = new SessionClock();
    const replies: ControlReply[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const first = rt.control.request('apply_initialization', { domain: 'restaurant', shared_state_init: '{}' });
        const second = rt.control.request('get_scenario_summary', { include_db: false });
        await requestsSeen(b, 2);
        // client-ready took id 1: the requests are 2 and 3. The later one is answered first.
        const conn = b.peer()!.connection;
        conn.send({
          type: 'server-response',
          id: '3',
          data: { t: 'get_scenario_summary', d: { actions: [], db_hash: null } },
        });
        conn.send({ type: 'server-response', id: '2', data: { t: 'apply_initialization', d: { success: true } } });
        replies.push(await first, await second);
      }),
    );
    expect(replies).toEqual([
      { ok: true, d: { success: true, errors: [] } },
      { ok: true, d: { actions: [], db_hash: null } },
    ]);
    expect(b.received).toEqual([
      'client-ready',
      'client-message:apply_initialization',
      'client-message:get_scenario_summary',
    ]);
    expect(time.trace.some((l) => /send: apply_initialization \(id 2\)/.test(l))).toBe(true);
    expect(time.trace.some((l) => /recv: server-response get_scenario_summary \(id 3\)/.test(l))).toBe(true);
  });

  it('an error-response with the id refuses the request; no answer by the deadline fails it', async () => {
    const b = await bot();
    const time = new SessionClock();
    const replies: ControlReply[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const refused = rt.control.request('reset', {});
        await requestsSeen(b, 1);
        b.peer()!.connection.send({ type: 'error-response', id: '2', data: { error: 'Unsupported type reset' } });
        replies.push(await refused);
        const unanswered = rt.control.request('get_scenario_summary', { include_db: false }, { timeoutMs: 500 });
        await requestsSeen(b, 2);
        await settle();
        time.pass(499);
        await settle();
        time.pass(1);
        replies.push(await unanswered);
      }),
    );
    expect(replies).toEqual([
      { ok: false, reason: 'refused', error: 'reset: the bot refused it: Unsupported type reset' },
      { ok: false, reason: 'timeout', error: 'get_scenario_summary: no answer within 500ms (request id 3)' },
    ]);
  });

  it('the bot hanging up fails the request waiting, and a request after that is not sent', async () => {
    const b = await bot();
    const time = new SessionClock();
    const replies: ControlReply[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const waiting = rt.control.request('get_scenario_summary', { include_db: true });
        await requestsSeen(b, 1);
        await b.peer()!.connection.close(1000, 'bye');
        replies.push(await waiting);
        replies.push(await rt.control.request('reset', {}));
      }),
    );
    expect(replies[0]).toEqual({
      ok: false,
      reason: 'closed',
      error: 'get_scenario_summary: the connection closed before answering',
    });
    expect(replies[1]).toMatchObject({
      ok: false,
      reason: 'closed',
      error: expect.stringMatching(/^reset: not sent: /),
    });
    expect(b.received).toEqual(['client-ready', 'client-message:get_scenario_summary']);
  });

  it('a malformed summary is a protocol error of the request (and of the session), never a crash', async () => {
    const b = await bot();
    const time = new SessionClock();
    const replies: ControlReply[] = [];
    await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive(
      driver(async (rt) => {
        const pulled = rt.control.request('get_scenario_summary', { include_db: false });
        await requestsSeen(b, 1);
        b.peer()!.connection.send({
          type: 'server-response',
          id: '2',
          data: { t: 'get_scenario_summary', d: { actions: 'none', db_hash: 7 } },
        });
        replies.push(await pulled);
      }),
    );
    expect(replies[0]).toEqual({
      ok: false,
      reason: 'protocol',
      error:
        "get_scenario_summary: protocol error in the bot's answer: server-response: get_scenario_summary: " +
        'data.d.actions: expected array, got string',
    });
    expect(
      time.trace.some((l) => /protocol violation \(bad_data\): server-response: get_scenario_summary/.test(l)),
    ).toBe(true);
  });

  it('the run ending fails the request waiting, and a request after that is not sent', async () => {
    const b = await bot();
    const time = new SessionClock();
    const run = new AbortController();
    const replies: ControlReply[] = [];
    const driven = new SessionRuntime(scenario, time.config({ url: b.url, signal: run.signal }), []).drive(
      driver(async (rt) => {
        const waiting = rt.control.request('get_scenario_summary', { include_db: false });
        await requestsSeen(b, 1);
        run.abort();
        replies.push(await waiting);
        replies.push(await rt.control.request('reset', {}));
      }),
    );
    // The session itself rethrows the caller's abort; what matters here is what the requests answered.
    await driven.catch(() => undefined);
    expect(replies).toEqual([
      { ok: false, reason: 'aborted', error: 'get_scenario_summary: the run ended before the bot answered' },
      { ok: false, reason: 'aborted', error: 'reset: not sent: the run ended' },
    ]);
  });

  it('summarizes a large d in the trace (a db as its size)', () => {
    const db = { menu: Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`Item ${i}`, '9.99'])) };
    const line = summarize({ actions: [], db_hash: 'abc', db });
    expect(line).toMatch(/^\{actions: \[\], db_hash: "abc", db: <object of 1 key\(s\), \d+ bytes>\}$/);
    expect(summarize({ include_db: false })).toBe('{"include_db":false}');
  });
});
