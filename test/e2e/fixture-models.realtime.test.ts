import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audibleBounds } from '../../src/audio/index.js';
import type { ScenarioResult } from '../../src/results/index.js';
import { writeFixtureModels } from '../../src/speech/fixture-models/write.js';
import { ModelStore } from '../../src/speech/models/store.js';
import { createTts } from '../../src/speech/tts/table.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * The local speech models end to end, on generated fixtures (the real
 * loaders, real ONNX forward passes, nothing downloaded): the real CLI against
 * real reference bots, at real-time pace, transcribing the bot with
 * `--stt whisper:tiny.en`, `whisper:base` (German asked for), `moonshine:tiny`,
 * and speaking the caller with Kokoro into the light bot, whose truth log says
 * exactly which samples it heard and when they played.
 */
const made: string[] = [];
const tmp = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `earshot-fixture-e2e-${name}-`));
  made.push(dir);
  return dir;
};
const models = tmp('models');
const truthDir = tmp('truth');
const truthLog = join(truthDir, 'truth.jsonl');
const out = { whisper: tmp('whisper'), german: tmp('german'), moonshine: tmp('moonshine'), kokoro: tmp('kokoro') };
const runs: Partial<Record<keyof typeof out, CliRun>> = {};
let bot: RefbotProcess | undefined;
let lightBot: RefbotProcess | undefined;

const QUESTION = 'What is the capital of Germany?';

beforeAll(async () => {
  await writeFixtureModels(models);
  [bot, lightBot] = await Promise.all([
    startRefbotProcess(['--brain', 'test/e2e/audio-brain.yaml']),
    startRefbotProcess(['--light', '--truth-log', truthLog]),
  ]);
  const env = { EARSHOT_MODELS_DIR: models };
  const run = async (which: keyof typeof out, args: string[], url: string): Promise<void> => {
    const flags = ['--url', url, '--out', out[which], '--reporter', 'dot', '--no-record'];
    runs[which] = await earshot(['run', ...args, ...flags], env).done;
  };
  await Promise.all([
    run('whisper', ['test/e2e/fixture-models/heard.yaml'], bot.url),
    run('german', ['test/e2e/fixture-models/heard-german.yaml'], bot.url),
    run('moonshine', ['test/e2e/fixture-models/heard.yaml', '--stt', 'moonshine:tiny'], bot.url),
  ]);
  // Alone, so the pace the light bot sees is the microphone's, not a busy machine's.
  await run('kokoro', ['test/e2e/fixture-models/spoken.yaml', '--cache-dir', tmp('tts-cache')], lightBot.url);
}, 180_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), lightBot?.stop()]);
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function only(which: keyof typeof out): ScenarioResult {
  const results = readResults(out[which]);
  const run = runs[which];
  expect(results, `${run?.stdout}\n${run?.stderr}`).toHaveLength(1);
  return results[0];
}

function responseText(result: ScenarioResult): string | undefined {
  const turn = result.turns.at(-1);
  return turn?.expectations.find((e) => e.event === 'response')?.text;
}

describe('a bot transcribed by a fixture recognizer', () => {
  it.each([
    ['whisper', 'whisper:whisper-tiny.en', 'one'],
    ['german', 'whisper:whisper-base', 'eins'],
    ['moonshine', 'moonshine:moonshine-tiny', 'one'],
  ] as const)(
    '%s: passes with the fixture transcript of the one-sentence answer, and says who heard it',
    (which, by, text) => {
      const result = only(which);
      expect(result.status, JSON.stringify(result.failures)).toBe('passed');
      expect(runs[which]?.code).toBe(0);
      expect(responseText(result)).toBe(text);
      expect(result.speech?.transcribed_by).toBe(by);
      expect(result.speech?.fixtures?.[by]).toMatch(/^generated fixture \(tiny\): counts voiced bursts/);
    },
  );
});

interface TruthLine {
  event: string;
  in_voiced_start_sample?: number | null;
  in_voiced_end_sample?: number | null;
  voiced_start_ms?: number | null;
  voiced_end_ms?: number | null;
  in_sample_rate?: number;
}

describe('a caller spoken by the Kokoro fixture', () => {
  it('reaches the bot resampled to its rate, sample for sample, at real-time pace', async () => {
    const result = only('kokoro');
    expect(result.status, JSON.stringify(result.failures)).toBe('passed');
    expect(result.speech?.spoken_by).toBe('kokoro:af_heart');
    expect(responseText(result)).toBe('one');
    const lines = readFileSync(truthLog, 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as TruthLine);
    const started = lines.find((l) => l.event === 'user_speech_started')!;
    const stopped = lines.find((l) => l.event === 'user_speech_stopped')!;
    expect(started.in_sample_rate).toBe(16000);
    // The same text through the same fixture, here, at the bot's rate: its audible span is what the bot must hear.
    const kokoro = await createTts({ provider: 'kokoro' }, { modelStore: new ModelStore(models), noCache: true });
    const { pcm } = await kokoro.synthesize(QUESTION, { sampleRate: 16000 });
    await kokoro.close();
    const bounds = audibleBounds(pcm, 16000)!;
    const heardSamples = stopped.in_voiced_end_sample! - started.in_voiced_start_sample!;
    expect(Math.abs(heardSamples - (bounds.end - bounds.first))).toBeLessThanOrEqual(16);
    const playedMs = stopped.voiced_end_ms! - started.voiced_start_ms!;
    expect(Math.abs(playedMs - (heardSamples / 16000) * 1000)).toBeLessThan(25);
  });
});
