import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type LlmConfig, type Simulation } from '../../src/scenario/index.js';
import { AudioEngine, createSimulationDriver, driveSession, type SessionOutcome } from '../../src/session/index.js';
import { callerRules, judgeRules, seeded } from '../e2e/sim/booking-rules.testutil.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { ROOT } from '../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { simLlm, type RunView } from '../support/sim-llm.js';
import { earshot, readResults } from '../suite/cli.testutil.js';
import { newestCorpus, requireCorpus } from './corpora.js';

/**
 * Simulations of Pipecat's newest release corpus, run unchanged against the
 * reference bot wherever its brain can play the bot they were written for:
 * `capital_curious` (text and audio) against the default brain,
 * `book_table/available` against test/e2e/sim/brain-booking.yaml and
 * `order_pizza` against test/e2e/sim/brain-pizza.yaml. The
 * corpus's simulator (Ollama) and judge (a Python classifier) are replaced
 * by the stand-in LLM server, as `--simulator` / `--judge` would replace
 * them, and in audio its Kokoro / Moonshine by Flite / PocketSphinx, as
 * `--tts` / `--stt` do.
 */
const CORPUS = newestCorpus();
const SIMULATED = join(CORPUS, 'scenarios', 'simulated');
let server: LlmServer;
let capitalsBot: RefbotProcess;
let bookingBot: RefbotProcess;
let pizzaBot: RefbotProcess;
let engine: AudioEngine;

const persona = [
  { when: (v: { lastBot: string }) => v.lastBot.includes('what kind of pizza'), say: 'A large pepperoni pizza, please.' },
  { when: (v: { lastBot: string }) => v.lastBot.includes('is that right'), say: 'How long will delivery take?' },
  { when: (v: { lastBot: string }) => v.lastBot.includes('minutes'), say: 'Great, yes, please confirm the order.' },
  { when: (v: { lastBot: string }) => v.lastBot.includes('on its way'), endCall: { success: true, reason: 'The pizza is ordered.' } },
  { when: (v: { lastBot: string }) => v.lastBot.includes('berlin'), say: 'Thank you, that is all I needed. Goodbye!', endCall: { success: true, reason: 'Berlin is the capital.' } },
  { when: (v: { persona: string; callerTurns: number }) => v.persona.startsWith('A friendly, curious traveler') && v.callerTurns === 0, say: 'What is the capital of Germany?' },
  ...callerRules(),
];
const judge = {
  ...judgeRules,
  goal: (v: RunView): 'yes' | 'no' => {
    const said = (re: RegExp): boolean => v.replies.some((r) => re.test(r));
    if (v.success?.includes('Berlin')) return said(/berlin/i) ? 'yes' : 'no';
    if (v.success?.includes('pepperoni')) return said(/large pepperoni/i) && said(/minutes/) && said(/order is complete/) ? 'yes' : 'no';
    return judgeRules.goal(v);
  },
};

function simulation(file: string, name: string): Simulation {
  const found = loadScenarioFile(join(SIMULATED, file)).scenarios.find((s) => s.name === name);
  if (!found || found.kind !== 'simulation') throw new Error(`${file}: no simulation ${name}`);
  return found;
}

async function simulate(sim: Simulation, url: string, media?: AudioEngine): Promise<SessionOutcome> {
  const override = (model: string): LlmConfig => ({ service: 'openai', model, endpoint: server.url });
  const driver = await createSimulationDriver(sim, { env: {}, simulatorOverride: override('persona'), judgeOverride: override('judge'), random: seeded(11), requestTimeoutMs: 10_000 });
  return driveSession(sim, { url, env: {}, ...(media ? { media: media.media } : {}) }, driver);
}

beforeAll(async () => {
  requireCorpus(CORPUS, "Pipecat's newest release corpus");
  server = await startLlmServer(simLlm({ persona, judge }));
  [capitalsBot, bookingBot, pizzaBot] = await Promise.all([
    startRefbotProcess(),
    startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-booking.yaml')]),
    startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-pizza.yaml')]),
  ]);
  engine = new AudioEngine({ tts: 'flite', stt: 'sphinx', record: false, noCache: true });
}, 30_000);

afterAll(async () => {
  await Promise.all([capitalsBot?.stop(), bookingBot?.stop(), pizzaBot?.stop(), server?.close(), engine?.close()]);
});

describe("Pipecat's simulations, unchanged, against the reference bot", () => {
  it('capital_curious/text: the caller asks, hears Berlin, hangs up; goal met, every metric scored', async () => {
    const { result, trace } = await simulate(simulation('capital_curious.yaml', 'capital_curious/text'), capitalsBot.url);
    expect(result.status, trace).toBe('passed');
    expect(result.simulation).toMatchObject({ ended_by: 'end_call', persona_turns: 2, success: { verdict: 'yes' } });
    expect(result.simulation!.metrics.map((m) => [m.name, m.passed])).toEqual([
      ['politeness', true],
      ['brevity', true],
      ['words', true],
    ]);
  }, 60_000);

  it('book_table/available: party size, time, a booking, and the bot ends the call itself', async () => {
    const { result, trace } = await simulate(simulation('book_table.yaml', 'book_table/available'), bookingBot.url);
    expect(result.status, trace).toBe('passed');
    const calls = result.simulation!.transcript.flatMap((e) => (e.kind === 'call' ? [e.name] : []));
    expect(calls).toEqual(['collect_party_size', 'check_availability', 'end_conversation']);
  }, 60_000);

  it('order_pizza: the order, its read-back, a delivery estimate and the completion, every call the metric wants', async () => {
    const { result, trace } = await simulate(simulation('order_pizza.yaml', 'order_pizza/order_pizza'), pizzaBot.url);
    expect(result.status, trace).toBe('passed');
    expect(result.simulation!.metrics.find((m) => m.name === 'order_recorded')).toMatchObject({ passed: true, value: 4 });
    expect(result.simulation).toMatchObject({ ended_by: 'end_call', persona_turns: 3 });
  }, 60_000);

  it('capital_curious/audio: spoken in real time, heard through transcription, latency measured as Pipecat does', async () => {
    const { result, trace } = await simulate(simulation('capital_curious.yaml', 'capital_curious/audio'), capitalsBot.url, engine);
    expect(result.status, trace).toBe('passed');
    expect(result.simulation!.metrics.find((m) => m.name === 'latency')).toMatchObject({ passed: true, reason: expect.stringContaining('from the persona stopping') });
  }, 200_000);
});

describe("Pipecat's simulation files through the built CLI, unchanged", () => {
  it('earshot run order_pizza.yaml --simulator --judge: its Ollama caller and Python judge replaced, the call plays and passes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-compat-sim-'));
    try {
      const flags = ['--simulator', `openai:persona@${server.url}`, '--judge', `openai:judge@${server.url}`];
      const run = await earshot(['run', join(SIMULATED, 'order_pizza.yaml'), '--url', pizzaBot.url, ...flags, '--out', out, '--reporter', 'dot']).done;
      expect(run.code, run.stderr).toBe(0);
      const [result] = readResults(out);
      expect(result).toMatchObject({ name: 'order_pizza/order_pizza', status: 'passed', simulation: { ended_by: 'end_call', success: { verdict: 'yes' } } });
      // Without --judge, the corpus's Python classifier refuses the run before it connects, in one located line.
      const refused = await earshot(['run', join(SIMULATED, 'order_pizza.yaml'), '--url', pizzaBot.url, '--simulator', `openai:persona@${server.url}`]).done;
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(/judge_text\.yaml:\d+:\d+: error: judge\.eval\.factory: .* --judge openai:MODEL\[@URL\] or --judge ollama:MODEL/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});

