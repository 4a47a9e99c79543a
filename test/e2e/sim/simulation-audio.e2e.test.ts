import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type Simulation } from '../../../src/scenario/index.js';
import { createSimulationDriver, driveSession } from '../../../src/drivers/index.js';
import { AudioEngine } from '../../../src/session/index.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { readPersonaPrompt, readRunPrompt, simLlm } from '../../support/sim-llm.js';
import { callerRules, judgeRules, requestOf, seeded } from './booking-rules.testutil.js';

/**
 * The booking call over real audio, offline: each line the caller's model
 * says is synthesized by Flite and streamed at real-time pace into the
 * reference bot (a subprocess hearing it with Silero VAD and PocketSphinx);
 * the caller and the judge hear the bot through PocketSphinx transcribing its
 * captured Flite speech. Nothing about the turn-taking is scripted.
 */
let server: LlmServer;
let bot: RefbotProcess;
let engine: AudioEngine;
let sim: Simulation;

beforeAll(async () => {
  server = await startLlmServer(simLlm({ persona: callerRules(), judge: judgeRules }));
  bot = await startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-booking.yaml')]);
  engine = new AudioEngine({ record: false, noCache: true });
  sim = loadScenarioFile(join(ROOT, 'test/e2e/sim/booking_audio.yaml')).scenarios[0] as Simulation;
}, 30_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), server?.close(), engine?.close()]);
});

describe('a simulated caller in audio modality', () => {
  it('speaks its lines in real time, hears the transcribed bot, books and hangs up', async () => {
    const override = (model: string) => ({ service: 'openai', model, endpoint: server.url });
    const driver = await createSimulationDriver(sim, {
      env: {},
      simulatorOverride: override('persona-model'),
      judgeOverride: override('judge-model'),
      random: seeded(7),
      requestTimeoutMs: 10_000,
    });
    const { result, trace } = await driveSession(sim, { url: bot.url, env: {}, media: engine.media }, driver);
    const s = result.simulation!;
    expect(result.status, trace).toBe('passed');
    expect(s.ended_by).toBe('end_call');
    // The caller's requests, less repeats (reworded) for a bot that misheard (its recognizer runs on a busy machine too).
    const lines = s.transcript.flatMap((e) => (e.kind === 'caller' ? [requestOf(e.text)] : []));
    expect(lines.filter((l, i) => l !== lines[i - 1])).toEqual([
      'For two people.',
      "At six o'clock.",
      'Thank you, goodbye!',
    ]);
    // What the caller heard is the bot's speech as PocketSphinx wrote it, not its LLM text.
    const heard = readPersonaPrompt(server.requests.find((r) => readPersonaPrompt(r))!)!;
    expect(heard.lastBot).toMatch(/how many people/);
    expect(heard.lastBot).not.toMatch(/[A-Z,.?]/);
    const run = readRunPrompt(server.requests.find((r) => readRunPrompt(r)?.kind === 'run')!)!;
    expect(run.replies.some((r) => /reserv/.test(r) && /\bsix\b/.test(r))).toBe(true);
    expect(s.metrics.find((m) => m.name === 'booked')).toMatchObject({ passed: true });
    const latency = s.metrics.find((m) => m.name === 'latency')!;
    expect(latency.reason).toContain('from the persona stopping to the first spoken sentence');
    // Every caller line was a spoken turn: the user's speech was measured, and the bot answered it aloud.
    for (const turn of result.turns)
      expect(turn.metrics?.voice_to_voice_ms, JSON.stringify(turn.metrics)).toBeGreaterThan(0);
    expect(trace).toMatch(/send: speech "For two people\."/);
  }, 300_000);
});
