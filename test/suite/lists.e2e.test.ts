import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/results/index.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { capitalCallerLlm } from '../support/sim-llm.js';
import { earshot, FIXTURES, livePids, readResults, type CliRun } from './cli.testutil.js';

/**
 * `earshot suite` on Pipecat 1.11 manifests, end to end: the built CLI spawns
 * real reference bots for every scenario of every file an entry names, and
 * `pipecat eval suite`'s filters and flags (-k, -s, -n, --runs-dir,
 * --scenarios-dir, -a) mean what they mean there.
 */
const tmp = mkdtempSync(join(tmpdir(), 'earshot-lists-suite-'));
/** Plays the simulation's caller and judges it (--simulator, --judge): the file names a cloud model. */
let llm: LlmServer;
beforeAll(async () => {
  llm = await startLlmServer(capitalCallerLlm());
});
afterAll(async () => {
  await llm?.close();
  rmSync(tmp, { recursive: true, force: true });
});
const llmFlags = (): string[] => ['--simulator', `openai:persona@${llm.url}`, '--judge', `openai:judge@${llm.url}`];

const MANIFEST = join(FIXTURES, 'lists.yaml');
const PYTHON = ['--python', process.execPath];
const list = async (...args: string[]): Promise<string[]> => {
  const run = await earshot(['suite', MANIFEST, ...PYTHON, '--list', ...args]).done;
  expect(run.code, run.stderr).toBe(0);
  return run.stdout.trim().split('\n');
};

describe('a manifest entry naming a file runs every scenario in it', () => {
  const out = join(tmp, 'all');
  const pids = join(tmp, 'pids-all');
  let run: CliRun;
  let results: ScenarioResult[];

  beforeAll(async () => {
    run = await earshot(['suite', MANIFEST, ...PYTHON, ...llmFlags(), '--out', out, '--reporter', 'dot,junit'], {
      EARSHOT_TEST_PID_DIR: pids,
    }).done;
    results = readResults(out);
  }, 120_000);

  it('runs both scripted scenarios of the file against a bot each, under each entry label, and passes', () => {
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const ran = results.filter((r) => r.simulation === undefined).map((r) => `${r.run?.bot} ${r.name} ${r.status}`);
    expect(ran.sort()).toEqual([
      'good.mjs capitals/france passed',
      'good.mjs capitals/germany passed',
      'good/with-body capitals/france passed',
      'good/with-body capitals/germany passed',
    ]);
    expect(new Set(results.map((r) => r.run?.url).filter(Boolean)).size).toBe(8);
    expect(livePids(pids)).toEqual([]);
  });

  it('runs each simulation of the file once per its own runs:, each against a bot of its own', () => {
    const sims = results.filter((r) => r.simulation !== undefined);
    expect(sims.map((r) => `${r.run?.bot} ${r.name} #${r.run?.repeat_index} ${r.status}`).sort()).toEqual([
      'good.mjs capitals/caller #0 passed',
      'good.mjs capitals/caller #1 passed',
      'good/with-body capitals/caller #0 passed',
      'good/with-body capitals/caller #1 passed',
    ]);
    expect(sims.every((r) => r.simulation?.ended_by === 'end_call' && r.artifacts?.bot_log !== undefined)).toBe(true);
  });

  it("passes an entry's inline runner_body to its bot as a file, and keeps each label's artifacts apart", () => {
    const withBody = results.find((r) => r.run?.bot === 'good/with-body' && r.name === 'capitals/germany')!;
    expect(withBody.run).toMatchObject({ bot: 'good/with-body', bot_path: 'good.mjs' });
    expect(withBody.artifacts!.bot_log).toMatch(/^\d{3}-good__good_with-body__capitals__germany\.bot\.log$/);
    expect(readFileSync(join(out, withBody.artifacts!.bot_log!), 'utf8')).toContain(
      'launch: runner body {"model":"tiny"}',
    );
    const plain = results.find((r) => r.run?.bot === 'good.mjs' && r.name === 'capitals/germany')!;
    expect(plain.artifacts!.bot_log).toMatch(/^\d{3}-good__capitals__germany\.bot\.log$/);
    expect(readFileSync(join(out, plain.artifacts!.bot_log!), 'utf8')).not.toContain('runner body');
    // One junit testsuite per scenario, not per file.
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toContain('capitals/germany');
    expect(junit).toContain('capitals/france');
  });
});

describe("pipecat eval suite's filters and flags on earshot suite", () => {
  it('-k script runs only the scripted scenarios; -k simulation only the simulations; -k other is a usage error', async () => {
    expect((await list('-k', 'script')).map((l) => l.split('\t').slice(0, 2).join(' '))).toEqual([
      'good.mjs capitals/germany',
      'good.mjs capitals/france',
      'good/with-body capitals/germany',
      'good/with-body capitals/france',
    ]);
    expect(
      (await list('-k', 'simulation')).every((l) => l.includes('capitals/caller') && l.endsWith('(simulation)')),
    ).toBe(true);
    const bad = await earshot(['suite', MANIFEST, '--list', '-k', 'scripted']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/-k, --kind <kind>' argument 'scripted' is invalid\. expected script or simulation/);
  }, 30_000);

  it('-s takes the full <file>/<scenario> name, either half of it (a file name selects all its scenarios), or a glob', async () => {
    const ids = async (s: string): Promise<string[]> => [
      ...new Set((await list('-s', s, '-p', 'with-body')).map((l) => l.split('\t')[1])),
    ];
    expect(await ids('capitals/france')).toEqual(['capitals/france']);
    expect(await ids('germany')).toEqual(['capitals/germany']);
    expect(await ids('capitals')).toEqual(['capitals/germany', 'capitals/france', 'capitals/caller']);
    expect(await ids('capitals/*an*')).toEqual(['capitals/germany', 'capitals/france']);
    const none = await earshot(['suite', MANIFEST, '--list', '-s', 'capitals/spain']).done;
    expect(none.code).toBe(2);
    expect(none.stderr).toContain(
      'no runs match -s "capitals/spain" (bots: good.mjs, good/with-body; scenarios: capitals/germany, capitals/france, capitals/caller (simulation))',
    );
  }, 30_000);

  it('--scenarios-dir resolves the entries under another folder, against the working directory', async () => {
    expect(
      (await list('--scenarios-dir', 'test/suite/fixtures/lists-alt', '-p', 'with-body')).map((l) =>
        l.split('\t').slice(0, 3).join(' '),
      ),
    ).toEqual(['good/with-body capitals/japan lists-alt/capitals.yaml']);
  }, 30_000);

  it('-k and -s select what a real run runs', async () => {
    const out = join(tmp, 'one');
    const run = await earshot([
      'suite',
      MANIFEST,
      ...PYTHON,
      '-k',
      'script',
      '-s',
      'capitals/g*',
      '-p',
      'with-body',
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code).toBe(0);
    expect(readResults(out).map((r) => [r.run?.bot, r.name, r.status])).toEqual([
      ['good/with-body', 'capitals/germany', 'passed'],
    ]);
  }, 60_000);

  it('-n names the run folder under --runs-dir (or the manifest’s runs_dir); --out with them is a usage error', async () => {
    const base = join(tmp, 'runs');
    const run = await earshot([
      'suite',
      MANIFEST,
      ...PYTHON,
      ...llmFlags(),
      '-k',
      'simulation',
      '-p',
      'with-body',
      '--runs-dir',
      base,
      '-n',
      'nightly',
      '--reporter',
      'dot',
    ]).done;
    expect(run.code, run.stderr).toBe(0);
    expect(readResults(join(base, 'nightly')).map((r) => r.status)).toEqual(['passed', 'passed']);
    const both = await earshot(['suite', MANIFEST, '-n', 'x', '--out', join(tmp, 'x')]).done;
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--out names the output folder itself; give it, or -n\/--runs-dir/);
    expect(existsSync(join(tmp, 'x'))).toBe(false);
  }, 30_000);

  it('-a is taken (it records audio, as --record) and with --no-record is a usage error', async () => {
    const both = await earshot(['suite', MANIFEST, '-a', '--no-record', '--list']).done;
    expect(both.code).toBe(2);
    expect(both.stderr).toContain('-a/--audio records audio; it cannot go with --no-record');
    expect((await list('-a', '-k', 'script')).length).toBe(4);
  }, 30_000);
});

describe('earshot suite before it starts any bot', () => {
  const manifest = (scenario: string): string => {
    const file = join(tmp, `${scenario}.manifest.yaml`);
    writeFileSync(
      file,
      `bots_dir: ${join(FIXTURES, '..', 'bots')}\nscenarios_dir: ${join(FIXTURES, '..', '..', 'e2e', 'lists')}\nsuite:\n  - bot: good.mjs\n    scenarios: [${scenario}]\n`,
    );
    return file;
  };

  it('prints the warnings of the files, located, then runs; --strict makes them errors: exit 2, no bot started', async () => {
    const pids = join(tmp, 'pids-strict');
    const out = join(tmp, 'strict');
    const warned = await earshot([
      'suite',
      manifest('misspelled'),
      ...PYTHON,
      '--out',
      join(tmp, 'warned'),
      '--reporter',
      'dot',
    ]).done;
    expect(warned.stderr).toMatch(
      /^test\/e2e\/lists\/misspelled\.yaml:9:13: warning: turns\[0\]\.expect\[0\]\.text_contians: unknown key 'text_contians'; did you mean 'text_contains'\?\n/,
    );
    expect(warned.code).toBe(0);
    const strict = await earshot(['suite', manifest('misspelled'), ...PYTHON, '--out', out, '--strict'], {
      EARSHOT_TEST_PID_DIR: pids,
    }).done;
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(/misspelled\.yaml:9:13: error: turns\[0\]\.expect\[0\]\.text_contians: unknown key/);
    expect(existsSync(pids)).toBe(false);
    expect(readResults(out)).toEqual([]);
  }, 60_000);

  it('refuses a Python factory judge in one located line naming --judge: exit 2, no bot started', async () => {
    const pids = join(tmp, 'pids-factory');
    const run = await earshot(['suite', manifest('python_judge'), ...PYTHON, '--out', join(tmp, 'factory')], {
      EARSHOT_TEST_PID_DIR: pids,
    }).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      "earshot: cannot run in Node:\ntest/e2e/lists/python_judge.yaml:6:14: error: judge.eval.factory: evals.judges.typesafe_classifier is a Python callable (Pipecat's factory:), which earshot cannot run in Node; judge with --judge openai:MODEL[@URL] or --judge ollama:MODEL\n",
    );
    expect(existsSync(pids)).toBe(false);
  }, 30_000);
});
