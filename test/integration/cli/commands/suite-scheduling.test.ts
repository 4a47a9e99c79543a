import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { TempProject } from '../../../../src/scenario/scenario.testutil.js';
import { CLI } from '../../../support/paths.js';

/**
 * `earshot suite`'s scheduling flags, run as a user runs them (the built CLI
 * in a subprocess), against bot programs that say when they started and exit:
 * each run fails at connect, quickly, with the bot's output in its failure.
 */
let project: TempProject;

function earshot(...args: string[]): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: project.dir,
    encoding: 'utf8',
    env: { ...process.env, EARSHOT_DEBUG: '' },
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

interface Line {
  scenario_id?: string;
  name: string;
  failures: Array<{ reason: string }>;
}
const results = (): Line[] =>
  readFileSync(join(project.dir, 'out', 'results.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Line);
/** The bot each of the last `n` runs spawned (a rerun into the same --out appends), by the name it printed. */
const botsInOrder = (n: number): string[] =>
  results()
    .slice(-n)
    .map((r) => /bot=(\w+)/.exec(r.failures[0]?.reason ?? '')?.[1] ?? '?');

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first: npx tsc -p tsconfig.build.json (missing ${CLI})`);
});
beforeEach(() => {
  project = new TempProject();
  project.write(
    'scenarios/ask.yaml',
    'name: ask\nscenarios:\n  - name: ask\n    turns:\n      - user: "Hello?"\n        expect:\n          - event: response\n',
  );
});
afterEach(() => project.cleanup());

describe('earshot suite scheduling', () => {
  it('orders runs longest first by the durations of the previous results in --out, and by the manifest with --no-history', () => {
    // Same turns; the slow bot takes 800 ms to fail, the quick one fails at once.
    project.write('bots/quick.mjs', 'console.log("bot=quick"); process.exit(4);\n');
    project.write('bots/slow.mjs', 'console.log("bot=slow"); setTimeout(() => process.exit(4), 800);\n');
    project.write(
      'manifest.yaml',
      'spawn: "{python} {bot} --port={port}"\nsuite:\n  - bot: bots/quick.mjs\n    scenarios: [ask]\n  - bot: bots/slow.mjs\n    scenarios: [ask]\n',
    );
    const suite = (...extra: string[]) =>
      earshot(
        'suite',
        'manifest.yaml',
        '--python',
        process.execPath,
        '--out',
        'out',
        '-c',
        '1',
        '--reporter',
        'dot',
        ...extra,
      );

    expect(suite().status).toBe(1);
    expect(botsInOrder(2)).toEqual(['quick', 'slow']);
    expect(suite().status).toBe(1);
    expect(botsInOrder(2)).toEqual(['slow', 'quick']);
    expect(suite('--no-history').status).toBe(1);
    expect(botsInOrder(2)).toEqual(['quick', 'slow']);
  });

  it('starts at most one bot per core per --spawn-stagger ms', () => {
    const cores = availableParallelism();
    const bots = cores + 1;
    for (let i = 0; i < bots; i++)
      project.write(`bots/b${i}.mjs`, `console.log("bot=b${i} at=" + Date.now()); process.exit(4);\n`);
    const entries = Array.from({ length: bots }, (_, i) => `  - bot: bots/b${i}.mjs\n    scenarios: [ask]\n`).join('');
    project.write('manifest.yaml', `spawn: "{python} {bot} --port={port}"\nsuite:\n${entries}`);
    const r = earshot(
      'suite',
      'manifest.yaml',
      '--python',
      process.execPath,
      '--out',
      'out',
      '-c',
      String(bots),
      '--reporter',
      'dot',
      '--spawn-stagger',
      '1500',
    );
    expect(r.status).toBe(1);
    const starts = results()
      .map((x) => Number(/at=(\d+)/.exec(x.failures[0]?.reason ?? '')?.[1]))
      .sort((a, b) => a - b);
    expect(starts).toHaveLength(bots);
    // One bot per core goes at once; the one more waits for the next slot, 1500 ms later. The times are the bots' own,
    // so each includes its Node start-up (the first ones start side by side on a busy machine: CI saw 119 ms more
    // for them); 1000 ms tolerates that and still tells 1500 ms from the default 250 ms.
    expect(starts[bots - 1] - starts[0]).toBeGreaterThanOrEqual(1000);
  });

  it('refuses a --spawn-stagger that is not a whole number of ms', () => {
    project.write('manifest.yaml', 'suite:\n  - bot: bots/x.mjs\n    scenarios: [ask]\n');
    const r = earshot('suite', 'manifest.yaml', '--spawn-stagger', 'soon');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/--spawn-stagger.*expected an integer >= 0, got "soon"/);
  });
});
