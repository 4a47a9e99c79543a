import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * The pause probe end to end: the built CLI speaks "What is the … capital of
 * France?" with 8 s of silence (PocketSphinx in the bot is slow on a busy machine: the eager bot's answer must land inside the pause) in the middle, in real time, to two
 * reference bots (subprocesses). The default one ends the caller's turn after
 * 320 ms of silence and answers into the pause; one started with
 * `--pause-patience-ms 9000` waits for the rest. `takeover: false` fails on
 * the first and passes on the second, measured from the captured bot audio.
 */
const project = mkdtempSync(join(tmpdir(), 'earshot-probes-'));
const out = { eager: join(project, 'eager'), patient: join(project, 'patient') };
const runs: { eager?: CliRun; patient?: CliRun } = {};
const bots: RefbotProcess[] = [];

beforeAll(async () => {
  writeFileSync(join(project, 'package.json'), '{}\n');
  writeFileSync(
    join(project, 'pause.yaml'),
    'name: pause\nuser: { modality: audio, speech: { service: flite } }\njudge: { modality: audio, transcription: { service: sphinx } }\nturns:\n' +
      '  - expect: [{ event: bot_stopped_speaking, within_ms: 15000 }]\n' +
      '  - user: What is the capital of France?\n    pause_ms: 8000\n    pause_after: What is the\n    takeover: false\n' +
      '    expect: [{ event: bot_started_speaking, within_ms: 60000 }]\n',
  );
  bots.push(await startRefbotProcess(), await startRefbotProcess(['--pause-patience-ms', '9000']));
  runs.eager = await earshot([
    'run',
    join(project, 'pause.yaml'),
    '--url',
    bots[0].url,
    '--out',
    out.eager,
    '--reporter',
    'dot',
  ]).done;
  runs.patient = await earshot([
    'run',
    join(project, 'pause.yaml'),
    '--url',
    bots[1].url,
    '--out',
    out.patient,
    '--reporter',
    'dot',
  ]).done;
}, 180_000);

afterAll(async () => {
  await Promise.all(bots.map((b) => b.stop()));
  if (!process.env.EARSHOT_KEEP_TEST_OUTPUT) rmSync(project, { recursive: true, force: true });
});

describe('a mid-utterance pause', () => {
  it('a bot that waits out the pause: takeover false, a positive response gap, the assertion passes', () => {
    expect(runs.patient!.code, runs.patient!.stdout + runs.patient!.stderr).toBe(0);
    const [r] = readResults(out.patient);
    expect(r.turns[1].metrics).toMatchObject({ takeover: false });
    expect(r.turns[1].metrics!.response_gap_ms).toBeGreaterThan(0);
    expect(r.turns[1].metrics!.overlap_ms).toBe(0);
  });

  it('a bot that takes the turn in the pause: takeover true, a negative gap, takeover: false fails', () => {
    expect(runs.eager!.code).toBe(1);
    const [r] = readResults(out.eager);
    expect(r.turns[1].metrics).toMatchObject({ takeover: true });
    expect(r.turns[1].metrics!.response_gap_ms).toBeLessThan(0);
    expect(r.turns[1].metrics!.overlap_ms).toBeGreaterThan(0);
    expect(r.failures.map((f) => f.kind)).toEqual(['takeover']);
  });
});
