import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../../src/audio/index.js';
import type { ScenarioResult } from '../../src/results/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { CLI } from '../support/paths.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * Audio end to end, offline: the real CLI in a subprocess speaks Flite into a
 * real reference bot (its own subprocess) at real-time pace and judges what
 * the bot said from its audio, transcribed by PocketSphinx.
 *
 * The bundled scenarios (scenarios/audio) run on both codecs at once to keep
 * the wall time near one pass (~2 min): `earshot run` on pipecat-eval, and
 * `earshot demo --wire protobuf`, which starts its own bot. Smaller scenarios
 * (test/e2e/audio, against a bot with a one-word greeting) cover latency
 * failures, the --tts/--stt overrides, recordings off and typed questions with
 * spoken answers. Everything runs in `beforeAll`; the tests read the outputs.
 */
const made: string[] = [];
const tmp = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `earshot-audio-${name}-`));
  made.push(dir);
  return dir;
};
const out = { evalRun: tmp('eval'), demo: tmp('demo'), noModels: tmp('nomodels'), overrides: tmp('overrides') };
const ttsCache = tmp('tts-cache');
const emptyModels = tmp('models');
const runs: Record<'evalRun' | 'demo' | 'noModels' | 'overrides', CliRun | undefined> = {
  evalRun: undefined,
  demo: undefined,
  noModels: undefined,
  overrides: undefined,
};
/** The demo runs from a folder that is not the package: it must find scenarios/audio by itself. */
const demoCwd = tmp('cwd');
let bot: RefbotProcess | undefined;
let quickBot: RefbotProcess | undefined;

beforeAll(async () => {
  [bot, quickBot] = await Promise.all([
    startRefbotProcess(),
    startRefbotProcess(['--brain', 'test/e2e/audio-brain.yaml']),
  ]);
  const bundled = async (): Promise<void> => {
    runs.evalRun = await earshot([
      'run',
      'scenarios/audio',
      '--url',
      bot!.url,
      '--wire',
      'pipecat-eval',
      '--out',
      out.evalRun,
      '--reporter',
      'dot',
    ]).done;
  };
  const demo = async (): Promise<void> => {
    runs.demo = await earshotIn(demoCwd, ['demo', '--wire', 'protobuf', '--out', out.demo, '--reporter', 'dot']);
  };
  const small = async (): Promise<void> => {
    const args = ['run', 'test/e2e/audio', '--url', quickBot!.url, '--reporter', 'dot'];
    runs.noModels = await earshot([...args, '--out', out.noModels, '--no-record'], { EARSHOT_MODELS_DIR: emptyModels })
      .done;
    runs.overrides = await earshot([
      ...args,
      '--out',
      out.overrides,
      '--tts',
      'flite',
      '--stt',
      'sphinx',
      '--cache-dir',
      ttsCache,
    ]).done;
  };
  await Promise.all([bundled(), demo(), small()]);
}, 300_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), quickBot?.stop()]);
  // Recordings are a few MB per run; keep them only when asked to (to listen to a failure).
  if (!process.env.EARSHOT_KEEP_TEST_OUTPUT) for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function earshotIn(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

function byName(dir: string): Record<string, ScenarioResult> {
  return Object.fromEntries(readResults(dir).map((r) => [r.name, r]));
}

/** RMS per channel of a stereo WAV, over [fromMs, toMs) (default: the whole file), in dBFS. */
function channelLevels(path: string, fromMs = 0, toMs = Infinity): { user: number; bot: number } {
  const wav = decodeWav(readFileSync(path), path);
  const from = Math.floor((fromMs * wav.sampleRate) / 1000);
  const to = Math.min(wav.channels[0].length, Math.floor((toMs * wav.sampleRate) / 1000));
  const level = (ch: Float32Array): number => {
    let sum = 0;
    for (let i = from; i < to; i++) sum += ch[i] * ch[i];
    return 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12);
  };
  return { user: level(wav.channels[0]), bot: level(wav.channels[1]) };
}

const BUNDLED = [
  'barge_in/audio',
  'capital_question/audio',
  'dtmf_menu/audio',
  'multi_turn_memory/audio',
  'weather_function_call/audio',
];
const CODECS = [
  ['pipecat-eval (earshot run)', 'evalRun'],
  ['protobuf (earshot demo)', 'demo'],
] as const;

describe.each(CODECS)('the bundled audio scenarios on %s', (_label, which) => {
  it('all pass, one result line each, exit 0', () => {
    const run = runs[which]!;
    const results = readResults(out[which]);
    expect(results.map((r) => `${r.name}:${r.status}`).sort(), `${run.stdout}\n${run.stderr}`).toEqual(
      BUNDLED.map((n) => `${n}:passed`),
    );
    expect(run.code).toBe(0);
  });

  it('barge-in: the user talks 1.5 s into the story (measured from its audio), the bot stops within a moment and answers the new question', () => {
    const r = byName(out[which])['barge_in/audio'];
    const [, story, bargeIn] = r.turns;
    const onset = story.metrics!.bot_audio_onset_at_ms!;
    // send_after anchors on the measured onset: the first frame went out 1500 ms after it (next 20 ms tick).
    // started_at_ms is rounded to the ms, and the onset's final placement may settle a ms from where the
    // bot_audio_started event put it, hence 1497.
    expect(bargeIn.started_at_ms! - onset).toBeGreaterThanOrEqual(1497);
    expect(bargeIn.started_at_ms! - onset).toBeLessThan(1600);
    expect(bargeIn.expectations.map((e) => `${e.event}:${e.status}`)).toEqual([
      'bot_interrupted:passed',
      'response:passed',
    ]);
    expect(bargeIn.expectations[1].text).toContain('tokyo');
    const m = bargeIn.metrics!;
    expect(m.yielded).toBe(true);
    expect(m.interruption_ms).toBeGreaterThan(0);
    expect(m.interruption_ms).toBeLessThan(1500);
    // The story stopped, then the answer started: two bursts, in that order, after the user began.
    const audio = r
      .events!.filter((e) => e.name === 'bot_audio_started' || e.name === 'bot_audio_stopped')
      .filter((e) => e.at_ms > onset);
    const storyStop = audio.find((e) => e.name === 'bot_audio_stopped')!;
    expect(storyStop.at_ms).toBeGreaterThan(m.user_speech_start_at_ms!);
    expect(m.bot_audio_onset_at_ms!).toBeGreaterThan(storyStop.at_ms);
  });

  it('the recording has speech on both channels: the user’s question on the left, the bot’s answer on the right', () => {
    const r = byName(out[which])['capital_question/audio'];
    const wavPath = join(out[which], r.artifacts!.recording!);
    expect(r.recording_started_at_ms).toBe(0);
    const whole = channelLevels(wavPath);
    expect(whole.user).toBeGreaterThan(-45);
    expect(whole.bot).toBeGreaterThan(-45);
    const m = r.turns[1].metrics!;
    const question = channelLevels(wavPath, m.user_speech_start_at_ms!, m.user_speech_end_at_ms!);
    const answer = channelLevels(wavPath, m.bot_audio_onset_at_ms!, m.bot_audio_offset_at_ms!);
    expect(question.user).toBeGreaterThan(-35);
    expect(question.bot).toBeLessThan(-60);
    expect(answer.bot).toBeGreaterThan(-35);
    expect(answer.user).toBeLessThan(-60);
  });

  it('response events carry what PocketSphinx heard the bot say', () => {
    const results = byName(out[which]);
    const said = (name: string): string[] =>
      results[name].events!.flatMap((e) => (e.name === 'response' ? [e.text] : []));
    expect(said('capital_question/audio')).toContain('the capital of germany is berlin');
    expect(said('weather_function_call/audio')).toContain('it is seventy five degrees and sunny in berlin');
    expect(said('dtmf_menu/audio')).toContain('our office is located at one hundred twenty three main street');
  });

  it('every turn carries metrics; a spoken turn’s voice-to-voice latency passes the scenario’s latency bound', () => {
    for (const r of readResults(out[which]))
      for (const t of r.turns) expect(t.metrics, `${r.name} turn ${t.index}`).toBeDefined();
    const turn = byName(out[which])['capital_question/audio'].turns[1];
    expect(turn.status).toBe('passed');
    expect(turn.metrics!.voice_to_voice_ms).toBeGreaterThan(300);
    expect(turn.metrics!.voice_to_voice_ms).toBeLessThanOrEqual(6000);
  });
});

describe('earshot demo', () => {
  it('finds its scenarios from any folder, writes results.jsonl and one recording per scenario to --out, and prints where they are and each spoken turn’s latency', () => {
    const run = runs.demo!;
    expect(existsSync(join(out.demo, 'results.jsonl'))).toBe(true);
    const wavs = readdirSync(out.demo).filter((f) => f.endsWith('.wav'));
    expect(wavs).toHaveLength(BUNDLED.length);
    expect(readResults(out.demo).every((r) => r.artifacts?.recording && wavs.includes(r.artifacts.recording))).toBe(
      true,
    );
    expect(run.stdout).toContain(`results:    ${relative(demoCwd, join(out.demo, 'results.jsonl'))}`);
    expect(run.stdout).toMatch(/capital_question\/audio turn 2 "What is the capital of Germany\?" +\d+ ms/);
  });
});

describe('earshot demo on a machine without PocketSphinx', () => {
  it('stops at once with one line naming scripts/install-deps.sh and the apt packages (exit 1, no stack trace)', async () => {
    const run = await earshotIn(demoCwd, ['demo', '--out', join(demoCwd, 'no-sphinx')], { PATH: '/nonexistent' });
    expect(run.code).toBe(1);
    expect(run.stderr.trim().split('\n')).toEqual([
      'earshot: PocketSphinx (pocketsphinx_continuous) is missing: earshot demo needs it (the reference bot hears the caller with it, and earshot transcribes the bot with it); run scripts/install-deps.sh, or: sudo apt-get install pocketsphinx pocketsphinx-en-us',
    ]);
    expect(existsSync(join(demoCwd, 'no-sphinx'))).toBe(false);
  });
});

describe('latency, overrides, typed turns, recordings off (test/e2e/audio)', () => {
  it('a latency bound the bot cannot meet fails the turn with latency_exceeded, though every expectation passed', () => {
    const r = byName(out.overrides).latency_too_strict;
    expect(r.status).toBe('failed');
    expect(r.failures).toEqual([
      expect.objectContaining({ kind: 'latency_exceeded', turn_index: 1, expectation_index: null }),
    ]);
    expect(r.failures[0].reason).toMatch(/^voice_to_voice_ms \d+(\.\d+)? ?ms exceeds max 300 ?ms$/);
    expect(r.turns[1].expectations.map((e) => e.status)).toEqual(['passed']);
    expect(runs.overrides!.code).toBe(1);
  });

  it('--tts flite --stt sphinx run a scenario written for kokoro and moonshine offline', () => {
    const r = byName(out.overrides).pipecat_services;
    expect(r.status).toBe('passed');
    const trace = readFileSync(join(out.overrides, r.artifacts!.trace!), 'utf8');
    expect(trace).toContain('user speech flite (override)');
    expect(trace).toContain('bot transcribed by sphinx (override)');
    // --cache-dir: the synthesized questions are stored there.
    const cached = readdirSync(ttsCache, { recursive: true }).filter((f) => String(f).endsWith('.wav'));
    expect(cached.length).toBeGreaterThanOrEqual(2);
  });

  it('without the overrides, the missing Kokoro model is a one-line error naming the pull command; the other scenarios still run', () => {
    const r = byName(out.noModels);
    expect(r.pipecat_services.status).toBe('error');
    expect(r.pipecat_services.error).toMatch(/^model 'kokoro' is not in .*; run: earshot models pull kokoro$/);
    expect(r.typed_question_spoken_answer.status).toBe('passed');
    // --no-record: no WAV, no recording artifact.
    expect(readdirSync(out.noModels).filter((f) => f.endsWith('.wav'))).toEqual([]);
    expect(Object.values(r).every((x) => x.artifacts?.recording === undefined)).toBe(true);
  });

  it('a typed question gets a spoken answer: earshot captures, measures and transcribes it', () => {
    const r = byName(out.overrides).typed_question_spoken_answer;
    expect(r.status).toBe('passed');
    const t = r.turns[1];
    expect(t.expectations.find((e) => e.event === 'response')!.text).toContain('tokyo');
    expect(t.metrics!.llm_ttfb_ms).toBeGreaterThanOrEqual(0);
    expect(t.metrics!.bot_speech_ms).toBeGreaterThan(1000);
    expect(t.metrics!.voice_to_voice_ms).toBeNull();
    expect(channelLevels(join(out.overrides, r.artifacts!.recording!)).bot).toBeGreaterThan(-45);
  });
});
