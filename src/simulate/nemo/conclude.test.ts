import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dbHash } from '../../core/db-hash.js';
import { Redactor } from '../../core/redact.js';
import { resolveJudgeService } from '../../judge/index.js';
import { failure } from '../../results/failure.js';
import type { ScenarioResult, SimulationEntry } from '../../results/index.js';
import type { NemoSpec, Simulation } from '../../scenario/index.js';
import { sequence, startLlmServer, type LlmServer } from '../../../test/support/llm-server.js';
import { concludeSimulation, type PlayedCall } from '../conclude.js';
import type { RunJudge } from '../transcript.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(() => server.close());

const DB = { menu: { 'Pepperoni Pizza': '9.99' }, orders: [{ customer_name: 'Charlie', total_price: '9.99' }] };
const ACTION = { name: 'PlaceOrderTool', customer_name: 'Charlie', total_price: '9.99' };

const nemo = (over: Partial<NemoSpec> = {}): NemoSpec => ({
  name: 'restaurant__pizza',
  domain: 'restaurant',
  user: { persona: { role: 'human user', name: 'Charlie' }, task: { goal: 'Order a pizza.' } },
  agent: { task: { goal: 'Take the order.' } },
  success_signals: ['is_action_match', 'db_state_match', 'clean_exit'],
  reference_answer: { customer_name: 'Charlie', total_price: '9.99' },
  expected_scenario_db: DB,
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

const sim = (spec: NemoSpec): Simulation =>
  ({
    kind: 'simulation',
    name: spec.name,
    file: '/x/restaurant.ts',
    persona: 'Charlie',
    goal: 'Order a pizza.',
    success: 'Take the order.',
    judge: { modality: 'text', eval: { service: 'openai', explain_below: 0.75, allow_continue: true } },
    metrics: [],
    pass_threshold: 1,
    max_duration_s: 300,
    nemo: spec,
  }) as unknown as Simulation;

const TRANSCRIPT: SimulationEntry[] = [
  { kind: 'bot', at_ms: 100, text: 'Welcome to Pizza Palace.' },
  { kind: 'caller', at_ms: 900, text: 'One pepperoni pizza, I am Charlie.', turn_index: 0 },
  { kind: 'call', at_ms: 1200, name: 'PlaceOrderTool', args: {} },
  { kind: 'bot', at_ms: 1500, text: 'Your total is 9.99.' },
  { kind: 'caller', at_ms: 2000, text: 'Bye.', turn_index: 1 },
  { kind: 'call', at_ms: 2200, name: 'EndConversationTool' },
  { kind: 'bot', at_ms: 2400, text: 'Goodbye!' },
];

const played = (over: Partial<PlayedCall> = {}): PlayedCall => ({
  transcript: TRANSCRIPT,
  endedBy: 'bot_exit',
  endDetail: 'the bot called EndConversationTool',
  personaTurns: 2,
  durationS: 2.4,
  simulator: 'sim',
  summary: { summary: { actions: [ACTION], db_hash: dbHash(DB) } },
  ...over,
});

const result = (over: Partial<ScenarioResult> = {}): ScenarioResult => ({
  name: 'restaurant__pizza',
  file: '/x/restaurant.ts',
  status: 'passed',
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 3000,
  turns: [],
  failures: [],
  events: [],
  ...over,
});

const judge = (): RunJudge => ({
  backend: resolveJudgeService({ service: 'openai', model: 'judge-model', endpoint: server.url }, {}),
  ctx: {
    policy: { requestTimeoutMs: 5000, maxAttempts: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 1 },
    redactor: new Redactor({}),
    trace: () => undefined,
    random: () => 0.5,
  },
});

const conclude = (spec: NemoSpec, p: PlayedCall, r = result(), settings = { minAgentTurns: 3 }) =>
  concludeSimulation({
    simulation: sim(spec),
    played: p,
    result: r,
    judge: judge(),
    log: () => undefined,
    nemoSettings: { strictMatch: false, judgeThreshold: 0.9, ...settings },
  });

describe('concludeNemo', () => {
  it('passes when every whitelisted signal holds, without asking the judge anything', async () => {
    const out = await conclude(nemo(), played());
    expect(out.status).toBe('passed');
    expect(out.failures).toEqual([]);
    expect(out.simulation?.nemo).toMatchObject({
      is_successful: true,
      is_task_successful: true,
      success_breakdown: {
        passed: ['is_action_match', 'db_state_match', 'clean_exit'],
        failed: [],
        not_applicable: [],
        excluded: [],
      },
      stop_reason: '[EXIT]',
      agent_turns: 3,
      db_hash: dbHash(DB),
      expected_db_hash: dbHash(DB),
      actions: [ACTION],
    });
    expect(server.requests).toHaveLength(0);
  });

  it('fails with one signal_failed per failed whitelisted signal, an excluded one not counted', async () => {
    const spec = nemo({ success_signals: ['db_state_match', 'clean_exit'] });
    const out = await conclude(
      spec,
      played({
        endedBy: 'end_call',
        endDetail: 'the caller hung up',
        transcript: TRANSCRIPT.filter((e) => e.kind !== 'call' || e.name !== 'EndConversationTool'),
        summary: { summary: { actions: [], db_hash: 'f'.repeat(64) }, diffDb: { ...DB, orders: [] } },
      }),
    );
    expect(out.status).toBe('failed');
    expect(out.failures.map((f) => f.kind)).toEqual(['signal_failed', 'signal_failed']);
    expect(out.failures[0].reason).toMatch(/^db_state_match: db_hash ffffffffffff is not the expected .*orders/);
    expect(out.failures[1].reason).toMatch(/^clean_exit: the call ended by end_call/);
    expect(out.simulation?.nemo?.success_breakdown.excluded).toEqual(['is_action_match']);
    expect(out.simulation?.nemo?.signals.find((s) => s.signal === 'is_action_match')?.value).toBe(false);
  });

  it('scores DB_STATE_MATCH false (not N/A) when the bot gave no summary', async () => {
    const out = await conclude(nemo(), played({ summary: { error: 'error-response: unknown message type' } }));
    expect(out.status).toBe('failed');
    const db = out.simulation?.nemo?.signals.find((s) => s.signal === 'db_state_match');
    expect(db).toMatchObject({ value: false, reason: 'no db_hash: error-response: unknown message type' });
    expect(out.simulation?.nemo?.summary_error).toBe('error-response: unknown message type');
  });

  it("is inconclusive ('N/A') when the only whitelisted signal got no usable judge answer", async () => {
    server.respond(sequence('I think it went fine.'));
    const spec = nemo({
      success_signals: ['judge_passed'],
      reference_answer: 'Paris',
      expected_scenario_db: undefined,
    });
    const out = await conclude(spec, played());
    expect(out.status).toBe('inconclusive');
    expect(out.failures).toEqual([]);
    expect(out.simulation?.nemo).toMatchObject({
      is_successful: 'N/A',
      judge_score: null,
      success_breakdown: { not_applicable: ['judge_passed'], excluded: ['is_action_match', 'clean_exit'] },
    });
  });

  it('says in the trace that an excluded NL_ASSERTION went uncomputed for want of a judge', async () => {
    const log: string[] = [];
    const out = await concludeSimulation({
      simulation: sim(nemo({ nl_assertions: ['The bot told the caller the total price.'] })),
      played: played(),
      result: result(),
      judge: null,
      noJudgeReason: 'no --judge given',
      log: (l) => log.push(l),
    });
    expect(out.status).toBe('passed');
    expect(log).toContain('signal: nl_assertion not computed: no judge (no --judge given)');
    expect(out.simulation?.nemo?.signals.map((s) => s.signal)).not.toContain('nl_assertion');
  });

  it('fails a run below --min-agent-turns with too_few_agent_turns', async () => {
    const out = await conclude(nemo(), played(), result(), { minAgentTurns: 6 });
    expect(out.status).toBe('failed');
    expect(out.failures.map((f) => f.kind)).toEqual(['too_few_agent_turns']);
    expect(out.simulation?.nemo).toMatchObject({ is_successful: false, below_min_agent_turns: true, agent_turns: 3 });
  });

  it('scores nothing when the seeding failed: the run is an error with bot_state_error', async () => {
    const reason = 'the bot failed apply_initialization: db_path leaves the data root';
    const out = await conclude(
      nemo(),
      played({ endedBy: 'error', endDetail: reason, transcript: [], summary: undefined }),
      result({ failures: [failure('bot_state_error', reason)] }),
    );
    expect(out.status).toBe('error');
    expect(out.error).toBe(reason);
    expect(out.simulation?.nemo).toBeUndefined();
  });
});
