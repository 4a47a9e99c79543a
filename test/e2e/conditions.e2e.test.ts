import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  activeLevelDbfs,
  concatPcm,
  decodeWav,
  encodeWav,
  float32ToInt16,
  meanPower,
  silence,
} from '../../src/audio/index.js';
import { fliteSpeech } from '../../src/audio/flite.testutil.js';
import type { ScenarioResult } from '../../src/results/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * Channel conditions end to end: the built CLI speaks a real Flite utterance
 * (500 ms of silence either side) to the reference bot (a subprocess) in real
 * time, through noise, a phone line and packet loss; the stereo recording's
 * user channel is what the bot was sent, and the test measures it there.
 */
const RATE = 16000;
const project = mkdtempSync(join(tmpdir(), 'earshot-conditions-'));
const out = join(project, 'out');
let clean: Int16Array;
let run: CliRun;
let bot: RefbotProcess | undefined;
let toneBot: RefbotProcess | undefined;
const dtmfOut = { heard: join(project, 'dtmf-heard'), deaf: join(project, 'dtmf-deaf') };
const dtmfRuns: { heard?: CliRun; deaf?: CliRun } = {};

const turn = `    turns:
      - user: What is the capital of France?
        audio: speech.wav
        expect: [{ event: user_stopped_speaking, within_ms: 15000 }]
`;
const line = (seed: number): string =>
  `    conditions: { telephony: { codec: mulaw }, loss: { rate: 0.1, burst_ms: 40, conceal: zero }, seed: ${seed} }\n`;

beforeAll(async () => {
  const speech = await fliteSpeech('What is the capital of France?');
  expect(speech.sampleRate).toBe(RATE);
  clean = concatPcm([silence(500, RATE), speech.samples, silence(500, RATE)]);
  writeFileSync(join(project, 'package.json'), '{}\n');
  writeFileSync(join(project, 'speech.wav'), encodeWav(clean, RATE));
  writeFileSync(
    join(project, 'conds.yaml'),
    `name: conds\nuser: { modality: audio, speech: { service: flite } }\nscenarios:\n` +
      `  - name: snr10\n    conditions: { noise: { type: white, snr_db: 10 }, seed: 7 }\n${turn}` +
      `  - name: line_a\n${line(7)}${turn}` +
      `  - name: line_b\n${line(7)}${turn}` +
      `  - name: line_c\n${line(8)}${turn}`,
  );
  // In-band keys under a phone line and café noise: "3" asks for a callback number, "123#" gives it.
  writeFileSync(
    join(project, 'dtmf.yaml'),
    `name: dtmf\nuser: { modality: audio, speech: { service: flite } }\ndtmf_mode: inband\n` +
      `conditions: { telephony: { codec: mulaw }, noise: { type: white, snr_db: 10 }, seed: 3 }\nturns:\n` +
      `  - expect: [{ event: llm_response, within_ms: 15000 }]\n` +
      `  - dtmf: "3"\n    expect: [{ event: llm_response, text_contains: number to call you back, within_ms: 8000 }]\n` +
      `  - dtmf: "123#"\n    expect: [{ event: llm_response, text_contains: call you back at 123, within_ms: 8000 }]\n`,
  );
  bot = await startRefbotProcess();
  toneBot = await startRefbotProcess(['--inband-dtmf']);
  // One after another: real-time audio on a loaded machine.
  run = await earshot(['run', join(project, 'conds.yaml'), '--url', bot.url, '--out', out, '--reporter', 'dot']).done;
  dtmfRuns.heard = await earshot([
    'run',
    join(project, 'dtmf.yaml'),
    '--url',
    toneBot.url,
    '--out',
    dtmfOut.heard,
    '--reporter',
    'dot',
  ]).done;
  // The same call to a bot that does not listen for tones: nobody presses anything it hears.
  dtmfRuns.deaf = await earshot([
    'run',
    join(project, 'dtmf.yaml'),
    '--url',
    bot.url,
    '--out',
    dtmfOut.deaf,
    '--reporter',
    'dot',
  ]).done;
}, 120_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), toneBot?.stop()]);
  if (!process.env.EARSHOT_KEEP_TEST_OUTPUT) rmSync(project, { recursive: true, force: true });
});

const results = (): Record<string, ScenarioResult> =>
  Object.fromEntries(readResults(out).map((r) => [r.name.replace(/^conds\//, ''), r]));

/** The user channel of a scenario's recording, from its first sample that is not silence. */
function received(name: string): Int16Array {
  const r = results()[name];
  const wav = decodeWav(readFileSync(join(out, r.artifacts!.recording!)), 'recording');
  // The WAV's samples come back as floats; they were 16-bit, so the conversion is exact.
  const user = float32ToInt16(wav.channels[0]);
  const first = user.findIndex((s) => s !== 0);
  expect(first).toBeGreaterThanOrEqual(0);
  return user.subarray(first);
}

describe('channel conditions, measured in what the refbot received', () => {
  it('runs every scenario, recording the seed', () => {
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(results().snr10.conditions).toMatchObject({
      seed: 7,
      applied: { noise: { type: 'white', snr_db: 10 }, seed: 7 },
    });
    expect(results().line_c.conditions?.seed).toBe(8);
  });

  it('white noise at 10 dB SNR measures 10 ± 1 dB against the voice', () => {
    const noisy = received('snr10');
    // The noise alone: the utterance's leading silence (skipping the first 20 ms).
    const noise = meanPower(noisy, 320, 7680);
    // The voice: the 10 ms blocks the clean utterance is active in (the SNR's own definition, activeLevelDbfs).
    let sum = 0;
    let n = 0;
    for (let at = 0; at + 160 <= clean.length; at += 160) {
      if (activeLevelDbfs(clean.subarray(at, at + 160), RATE) === null) continue;
      sum += meanPower(noisy, at, at + 160) * 160;
      n += 160;
    }
    const snr = 10 * Math.log10((sum / n - noise) / noise);
    expect(Math.abs(snr - 10), `measured ${snr.toFixed(2)} dB`).toBeLessThan(1);
  });

  it('µ-law and loss change the bytes; the same seed replays them exactly, another seed does not', () => {
    const a = received('line_a');
    const voiceStart = clean.findIndex((s) => s !== 0);
    const n = 16000; // a second of the voice
    expect(Buffer.from(a.slice(0, n).buffer).equals(Buffer.from(clean.slice(voiceStart, voiceStart + n).buffer))).toBe(
      false,
    );
    // What was sent, hashed at the source (the recording places frames by send time, which a loaded machine can shift).
    const hash = (name: string): string | undefined => results()[name].conditions?.audio_sha256?.['0'];
    expect(hash('line_a')).toMatch(/^[0-9a-f]{64}$/);
    expect(hash('line_b')).toBe(hash('line_a'));
    expect(hash('line_c')).not.toBe(hash('line_a'));
    // Lost packets are silent 20 ms runs in the middle of the voice, as the bot received it.
    let zeroRuns = 0;
    for (let at = 0; at + 320 <= clean.length - 16000; at += 160)
      if (a.subarray(at, at + 320).every((s) => s === 0)) zeroRuns++;
    expect(zeroRuns).toBeGreaterThan(0);
  });
});

describe('in-band DTMF', () => {
  it("the refbot's Goertzel receiver hears 123# through µ-law and 10 dB noise", () => {
    const r = dtmfRuns.heard!;
    expect(r.code, r.stdout + r.stderr).toBe(0);
    const [result] = readResults(dtmfOut.heard);
    expect(result.turns.map((t) => t.status)).toEqual(['passed', 'passed', 'passed']);
    expect(result.turns[2].expectations[0].text).toContain('call you back at 123');
  });

  it('a bot that only reads RTVI dtmf messages hears no key: the turn fails', () => {
    const r = dtmfRuns.deaf!;
    expect(r.code).toBe(1);
    const [result] = readResults(dtmfOut.deaf);
    expect(result.turns[1].status).toBe('failed');
  });
});
