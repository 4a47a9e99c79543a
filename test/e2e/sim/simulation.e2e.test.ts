import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type LlmConfig, type Simulation } from '../../../src/scenario/index.js';
import type { SessionOutcome } from '../../../src/session/index.js';
import { createSimulationDriver, driveSession } from '../../../src/drivers/index.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { simLlm } from '../../support/sim-llm.js';
import { callerRules, judgeRules, seeded } from './booking-rules.testutil.js';

/**
 * Simulated callers end to end in text modality: the simulation driver on the
 * session runtime, against the reference bot as a real subprocess (the
 * booking brain of this folder), with the caller's model and the judge served
 * by the stand-in LLM server over the real Chat Completions wire, tool calls
 * included. Every rule below is a plain function of what was said, and the
 * backoff jitter is seeded, so each run is deterministic.
 */
const BRAIN = join(ROOT, 'test/e2e/sim/brain-booking.yaml');
let server: LlmServer;
let bot: RefbotProcess;
let silentBot: RefbotProcess;
let protobufBot: RefbotProcess;
let booking: Record<string, Simulation>;
let extensions: Record<string, Simulation>;
let silence: Record<string, Simulation>;

const override = (model: string): LlmConfig => ({ service: 'openai', model, endpoint: server.url });

async function simulate(
  sim: Simulation,
  url = bot.url,
  codec: 'pipecat-eval' | 'protobuf' = 'pipecat-eval',
): Promise<SessionOutcome> {
  const driver = await createSimulationDriver(sim, {
    env: {},
    simulatorOverride: override('persona-model'),
    judgeOverride: override('judge-model'),
    random: seeded(42),
    requestTimeoutMs: 10_000,
  });
  // The protobuf wire cannot raise the bot's report level: that bot reports calls in full itself, and the session is told so.
  return driveSession(
    sim,
    { url, env: {}, codec, ...(codec === 'protobuf' ? { botEnables: { reportLevel: 'full' as const } } : {}) },
    driver,
  );
}

function byName(file: string): Record<string, Simulation> {
  const loaded = loadScenarioFile(join(ROOT, 'test/e2e/sim', file));
  return Object.fromEntries(loaded.scenarios.map((s) => [s.name.split('/')[1], s as Simulation]));
}

beforeAll(async () => {
  server = await startLlmServer(simLlm({ persona: callerRules(), judge: judgeRules }));
  [bot, silentBot, protobufBot] = await Promise.all([
    startRefbotProcess(['--brain', BRAIN]),
    startRefbotProcess(['--brain', BRAIN, '--fault', 'hang-after-turn=1']),
    startRefbotProcess(['--brain', BRAIN, '--wire', 'protobuf', '--report-level', 'full']),
  ]);
  booking = byName('booking.yaml');
  extensions = byName('extensions.yaml');
  silence = byName('silence.yaml');
}, 30_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), silentBot?.stop(), protobufBot?.stop(), server?.close()]);
});

describe('a simulated caller against the reference bot (text)', () => {
  it('passes: the caller listens first, books, hangs up on its last line; the bot gets its closing turn', async () => {
    const { result, trace } = await simulate(booking.available);
    const s = result.simulation!;
    expect(result.status, trace).toBe('passed');
    expect(s.ended_by).toBe('end_call');
    expect(s.transcript.map((e) => [e.kind, 'text' in e ? e.text : 'name' in e ? e.name : ''])).toEqual([
      [
        'bot',
        'Hello, and thank you for calling the Riverside restaurant. How many people will be joining you tonight?',
      ],
      ['caller', 'For two people.'],
      ['call', 'collect_party_size'],
      ['bot', 'A table for 2. What time would you like to come in?'],
      ['caller', "At six o'clock."],
      ['call', 'check_availability'],
      ['call', 'end_conversation'],
      ['bot', 'Your table is reserved for 2 at 6 PM tonight. Thank you for calling. Goodbye.'],
      ['caller', 'Thank you, goodbye!'],
      ['end_call', ''],
      ['bot', 'You are welcome. Goodbye.'],
    ]);
    expect(s).toMatchObject({
      persona_turns: 3,
      end_call: { success: true, reason: 'The table is booked.' },
      success: { verdict: 'yes' },
      passed: true,
    });
    expect(s.metrics.map((m) => [m.name, m.passed, m.value ?? m.score])).toEqual([
      ['politeness', true, 1],
      ['booked', true, 3],
      ['turns', true, 3],
      ['latency', true, expect.any(Number)],
    ]);
    // Each caller line is a session turn with its timing; the times run forward.
    expect(result.turns.map((t) => t.input.user)).toEqual([
      'For two people.',
      "At six o'clock.",
      'Thank you, goodbye!',
    ]);
    expect(result.turns[0].metrics?.first_token_ms).toBeGreaterThan(0);
    const times = s.transcript.map((e) => e.at_ms);
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(trace).toContain("persona: hung up; waiting for the bot's closing reply");
    expect(trace).toContain('judge: goal achieved');
  }, 30_000);

  it('plays the same call over the protobuf wire', async () => {
    const { result, trace } = await simulate(booking.available, protobufBot.url, 'protobuf');
    expect(result.status, trace).toBe('passed');
    expect(result.simulation!.transcript.filter((e) => e.kind === 'caller')).toHaveLength(3);
  }, 30_000);

  it('fails on success: the bot could not book the only time the caller could make', async () => {
    const { result } = await simulate(booking.taken);
    const s = result.simulation!;
    expect(result.status).toBe('failed');
    expect(s).toMatchObject({
      ended_by: 'end_call',
      end_call: { success: false },
      success: { verdict: 'no' },
      passed: false,
    });
    expect(result.failures.map((f) => f.kind)).toEqual(['goal_not_met', 'function_calls_mismatch']);
    expect(s.transcript.filter((e) => e.kind === 'bot').map((e) => (e as { text: string }).text)).toContain(
      'I am sorry, 7 PM is not available tonight. We have tables at 6 PM or 9 PM.',
    );
  }, 30_000);

  it('ends on max_turns: a caller who never gets anywhere is cut short, and a cut-short run has not succeeded', async () => {
    const { result } = await simulate(booking.repeating);
    const s = result.simulation!;
    expect(s).toMatchObject({ ended_by: 'max_turns', persona_turns: 3 });
    expect(s.transcript.filter((e) => e.kind === 'caller')).toHaveLength(3);
    expect(result.status).toBe('failed');
    expect(result.failures[0]).toMatchObject({ kind: 'cut_short', reason: expect.stringContaining('max_turns') });
  }, 30_000);

  it('ends on max_silence_s: a bot that stops answering leaves a lull, and the run ends as silence', async () => {
    const started = performance.now();
    const { result } = await simulate(silence.unanswered, silentBot.url);
    const s = result.simulation!;
    expect(s.ended_by).toBe('silence');
    expect(s.transcript.map((e) => e.kind)).toEqual(['bot', 'caller', 'call', 'bot', 'caller']);
    expect(result.failures[0].kind).toBe('cut_short');
    // The lull is 2 s after the caller's last line, not the 60 s call cap.
    expect(performance.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe('when the caller cannot be played', () => {
  it("a caller's model that cannot be reached ends the call at once as an error, judged not at all", async () => {
    const judged = server.requests.length;
    const driver = await createSimulationDriver(booking.available, {
      env: {},
      simulatorOverride: { service: 'openai', model: 'gone', endpoint: 'http://127.0.0.1:9/v1' },
      judgeOverride: override('judge-model'),
      maxAttempts: 1,
    });
    const { result } = await driveSession(booking.available, { url: bot.url, env: {} }, driver);
    expect(result.status).toBe('error');
    expect(result.simulation).toMatchObject({ ended_by: 'error', passed: false, success: { verdict: 'none' } });
    expect(result.failures[0]).toMatchObject({
      kind: 'harness_error',
      reason: expect.stringContaining("the caller's model failed"),
    });
    expect(server.requests.length).toBe(judged);
  }, 30_000);
});

describe("earshot's extensions, end to end", () => {
  it('a GAIA-style scorecard passes with the expected number said, and fails when the bot never said it', async () => {
    const pass = await simulate(extensions.scorecard_pass);
    expect(pass.result.status, pass.trace).toBe('passed');
    expect(pass.result.simulation!.scorecard).toMatchObject({ total: 8, passed: true, expected_answer: '6 PM' });
    const fail = await simulate(extensions.scorecard_fail);
    expect(fail.result.status).toBe('failed');
    const card = fail.result.simulation!.scorecard!;
    expect(card.dimensions[0]).toMatchObject({ dimension: 'correctness', judge_score: 8, score: 4, cap: { max: 4 } });
    expect(card).toMatchObject({ total: 7, passed: false });
    expect(fail.result.failures.map((f) => f.kind)).toEqual(['scorecard_below_threshold']);
  }, 60_000);

  it('NeMo-style success signals pass when all hold, and fail on the order of the calls and a false claim', async () => {
    const pass = await simulate(extensions.signals_pass);
    expect(pass.result.status, pass.trace).toBe('passed');
    expect(pass.result.simulation!.signals!.map((s) => [s.signal, s.passed])).toEqual([
      ['clean_exit', true],
      ['action_match', true],
      ['nl_assertions', true],
    ]);
    expect(pass.result.simulation!.signals![0].reason).toContain('the bot called end_conversation');
    const fail = await simulate(extensions.signals_fail);
    expect(fail.result.status).toBe('failed');
    expect(fail.result.simulation!.signals!.map((s) => [s.signal, s.passed])).toEqual([
      ['clean_exit', true],
      ['action_match', false],
      ['nl_assertions', false],
    ]);
    expect(fail.result.failures.map((f) => f.kind)).toEqual(['signal_failed', 'signal_failed']);
  }, 60_000);
});
