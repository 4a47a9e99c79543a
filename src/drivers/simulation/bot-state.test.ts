import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { waitFor } from '../../protocol/loopback.testutil.js';
import type { Scenario } from '../../scenario/index.js';
import { ScenarioFiles } from '../../session/media/scenario.testutil.js';
import { SessionClock, startScriptedBot, type ScriptedBot } from '../../session/scripted-bot.testutil.js';
import { SessionRuntime } from '../../session/runtime.js';
import { dbHash } from '../../core/db-hash.js';
import type { EarshotEvent } from '../../results/events.js';
import type { NemoSpec, Simulation } from '../../scenario/index.js';
import type { DriverRuntime } from '../../session/index.js';
import { exitToolCalled, pullSummary, seedBotState } from './bot-state.js';

/**
 * The control plane as the driver sees it (`rt.control.request`): each request answered by the test, in order, and
 * what was sent recorded. The wire itself (ids, error-response, deadlines) is session/requests.ts's and tested there.
 */
type Answer = { ok: true; d: unknown } | { ok: false; error: string };
function runtime(answers: Record<string, Answer[]>, handshake: 'rtvi' | 'none' = 'rtvi') {
  const sent: Array<{ t: string; d: unknown }> = [];
  const log: string[] = [];
  const rt = {
    config: { handshake },
    control: {
      request: async (t: string, d: unknown): Promise<Answer> => {
        sent.push({ t, d });
        return answers[t]?.shift() ?? { ok: false, error: `no answer scripted for ${t}` };
      },
    },
    log: (l: string) => log.push(l),
  } as unknown as DriverRuntime;
  return { rt, sent, log };
}

const DB = { menu: { 'Pepperoni Pizza': '9.99' }, orders: [] };
const nemo = (over: Partial<NemoSpec> = {}): NemoSpec => ({
  name: 'restaurant__pizza',
  domain: 'restaurant',
  user: { persona: { role: 'human user' }, task: { goal: 'Order a pizza.' } },
  agent: {
    persona: { role: 'restaurant assistant' },
    task: { goal: 'Take the order.' },
    resources: { tools: { GetMenuTool: {}, EndConversationTool: {} } },
  },
  success_signals: ['db_state_match', 'clean_exit'],
  expected_scenario_db: DB,
  initialization_actions: [
    { side: 'agent', func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } },
  ],
  shared_state_init: { user: {}, agent: { db_path: 'restaurant/db.json' } },
  normalization: {
    ignore_capitalization: false,
    ignore_punctuation: false,
    clean_text: false,
    disallow_extra_items: false,
  },
  action_source: 'summary',
  max_duration_s: 300,
  custom_verdict: false,
  ...over,
});
const sim = (spec: NemoSpec): Simulation => ({ name: spec.name, nemo: spec }) as unknown as Simulation;
const OK_INIT: Answer = { ok: true, d: { success: true, errors: [] } };

describe('seedBotState', () => {
  it('sends the agent side, then apply_initialization with the agent state and init actions', async () => {
    const { rt, sent } = runtime({ update_system_prompt: [{ ok: true, d: {} }], apply_initialization: [OK_INIT] });
    expect(await seedBotState(rt, sim(nemo()))).toEqual({ ok: true });
    expect(sent.map((s) => s.t)).toEqual(['update_system_prompt', 'apply_initialization']);
    const prompt = sent[0].d as { prompt: string; tools: string; add_suffix: boolean; tool_domain: string };
    expect(prompt).toMatchObject({ add_suffix: true, tool_domain: 'restaurant' });
    expect(JSON.parse(prompt.tools)).toEqual({ GetMenuTool: {}, EndConversationTool: {} });
    expect(prompt.prompt).toContain('Take the order.');
    expect(sent[1].d).toEqual({
      domain: 'restaurant',
      shared_state_init: '{"db_path":"restaurant/db.json"}',
      actions: [{ func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } }],
    });
  });

  it('goes on with a note when the bot refuses update_system_prompt', async () => {
    const { rt, log } = runtime({
      update_system_prompt: [{ ok: false, error: 'error-response: unknown type' }],
      apply_initialization: [OK_INIT],
    });
    expect(await seedBotState(rt, sim(nemo()))).toEqual({ ok: true });
    expect(log.join('\n')).toContain('agent side not sent: the bot does not take update_system_prompt');
  });

  it("stops the run when the bot reports success: false, with the bot's errors", async () => {
    const { rt } = runtime({
      update_system_prompt: [{ ok: true, d: {} }],
      apply_initialization: [{ ok: true, d: { success: false, errors: ['db_path leaves the data root'] } }],
    });
    expect(await seedBotState(rt, sim(nemo()))).toEqual({
      ok: false,
      reason: 'the bot failed apply_initialization: db_path leaves the data root',
    });
  });

  it('fails a refused seeding only when the scenario needs the bot state (session/nemo-needs.ts)', async () => {
    const refused: Answer = { ok: false, error: 'error-response: no scenario state' };
    const needs = runtime({ update_system_prompt: [refused], apply_initialization: [refused] });
    expect(await seedBotState(needs.rt, sim(nemo()))).toEqual({
      ok: false,
      reason: 'apply_initialization got no answer: error-response: no scenario state; DB_STATE_MATCH reads the db_hash',
    });
    // Data carried but not whitelisted: nothing the verdict reads comes from the bot.
    const qa = nemo({
      success_signals: ['judge_passed'],
      initialization_actions: [],
      shared_state_init: { user: {}, agent: {} },
    });
    const free = runtime({ update_system_prompt: [refused], apply_initialization: [refused] });
    expect(await seedBotState(free.rt, sim(qa))).toEqual({ ok: true });
    expect(free.log.join('\n')).toContain('needs no bot state');
  });

  it('asks nothing of a bot without RTVI (--handshake none)', async () => {
    const qa = nemo({
      success_signals: ['judge_passed'],
      initialization_actions: [],
      shared_state_init: { user: {}, agent: {} },
    });
    const { rt, sent, log } = runtime({}, 'none');
    expect(await seedBotState(rt, sim(qa))).toEqual({ ok: true });
    expect(await pullSummary(rt, sim(qa))).toEqual({ error: 'no RTVI (--handshake none)' });
    expect(await seedBotState(rt, sim(nemo()))).toEqual({
      ok: false,
      reason: 'the bot has no RTVI (--handshake none); DB_STATE_MATCH reads the db_hash',
    });
    expect(sent).toEqual([]);
    expect(log).toEqual([
      'bot state: not seeded: the bot has no RTVI (--handshake none)',
      'bot state: no summary asked: the bot has no RTVI (--handshake none)',
    ]);
  });
});

describe('pullSummary', () => {
  it('asks include_db only for DB assertions', async () => {
    const { rt, sent } = runtime({ get_scenario_summary: [{ ok: true, d: { actions: [], db_hash: dbHash(DB) } }] });
    expect(await pullSummary(rt, sim(nemo()))).toEqual({ summary: { actions: [], db_hash: dbHash(DB) } });
    expect(sent).toEqual([{ t: 'get_scenario_summary', d: { include_db: false } }]);
    const withAssertions = nemo({
      db_state_assertions: [{ side: 'agent', func_name: 'count_at', arguments: { path: 'orders' }, assert_value: 1 }],
    });
    const second = runtime({ get_scenario_summary: [{ ok: true, d: { actions: [], db_hash: dbHash(DB), db: DB } }] });
    await pullSummary(second.rt, sim(withAssertions));
    expect(second.sent[0].d).toEqual({ include_db: true });
  });

  it('pulls again with the DB on a hash mismatch, for the diff', async () => {
    const theirs = { ...DB, orders: [{ customer_name: 'Charlie' }] };
    const { rt, sent } = runtime({
      get_scenario_summary: [
        { ok: true, d: { actions: [{ name: 'PlaceOrderTool' }], db_hash: dbHash(theirs) } },
        { ok: true, d: { actions: [{ name: 'PlaceOrderTool' }], db_hash: dbHash(theirs), db: theirs } },
      ],
    });
    const pull = await pullSummary(rt, sim(nemo()));
    expect(sent.map((s) => s.d)).toEqual([{ include_db: false }, { include_db: true }]);
    expect(pull.diffDb).toEqual(theirs);
    expect(pull.summary?.db_hash).toBe(dbHash(theirs));
  });

  it('says why there is no summary: refused, or malformed', async () => {
    const refused = runtime({ get_scenario_summary: [{ ok: false, error: 'the connection closed' }] });
    expect(await pullSummary(refused.rt, sim(nemo()))).toEqual({ error: 'the connection closed' });
    const bad = runtime({ get_scenario_summary: [{ ok: true, d: { db_hash: 'x' } }] });
    expect(await pullSummary(bad.rt, sim(nemo()))).toEqual({ error: 'the summary has no `actions` list' });
  });
});

describe('exitToolCalled', () => {
  it("names NeMo's exit tools, not the legacy map form's defaults", () => {
    const call = (function_name: string): EarshotEvent => ({ name: 'function_call', at_ms: 1, function_name });
    for (const name of ['EndConversationTool', 'TransferToAgentTool', 'TransferToHumanAgentsTool'])
      expect(exitToolCalled(call(name))).toBe(name);
    expect(exitToolCalled(call('transfer_to_human_agents'))).toBe('transfer_to_human_agents');
    for (const name of ['PlaceOrderTool', 'end_call', 'hang_up']) expect(exitToolCalled(call(name))).toBeNull();
    expect(exitToolCalled({ name: 'llm_response', at_ms: 1, text: 'EndConversationTool' })).toBeNull();
  });
});

describe('seedBotState on the wire (scripted bot, manual time)', () => {
  const files = new ScenarioFiles();
  let scenario: Scenario;
  beforeAll(async () => {
    scenario = await files.load('name: seed\nturns:\n  - user: one\n');
  });
  afterAll(() => files.cleanup());

  const seen = (b: ScriptedBot, n: number) =>
    waitFor(() => b.received.filter((r) => r.startsWith('client-message:')).length >= n);

  it('goes on past a refused update_system_prompt and stops on a failed apply_initialization', async () => {
    const b = await startScriptedBot();
    const time = new SessionClock();
    let outcome: unknown;
    try {
      await new SessionRuntime(scenario, time.config({ url: b.url }), []).drive({
        plannedTurns: () => [],
        run: async (rt) => {
          const seeding = seedBotState(rt, sim(nemo()));
          await seen(b, 1);
          // client-ready took id 1: update_system_prompt is 2, apply_initialization 3.
          b.peer()!.connection.send({ type: 'error-response', id: '2', data: { error: 'Unsupported type' } });
          await seen(b, 2);
          b.peer()!.connection.send({
            type: 'server-response',
            id: '3',
            data: { t: 'apply_initialization', d: { success: false, errors: ['unknown func_name set_menu_price'] } },
          });
          outcome = await seeding;
        },
      });
    } finally {
      await b.close();
    }
    expect(outcome).toEqual({
      ok: false,
      reason: 'the bot failed apply_initialization: unknown func_name set_menu_price',
    });
    expect(b.received).toEqual([
      'client-ready',
      'client-message:update_system_prompt',
      'client-message:apply_initialization',
    ]);
    expect(time.trace.some((l) => l.includes('agent side not sent'))).toBe(true);
  });
});
