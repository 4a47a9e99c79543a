import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../core/redact.js';
import { resolveJudgeService } from '../judge/index.js';
import type { ScenarioResult, SimulationEntry } from '../results/index.js';
import { DEFAULT_SCORECARD_WEIGHTS, type Simulation } from '../scenario/index.js';
import { sequence, startLlmServer, type LlmServer } from '../../test/support/llm-server.js';
import { readRunPrompt, simLlm } from '../../test/support/sim-llm.js';
import { concludeSimulation, type PlayedCall } from './conclude.js';
import { readRunVerdicts, runJudgePrompt } from './judge-run.js';
import { actionMatch, cleanExit } from './signals.js';
import type { RunJudge } from './transcript.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(() => server.close());

const TRANSCRIPT: SimulationEntry[] = [
  { kind: 'bot', at_ms: 200, text: 'Hello, this is the restaurant. How can I help?' },
  { kind: 'caller', at_ms: 1000, text: 'A table for two at 6 PM, please.', turn_index: 0 },
  { kind: 'call', at_ms: 1300, name: 'check_availability', tool_call_id: 'c1', args: { time: '6 PM', party_size: 2 } },
  { kind: 'call', at_ms: 1400, name: 'book_table', tool_call_id: 'c2', args: { time: '6 PM', party_size: 2 } },
  { kind: 'bot', at_ms: 1800, text: 'You are booked for two at 6 PM.' },
  { kind: 'caller', at_ms: 2600, text: 'Great, thanks!', turn_index: 1 },
  { kind: 'call', at_ms: 2800, name: 'end_conversation', tool_call_id: 'c3' },
  { kind: 'bot', at_ms: 3000, text: 'Goodbye!' },
  { kind: 'end_call', at_ms: 3500, success: true, reason: 'Booked.' },
];

const sim = (over: Partial<Simulation> = {}): Simulation =>
  ({
    kind: 'simulation',
    name: 'book/available',
    file: '/x/book.yaml',
    persona: 'Jamie',
    goal: 'Book a table for two at 6 PM.',
    success: 'the bot booked a table for two at 6 PM',
    judge: { modality: 'text', eval: { service: 'openai', explain_below: 0.75, allow_continue: true } },
    metrics: [
      { name: 'politeness', criterion: 'the reply is courteous', weight: 1, min_score: 1 },
      { name: 'turns', measure: 'turns', weight: 1, max_value: 8 },
    ],
    pass_threshold: 1,
    ...over,
  }) as Simulation;

const played = (over: Partial<PlayedCall> = {}): PlayedCall => ({
  transcript: TRANSCRIPT,
  endedBy: 'end_call',
  endDetail: 'the caller hung up (succeeded): Booked.',
  personaTurns: 2,
  durationS: 3.3,
  endCall: { success: true, reason: 'Booked.' },
  simulator: 'openai/persona @ x',
  ...over,
});

const result = (over: Partial<ScenarioResult> = {}): ScenarioResult => ({
  name: 'book/available',
  file: '/x/book.yaml',
  status: 'passed',
  started_at: '2026-01-01T00:00:00.000Z',
  duration_ms: 3600,
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

const conclude = (s: Simulation, p: PlayedCall, r: ScenarioResult = result()) =>
  concludeSimulation({ simulation: s, played: p, result: r, judge: judge(), log: () => undefined });

describe('the run judge prompt (one call: the goal and every judged metric on every reply)', () => {
  it('numbers the replies, puts each call before the reply it preceded, quotes every line', () => {
    const prompt = runJudgePrompt({
      transcript: TRANSCRIPT,
      modality: 'text',
      success: 'booked',
      criteria: [{ name: 'politeness', criterion: 'courteous' }],
    });
    expect(prompt.split('\n').filter((l) => /^(caller|bot)/.test(l))).toEqual([
      'bot reply 1: "Hello, this is the restaurant. How can I help?"',
      'caller: "A table for two at 6 PM, please."',
      'bot called function: "check_availability" with arguments {"time":"6 PM","party_size":2}',
      'bot called function: "book_table" with arguments {"time":"6 PM","party_size":2}',
      'bot reply 2: "You are booked for two at 6 PM."',
      'caller: "Great, thanks!"',
      'bot called function: "end_conversation"',
      'bot reply 3: "Goodbye!"',
      'caller hung up',
    ]);
    expect(prompt).toContain('Goal criterion: "booked"');
    expect(prompt).toContain('Metric "politeness": "courteous"');
  });

  it('reads the verdicts; a reply left out is none, an unparseable goal is none', () => {
    const q = { transcript: TRANSCRIPT, criteria: [{ name: 'politeness', criterion: 'c' }] };
    const v = readRunVerdicts(
      '{"goal": {"verdict": "YES", "reason": "booked"}, "metrics": {"politeness": [{"reply": 1, "verdict": "yes"}, {"reply": 3, "verdict": "no", "reason": "curt"}, {"reply": 9, "verdict": "no"}]}}',
      q,
    );
    expect(v.goal).toEqual({ verdict: 'yes', reason: 'booked' });
    expect(v.turns.politeness.map((t) => t.verdict)).toEqual(['yes', 'none', 'no']);
    expect(readRunVerdicts('the bot did well', q).goal.verdict).toBe('none');
  });
});

describe('a run concluded on a fixed transcript', () => {
  it('passes when the judge meets the goal and every gated metric holds; the block carries every score', async () => {
    server.respond(simLlm({ persona: [], judge: { goal: () => 'yes' } }));
    const r = await conclude(sim(), played());
    expect(r.status).toBe('passed');
    expect(r.failures).toEqual([]);
    const s = r.simulation!;
    expect(s).toMatchObject({
      ended_by: 'end_call',
      passed: true,
      persona_turns: 2,
      success: { verdict: 'yes', reason: 'scripted goal yes' },
    });
    expect(s.metrics.map((m) => [m.name, m.kind, m.score, m.passed])).toEqual([
      ['politeness', 'judged', 1, true],
      ['turns', 'measured', 1, true],
    ]);
    expect(server.requests).toHaveLength(1);
    expect(readRunPrompt(server.requests[0])?.replies).toHaveLength(3);
  });

  it('fails on the goal, on a metric below min_score, and when a backstop cut the call short', async () => {
    server.respond(
      simLlm({
        persona: [],
        judge: { goal: () => 'no', metric: (_n, reply) => (reply === 'Goodbye!' ? 'no' : 'yes') },
      }),
    );
    const r = await conclude(sim(), played({ endedBy: 'max_turns', endDetail: 'the caller reached max_turns (2)' }));
    expect(r.status).toBe('failed');
    expect(r.failures.map((f) => f.kind)).toEqual(['cut_short', 'goal_not_met', 'judge_no']);
    expect(r.failures[2].reason).toMatch(/^politeness 0\.67 below 1\.00: reply 3: scripted no/);
  });

  it('no goal verdict from the judge makes the run an error (judge trouble, not bot trouble); nothing is judged after an error', async () => {
    server.respond(simLlm({ persona: [], judge: { goal: () => 'garbled' } }));
    const r = await conclude(sim(), played());
    expect(r.status).toBe('error');
    expect(r.failures.map((f) => f.kind)).toEqual(['judge_no_verdict']);
    const before = server.requests.length;
    const errored = await conclude(
      sim(),
      played({ endedBy: 'error', endDetail: "the caller's model failed" }),
      result({ status: 'error', error: "the caller's model failed" }),
    );
    expect(errored.simulation).toMatchObject({
      ended_by: 'error',
      passed: false,
      success: { verdict: 'none', reason: "the caller's model failed" },
    });
    expect(server.requests.length).toBe(before);
    const noConnect = await conclude(
      sim(),
      played({ endedBy: 'error', transcript: [] }),
      result({
        status: 'failed',
        failures: [
          { kind: 'connect_failed', turn_index: null, expectation_index: null, event: null, reason: 'refused' },
        ],
      }),
    );
    expect(noConnect.status).toBe('error');
  });

  it('a judge that cannot answer is an error of the run', async () => {
    server.respond(sequence({ status: 500 }));
    const r = await conclude(sim(), played());
    expect(r.status).toBe('error');
    expect(r.failures[0]).toMatchObject({ kind: 'harness_error' });
  });

  it('scorecard: judged, capped by the expected number, weighed against the threshold', async () => {
    const scorecard = {
      weights: { ...DEFAULT_SCORECARD_WEIGHTS },
      pass_threshold: 8,
      expected_answer: '6 PM on the 14th',
    };
    server.respond(
      simLlm({
        persona: [],
        judge: { goal: () => 'yes', scorecard: (v) => ({ correctness: v.expected?.startsWith('6 PM') ? 10 : 0 }) },
      }),
    );
    const r = await conclude(sim({ scorecard }), played());
    const card = r.simulation!.scorecard!;
    // The bot said 6 (and 2) but never 14: correctness capped at 0 whatever the judge says.
    expect(card.dimensions[0]).toMatchObject({ dimension: 'correctness', judge_score: 10, score: 0, cap: { max: 0 } });
    expect(card).toMatchObject({ total: 6, passed: false });
    expect(r.failures.map((f) => f.kind)).toEqual(['scorecard_below_threshold']);
    const readable = await conclude(sim({ scorecard: { ...scorecard, expected_answer: '6 PM' } }), played());
    expect(readable.simulation!.scorecard).toMatchObject({ total: 8.5, passed: true });
    expect(readable.status).toBe('passed');
  });

  it('success signals gate the verdict: every listed signal must hold', async () => {
    server.respond(
      simLlm({ persona: [], judge: { goal: () => 'yes', claim: (c) => (c.includes('6 PM') ? 'yes' : 'no') } }),
    );
    const signals = {
      clean_exit: { functions: ['end_conversation'] },
      action_match: {
        calls: [{ name: 'check_availability' }, { name: 'book_table', args: { party_size: 2 } }],
        exact: false,
      },
      nl_assertions: ['the bot confirmed 6 PM'],
    };
    const ok = await conclude(sim({ success_signals: signals }), played());
    expect(ok.status).toBe('passed');
    expect(ok.simulation!.signals!.map((s) => [s.signal, s.passed])).toEqual([
      ['clean_exit', true],
      ['action_match', true],
      ['nl_assertions', true],
    ]);
    const bad = await conclude(
      sim({ success_signals: { ...signals, nl_assertions: ['the bot confirmed 6 PM', 'the bot offered dessert'] } }),
      played(),
    );
    expect(bad.status).toBe('failed');
    expect(bad.failures).toEqual([
      expect.objectContaining({ kind: 'signal_failed', reason: expect.stringContaining('"the bot offered dessert"') }),
    ]);
  });
});

describe('signals on fixed transcripts', () => {
  const noExit = TRANSCRIPT.filter((e) => !(e.kind === 'call' && e.name === 'end_conversation'));

  it('clean_exit: an exit function called, or a normal close by the bot; never the caller hanging up, a cap or a drop', () => {
    expect(cleanExit(['end_conversation'], TRANSCRIPT, { endedBy: 'end_call' })).toMatchObject({
      passed: true,
      reason: 'the bot called end_conversation at 2.8 s',
    });
    expect(cleanExit(['end_conversation'], noExit, { endedBy: 'bot', closeCode: 1000 })).toMatchObject({
      passed: true,
    });
    expect(cleanExit(['end_conversation'], noExit, { endedBy: 'bot', closeCode: 1006 })).toMatchObject({
      passed: false,
      reason: expect.stringContaining('dropped (code 1006)'),
    });
    expect(cleanExit(['end_conversation'], noExit, { endedBy: 'end_call' })).toMatchObject({
      passed: false,
      reason: expect.stringContaining('ended by end_call, not by the bot'),
    });
    expect(cleanExit(['end_conversation'], noExit, { endedBy: 'max_duration' }).passed).toBe(false);
    const cancelled: SimulationEntry[] = [
      ...noExit,
      { kind: 'call', at_ms: 1, name: 'end_conversation', cancelled: true },
    ];
    expect(cleanExit(['end_conversation'], cancelled, { endedBy: 'end_call' }).passed).toBe(false);
  });

  it('action_match: an ordered subsequence with args subsets; exact allows nothing else', () => {
    const calls = (names: string[]) => names.map((name) => ({ name }));
    expect(actionMatch({ calls: calls(['check_availability', 'book_table']), exact: false }, TRANSCRIPT).passed).toBe(
      true,
    );
    expect(actionMatch({ calls: calls(['book_table', 'check_availability']), exact: false }, TRANSCRIPT)).toMatchObject(
      { passed: false, reason: expect.stringContaining('first unmatched: check_availability') },
    );
    expect(
      actionMatch({ calls: [{ name: 'book_table', args: { party_size: 4 } }], exact: false }, TRANSCRIPT).passed,
    ).toBe(false);
    expect(actionMatch({ calls: calls(['check_availability', 'book_table']), exact: true }, TRANSCRIPT).passed).toBe(
      false,
    );
    expect(
      actionMatch({ calls: calls(['check_availability', 'book_table', 'end_conversation']), exact: true }, TRANSCRIPT)
        .passed,
    ).toBe(true);
  });
});
