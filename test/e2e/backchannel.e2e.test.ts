import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * The backchannel probe end to end: the built CLI asks the reference bot
 * (a subprocess) for its story and, 1.5 s into the bot's audio, murmurs
 * "right" over it, in real time. The default bot takes any speech over a
 * reply as a barge-in and stops; one started with `--no-yield-to-backchannel`
 * talks on through a murmur that ends within a second. `yielded: false`
 * fails on the first and passes on the second, measured from the bot audio.
 */
const project = mkdtempSync(join(tmpdir(), 'earshot-backchannel-'));
const out = { yields: join(project, 'yields'), holds: join(project, 'holds') };
const runs: { yields?: CliRun; holds?: CliRun } = {};
const bots: RefbotProcess[] = [];

beforeAll(async () => {
  writeFileSync(join(project, 'package.json'), '{}\n');
  writeFileSync(
    join(project, 'murmur.yaml'),
    'name: murmur\nuser: { modality: audio, speech: { service: flite } }\njudge: { modality: audio, transcription: { service: sphinx } }\nturns:\n' +
      '  - expect: [{ event: bot_stopped_speaking, within_ms: 15000 }]\n' +
      '  - user: Tell me a story\n    backchannel: { text: right, after_ms: 1500 }\n    yielded: false\n' +
      '    expect: [{ event: bot_started_speaking, within_ms: 30000 }]\n',
  );
  bots.push(await startRefbotProcess(), await startRefbotProcess(['--no-yield-to-backchannel']));
  runs.yields = await earshot([
    'run',
    join(project, 'murmur.yaml'),
    '--url',
    bots[0].url,
    '--out',
    out.yields,
    '--reporter',
    'dot',
  ]).done;
  runs.holds = await earshot([
    'run',
    join(project, 'murmur.yaml'),
    '--url',
    bots[1].url,
    '--out',
    out.holds,
    '--reporter',
    'dot',
  ]).done;
}, 180_000);

afterAll(async () => {
  await Promise.all(bots.map((b) => b.stop()));
  if (!process.env.EARSHOT_KEEP_TEST_OUTPUT) rmSync(project, { recursive: true, force: true });
});

describe('a backchannel over the bot', () => {
  it('a bot that holds the floor talks on: backchannel_yielded false, the assertion passes', () => {
    expect(runs.holds!.code, runs.holds!.stdout + runs.holds!.stderr).toBe(0);
    const [r] = readResults(out.holds);
    expect(r.turns[1].metrics).toMatchObject({ backchannel_yielded: false, yield_ms: null });
  });

  it('a bot that yields to any speech stops: backchannel_yielded true with its stop latency, yielded: false fails', () => {
    expect(runs.yields!.code).toBe(1);
    const [r] = readResults(out.yields);
    expect(r.turns[1].metrics).toMatchObject({ backchannel_yielded: true });
    expect(r.turns[1].metrics!.yield_ms).toBeGreaterThan(0);
    expect(r.turns[1].metrics!.yield_ms).toBeLessThan(2000);
    expect(r.failures.map((f) => f.kind)).toEqual(['backchannel_yield']);
  });
});
