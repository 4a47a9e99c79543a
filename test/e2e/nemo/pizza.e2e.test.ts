import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dbHash } from '../../../src/core/db-hash.js';
import { createSimulationDriver, driveSession } from '../../../src/drivers/index.js';
import { summarize, type NemoOutcome, type ScenarioResult } from '../../../src/results/index.js';
import { loadScenarioModules } from '../../../src/runner/scenario-modules.js';
import type { LlmConfig, Simulation } from '../../../src/scenario/index.js';
import type { SessionOutcome } from '../../../src/session/index.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { nemoLlm } from '../../support/nemo-llm.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { CHARLIE_ORDER, dbWithOrder } from './scenarios/restaurant-data.js';

/**
 * NeMo's worked example end to end, in text: the pepperoni-pizza scenario written with earshot's TypeScript API
 * (scenarios/restaurant.ts), loaded and compiled by earshot's module loader, played by the stand-in caller
 * (test/support/nemo-llm.ts) against the reference bot as a real subprocess with its restaurant domain, the bot's
 * state seeded over RTVI before the call and read back after it. Each broken variant must fail exactly its own
 * signal, with its reason.
 */
const BRAIN = join(ROOT, 'fixtures/nemo/restaurant/brain.yaml');
const DATA_ROOT = join(ROOT, 'fixtures/nemo');
let server: LlmServer;
let bot: RefbotProcess;
let protobufBot: RefbotProcess;
let statelessBot: RefbotProcess;
const sims = new Map<string, Simulation>();

const override = (model: string): LlmConfig => ({ service: 'openai', model, endpoint: server.url });

interface Play {
  url?: string;
  codec?: 'pipecat-eval' | 'protobuf';
  minAgentTurns?: number;
}

async function play(name: string, how: Play = {}): Promise<SessionOutcome> {
  const sim = sims.get(name);
  if (!sim) throw new Error(`no scenario ${name} registered by scenarios/restaurant.ts`);
  const codec = how.codec ?? 'pipecat-eval';
  const driver = await createSimulationDriver(sim, {
    env: {},
    simulatorOverride: override('caller-model'),
    judgeOverride: override('judge-model'),
    requestTimeoutMs: 10_000,
  });
  return driveSession(
    sim,
    {
      url: how.url ?? (codec === 'protobuf' ? protobufBot.url : bot.url),
      env: {},
      codec,
      ...(codec === 'protobuf' ? { botEnables: { reportLevel: 'full' as const } } : {}),
      ...(how.minAgentTurns !== undefined ? { minAgentTurns: how.minAgentTurns } : {}),
    },
    driver,
  );
}

function nemoOf(result: ScenarioResult, trace: string): NemoOutcome {
  expect(result.simulation?.nemo, `${result.status} ${result.error ?? ''}\n${trace}`).toBeDefined();
  return result.simulation!.nemo!;
}

/** Each computed signal's value by its metric key. */
const values = (n: NemoOutcome): Record<string, boolean | null> =>
  Object.fromEntries(n.signals.map((s) => [s.signal, s.value]));
const reasonOf = (n: NemoOutcome, key: string): string => n.signals.find((s) => s.signal === key)?.reason ?? '';
/** Results of one scenario as separate runs of a summary (one result per name is kept otherwise). */
const asRuns = (...results: ScenarioResult[]): ScenarioResult[] =>
  results.map((r, i) => ({ ...r, name: `${r.name}#${i + 1}` }));
const failureReasons = (r: ScenarioResult): string[] => r.failures.map((f) => `${f.kind}: ${f.reason}`);

beforeAll(async () => {
  // Through earshot's own module loader, as `earshot run --allow-code` loads it (tsx lowers its decorators).
  for (const sim of await loadScenarioModules([join(ROOT, 'test/e2e/nemo/scenarios/restaurant.ts')], {
    allowCode: true,
  }))
    sims.set(sim.name, sim);
  server = await startLlmServer(nemoLlm());
  const args = ['--brain', BRAIN, '--eval-data-root', DATA_ROOT];
  [bot, protobufBot, statelessBot] = await Promise.all([
    startRefbotProcess(args),
    startRefbotProcess([...args, '--wire', 'protobuf', '--report-level', 'full']),
    startRefbotProcess([...args, '--no-scenario-state']),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), protobufBot?.stop(), statelessBot?.stop(), server?.close()]);
});

describe("NeMo's worked example against the reference bot", () => {
  it('passes with ACTION_MATCH, DB_STATE_MATCH and CLEAN_EXIT: the order is placed, the DB hashes as expected, the bot ends the call', async () => {
    const { result, trace } = await play('restaurant__pizza_pepperoni');
    const n = nemoOf(result, trace);
    expect(result.status, `${failureReasons(result).join('\n')}\n${trace}`).toBe('passed');
    expect(n).toMatchObject({
      is_successful: true,
      is_task_successful: true,
      success_breakdown: {
        passed: ['is_action_match', 'db_state_match', 'clean_exit'],
        failed: [],
        not_applicable: [],
        excluded: [],
      },
      stop_reason: '[EXIT]',
      below_min_agent_turns: false,
      db_hash: dbHash(dbWithOrder(CHARLIE_ORDER)),
      expected_db_hash: dbHash(dbWithOrder(CHARLIE_ORDER)),
    });
    expect(n.actions).toEqual([
      {
        name: 'PlaceOrderTool',
        items: [
          { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: 1 },
          { name: 'Extra Cheese', unit_price: '1.50', quantity: 1 },
        ],
        customer_name: 'Charlie',
        customer_phone: '314-527-8960',
        total_price: '11.49',
      },
    ]);
    const s = result.simulation!;
    expect(s.ended_by).toBe('bot_exit');
    // The caller said the user's instructions in order, gave its details when asked, and the bot said the total.
    expect(s.transcript.filter((e) => e.kind === 'caller').map((e) => e.text)).toEqual([
      'What pizza options do you have?',
      'I would like one pepperoni pizza, please.',
      'Can I add extra cheese to that?',
      'My name is Charlie and my phone number is 314-527-8960.',
      'Yes, that is my order. What is the total price?',
      'That is all, thank you. Goodbye!',
    ]);
    expect(s.transcript.filter((e) => e.kind === 'call').map((e) => ('name' in e ? e.name : ''))).toEqual([
      'GetMenuTool',
      'PlaceOrderTool',
      'EndConversationTool',
    ]);
    expect(s.transcript.some((e) => e.kind === 'bot' && e.text.includes('Your total is 11.49'))).toBe(true);
    expect(n.agent_turns).toBe(s.transcript.filter((e) => e.kind === 'bot').length);
    // The agent side reached the bot, and its state was seeded before the talk and read back after it.
    expect(trace).toMatch(/bot state: seeded \(domain restaurant, 0 initialization action\(s\)\)/);
    expect(trace).toMatch(/bot state: summary: 1 action\(s\), db_hash [0-9a-f]{64}/);
    expect(trace).not.toContain('agent side not sent');
  }, 30_000);

  it('passes the same way over the protobuf wire (NeMo bots answer the control plane there)', async () => {
    const { result, trace } = await play('restaurant__pizza_pepperoni', { codec: 'protobuf' });
    const n = nemoOf(result, trace);
    expect(result.status, `${failureReasons(result).join('\n')}\n${trace}`).toBe('passed');
    expect(values(n)).toEqual({ is_action_match: true, db_state_match: true, clean_exit: true });
    expect(n.db_hash).toBe(dbHash(dbWithOrder(CHARLIE_ORDER)));
  }, 30_000);
});

describe('each broken variant fails exactly its own signal, with its reason', () => {
  it('a wrong item in the reference answer: only is_action_match is false, and the reason names the item', async () => {
    const { result, trace } = await play('restaurant__pizza_wrong_item');
    const n = nemoOf(result, trace);
    expect(result.status).toBe('failed');
    expect(values(n)).toEqual({ is_action_match: false, db_state_match: true, clean_exit: true });
    expect(n.success_breakdown).toMatchObject({
      failed: ['is_action_match'],
      passed: ['db_state_match', 'clean_exit'],
    });
    expect(reasonOf(n, 'is_action_match')).toContain('Cheese Pizza');
    expect(result.failures.map((f) => [f.kind, f.reason.split(':')[0]])).toEqual([
      ['signal_failed', 'is_action_match'],
    ]);
    expect(n.is_successful).toBe(false);
  }, 30_000);

  it('a wrong end state (another phone number): only db_state_match is false, with both hashes and the differing path', async () => {
    const { result, trace } = await play('restaurant__pizza_wrong_end_state');
    const n = nemoOf(result, trace);
    expect(result.status).toBe('failed');
    expect(values(n)).toEqual({ is_action_match: true, db_state_match: false, clean_exit: true });
    const reason = reasonOf(n, 'db_state_match');
    expect(reason).toContain(n.expected_db_hash!.slice(0, 12));
    expect(reason).toContain(String(n.db_hash).slice(0, 12));
    expect(reason).toMatch(/orders.*customer_phone/);
    expect(result.failures.map((f) => f.kind)).toEqual(['signal_failed']);
  }, 30_000);

  it('no end-conversation call (the caller hangs up on the total): only clean_exit is false', async () => {
    const { result, trace } = await play('restaurant__pizza_no_goodbye');
    const n = nemoOf(result, trace);
    expect(result.status).toBe('failed');
    expect(values(n)).toEqual({ is_action_match: true, db_state_match: true, clean_exit: false });
    expect(result.simulation!.ended_by).toBe('end_call');
    expect(reasonOf(n, 'clean_exit')).toMatch(/end_call/);
    expect(n).toMatchObject({ is_successful: false, is_task_successful: true });
    expect(result.simulation!.transcript.some((e) => e.kind === 'call' && e.name === 'EndConversationTool')).toBe(
      false,
    );
  }, 30_000);
});

describe("the bot's state", () => {
  it('initialization_actions are replayed bot-side: a pepperoni pizza at 10.99 makes the total 12.49, and it passes', async () => {
    const { result, trace } = await play('restaurant__pizza_price_change');
    const n = nemoOf(result, trace);
    expect(result.status, `${failureReasons(result).join('\n')}\n${trace}`).toBe('passed');
    expect(values(n)).toEqual({ is_action_match: true, db_state_match: true, clean_exit: true });
    expect(n.actions?.[0]).toMatchObject({ total_price: '12.49' });
    expect(trace).toContain('1 initialization action(s)');
  }, 30_000);

  it('DB_STATE_ASSERTION passes when every predicate holds and fails at a 0.5 pass rate, naming the one that did not', async () => {
    const pass = await play('restaurant__pizza_db_assertions');
    const p = nemoOf(pass.result, pass.trace);
    expect(pass.result.status, pass.trace).toBe('passed');
    expect(p.signals.find((s) => s.signal === 'db_state_assertion')).toMatchObject({ value: true, pass_rate: 1 });
    expect(p.db_state_assertion_verdicts?.map((v) => v.passed)).toEqual([true, true]);
    // Signals outside the whitelist are still computed, and kept apart.
    expect(p.success_breakdown).toMatchObject({
      passed: ['db_state_assertion', 'clean_exit'],
      excluded: ['is_action_match', 'db_state_match'],
    });

    const fail = await play('restaurant__pizza_db_assertions_fail');
    const f = nemoOf(fail.result, fail.trace);
    expect(fail.result.status).toBe('failed');
    expect(f.signals.find((s) => s.signal === 'db_state_assertion')).toMatchObject({ value: false, pass_rate: 0.5 });
    expect(f.db_state_assertion_verdicts?.map((v) => [v.passed, v.actual])).toEqual([
      [true, 1],
      [false, '11.49'],
    ]);
    expect(fail.result.failures.map((f) => f.reason).join('\n')).toContain("Charlie's order totals 9.99");
  }, 60_000);

  it('NL_ASSERTION judges each claim on its own: all hold → true; one of two does not → false at a 0.5 pass rate', async () => {
    const pass = await play('restaurant__pizza_claims');
    const p = nemoOf(pass.result, pass.trace);
    expect(pass.result.status, pass.trace).toBe('passed');
    expect(p.signals.find((s) => s.signal === 'nl_assertion')).toMatchObject({ value: true, pass_rate: 1 });
    expect(p.nl_assertion_verdicts?.map((v) => [v.what, v.passed])).toEqual([
      ['The bot told the caller the total price.', true],
      ['The bot offered the caller a discount.', true],
    ]);

    // The judge now finds no discount in the call.
    server.respond(nemoLlm({ claim: (claim) => (/discount/.test(claim) ? 'no' : 'yes') }));
    let fail: SessionOutcome;
    try {
      fail = await play('restaurant__pizza_claims');
    } finally {
      server.respond(nemoLlm());
    }
    const f = nemoOf(fail.result, fail.trace);
    expect(fail.result.status).toBe('failed');
    expect(f.signals.find((s) => s.signal === 'nl_assertion')).toMatchObject({ value: false, pass_rate: 0.5 });
    expect(f.nl_assertion_verdicts?.map((v) => v.passed)).toEqual([true, false]);
    expect(fail.result.failures.map((x) => x.reason.split(':')[0])).toEqual(['nl_assertion']);
  }, 60_000);

  it('a bot without the control plane (--no-scenario-state) cannot be scored on its state: a run error, never N/A', async () => {
    const { result, trace } = await play('restaurant__pizza_pepperoni', { url: statelessBot.url });
    expect(result.status, trace).toBe('error');
    // An errored run is scored not at all: no NeMo block, so no verdict (N/A or other) to count.
    expect(result.simulation?.nemo).toBeUndefined();
    expect(result.failures.map((f) => f.kind)).toContain('bot_state_error');
    expect(result.failures.find((f) => f.kind === 'bot_state_error')?.reason).toMatch(
      /apply_initialization.*; DB_STATE_MATCH reads the db_hash$/,
    );
  }, 30_000);

  it('a scenario that seeds no DB: the bot reports no db_hash, so db_state_match is false (never N/A)', async () => {
    const { result, trace } = await play('restaurant__pizza_no_db_seeded');
    const n = nemoOf(result, trace);
    expect(result.status).toBe('failed');
    expect(n.db_hash).toBeNull();
    expect(n.signals.find((s) => s.signal === 'db_state_match')).toMatchObject({
      value: false,
      reason: expect.stringContaining('no db_hash'),
    });
    expect(n.success_breakdown.not_applicable).toEqual([]);
    expect(n.is_successful).toBe(false);
  }, 30_000);

  it('a db_path the bot refuses (outside its data root) fails apply_initialization: a run error, bot_state_error, not scored', async () => {
    const before = server.requests.length;
    const { result, trace } = await play('restaurant__pizza_bad_db_path');
    expect(result.status, trace).toBe('error');
    expect(result.failures.map((f) => f.kind)).toEqual(['bot_state_error']);
    expect(result.failures[0].reason).toMatch(/apply_initialization.*db_path/);
    expect(result.simulation?.nemo).toBeUndefined();
    // Nothing was said: the run stopped before the caller's first line.
    expect(server.requests.length).toBe(before);
  }, 30_000);
});

describe('N/A and short runs', () => {
  it('a JUDGE_PASSED-only scenario with a judge that gives no usable score is N/A: inconclusive, out of the rate', async () => {
    server.respond(nemoLlm({ score: () => 'garbled' }));
    let outcome: SessionOutcome;
    try {
      outcome = await play('restaurant__pizza_judge_only');
    } finally {
      server.respond(nemoLlm());
    }
    const { result, trace } = outcome;
    const n = nemoOf(result, trace);
    expect(result.status).toBe('inconclusive');
    expect(n).toMatchObject({
      is_successful: 'N/A',
      judge_score: null,
      success_breakdown: { passed: [], failed: [], not_applicable: ['judge_passed'] },
    });
    expect(n.success_breakdown.excluded).toEqual(['is_action_match', 'db_state_match', 'clean_exit']);
    expect(reasonOf(n, 'judge_passed')).toContain('no usable score');

    // With a judge that scores it, the same scenario passes; the N/A run stays out of the composite rate.
    const scored = await play('restaurant__pizza_judge_only');
    expect(scored.result.status, scored.trace).toBe('passed');
    expect(nemoOf(scored.result, scored.trace)).toMatchObject({ judge_score: 1, is_successful: true });
    const summary = summarize(asRuns(result, scored.result));
    expect(summary.nemo?.composite).toMatchObject({ successful: 1, failed: 0, not_applicable: 1, rate: 1 });
  }, 60_000);

  it('--min-agent-turns above the agent turns the call had: a failure in the composite rate, left out of the per-signal rates', async () => {
    const first = await play('restaurant__pizza_pepperoni');
    const turns = nemoOf(first.result, first.trace).agent_turns;
    expect(turns).toBeGreaterThanOrEqual(3);
    const { result, trace } = await play('restaurant__pizza_pepperoni', { minAgentTurns: turns + 1 });
    const n = nemoOf(result, trace);
    expect(result.status).toBe('failed');
    expect(n).toMatchObject({ below_min_agent_turns: true, is_successful: false, min_agent_turns: turns + 1 });
    // Its signals held; only the turn count failed it.
    expect(values(n)).toEqual({ is_action_match: true, db_state_match: true, clean_exit: true });
    expect(result.failures.map((f) => f.kind)).toEqual(['too_few_agent_turns']);
    const summary = summarize(asRuns(first.result, result));
    expect(summary.nemo?.composite).toMatchObject({ successful: 1, failed: 1, short: 1, rate: 0.5 });
    expect(summary.nemo?.signals.clean_exit).toMatchObject({ passed: 1, failed: 0, rate: 1 });
  }, 60_000);
});
