import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../src/results/index.js';
import { runSuite } from '../../../src/runner/run-suite.js';
import { VirtualTerminal } from '../../../src/report/terminal.testutil.js';

/**
 * runSuite in process, against small real bot programs that misbehave at
 * start-up (the reference bot's runs are covered end to end in test/suite/).
 */
const root = realpathSync(mkdtempSync(join(tmpdir(), 'earshot-runsuite-')));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** What a terminal reporter wrote (not a TTY), for asserting on and keeping the test output clean. */
const sink = (): VirtualTerminal => new VirtualTerminal(false);

const SCENARIO =
  'name: ask\nturns:\n  - user: "What is the capital of Germany?"\n    expect:\n      - event: response\n        text_contains: "Berlin"\n';
const SIMULATION =
  'name: sim\npersona: "a caller"\ngoal: "ask"\nsuccess: "answered"\nsimulator: { service: openai, model: m }\nruns: 2\npass_threshold: 0.5\n';

/** A project folder: manifest, scenarios/, bots/ with the given programs. */
function project(name: string, manifest: string, bots: Record<string, string> = {}): string {
  const dir = join(root, name);
  mkdirSync(join(dir, 'scenarios'), { recursive: true });
  mkdirSync(join(dir, 'bots'), { recursive: true });
  mkdirSync(join(dir, 'bodies'), { recursive: true });
  writeFileSync(join(dir, 'scenarios', 'ask.yaml'), SCENARIO);
  writeFileSync(join(dir, 'scenarios', 'sim.yaml'), SIMULATION);
  writeFileSync(join(dir, 'bodies', 'body.json'), '{"image": "cat.jpg"}\n');
  for (const [file, source] of Object.entries(bots)) writeFileSync(join(dir, 'bots', file), source);
  writeFileSync(join(dir, 'manifest.yaml'), manifest);
  return join(dir, 'manifest.yaml');
}

async function run(manifest: string, extra: Partial<Parameters<typeof runSuite>[0]> = {}) {
  const stdout = sink();
  const stderr = sink();
  const outcome = await runSuite({
    manifest,
    python: process.execPath,
    reporter: 'dot',
    stdout,
    stderr,
    outDir: join(manifest, '..', 'out'),
    ...extra,
  });
  return { ...outcome, stdout: stdout.raw, stderr: stderr.raw };
}

const failureOf = (r: ScenarioResult): string => `${r.failures[0]?.kind}: ${r.failures[0]?.reason}`;

describe('runSuite', () => {
  it('passes the runner body as --runner-body and runs the bot in the body’s folder, as Pipecat does', async () => {
    const manifest = project(
      'body',
      'spawn: "{python} {bot} --port={port}"\nsuite:\n  - bot: bots/echo.mjs\n    runner_body: bodies/body.json\n    scenarios: [ask]\n',
      {
        'echo.mjs':
          'console.log(JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd(), repeat: process.env.EARSHOT_REPEAT_INDEX })); process.exit(4);',
      },
    );
    const { results } = await run(manifest);
    expect(results).toHaveLength(1);
    const line = failureOf(results[0])
      .split('\n')
      .find((l) => l.startsWith('{'))!;
    const seen = JSON.parse(line) as { argv: string[]; cwd: string; repeat: string };
    expect(seen.argv).toEqual([
      expect.stringMatching(/^--port=\d+$/),
      '--runner-body',
      join(root, 'body', 'bodies', 'body.json'),
    ]);
    expect(seen.cwd).toBe(join(root, 'body', 'bodies'));
    expect(seen.repeat).toBe('0');
    expect(failureOf(results[0])).toMatch(
      /^connect_failed: bot bots\/echo\.mjs exited with code 4 before accepting connections/,
    );
  });

  it('gives up on a bot that never listens after the spawn timeout, and stops it', async () => {
    const manifest = project('silent', 'suite:\n  - bot: bots/silent.mjs\n    scenarios: [ask]\n', {
      'silent.mjs': 'console.log("loading a very large model"); setInterval(() => {}, 1000);',
    });
    const t0 = performance.now();
    const { results, summary } = await run(manifest, { spawnTimeoutMs: 800, termTimeoutMs: 1000 });
    expect(performance.now() - t0).toBeLessThan(6000);
    expect(failureOf(results[0])).toMatch(
      /^connect_failed: bot bots\/silent\.mjs did not accept connections on port \d+ within 800 ms; last lines of its log:\nloading a very large model$/,
    );
    expect(results[0].artifacts?.bot_log).toMatch(/^001-bots_silent__ask\.bot\.log$/);
    expect(summary).toMatchObject({ ok: false, outcomes: { failed: 1 } });
  });

  it('reports a missing bot file without spawning anything, and goes on with the other bots', async () => {
    const manifest = project(
      'missing',
      'suite:\n  - bot: bots/nope.py\n    scenarios: [ask]\n  - bot: bots/exit.mjs\n    scenarios: [ask]\n',
      {
        'exit.mjs': 'process.exit(9);',
      },
    );
    const { results } = await run(manifest);
    const byBot = new Map(results.map((r) => [r.run?.bot, r]));
    expect(failureOf(byBot.get('bots/nope.py')!)).toBe(
      `connect_failed: bot not found: ${join(root, 'missing', 'bots', 'nope.py')} (bot: bots/nope.py)`,
    );
    expect(failureOf(byBot.get('bots/exit.mjs')!)).toMatch(/exited with code 9/);
  });

  it('reports a program that does not exist as a bot that could not start', async () => {
    const manifest = project(
      'noprog',
      'spawn: "earshot-no-such-binary --port {port}"\nsuite:\n  - bot: any\n    scenarios: [ask]\n',
    );
    const { results } = await run(manifest);
    expect(failureOf(results[0])).toMatch(
      /^connect_failed: bot any could not start: spawn earshot-no-such-binary ENOENT/,
    );
  });

  it('runs a simulation its runs: times, each against a bot of its own (here one that cannot start)', async () => {
    const manifest = project(
      'sim',
      'spawn: "earshot-no-such-binary {port}"\nsuite:\n  - bot: any\n    scenarios: [sim]\n',
    );
    const { results, summary } = await run(manifest);
    expect(results.map((r) => [r.name, r.status, r.run?.repeat_index, r.run?.pass_threshold])).toEqual([
      ['sim', 'failed', 0, 0.5],
      ['sim', 'failed', 1, 0.5],
    ]);
    expect(failureOf(results[0])).toMatch(
      /^connect_failed: bot any could not start: spawn earshot-no-such-binary ENOENT/,
    );
    expect(results[0].turns).toEqual([]);
    expect(summary).toMatchObject({ ok: false, outcomes: { failed: 1 } });
  });

  it('writes an inline runner body (runner_body: {data}) to a file beside the results and passes it as --runner-body', async () => {
    const manifest = project(
      'bodydata',
      'spawn: "{python} {bot} --port={port}"\nsuite:\n  - bot: bots/echo.mjs\n    name: small\n    runner_body: {data: {model: tiny}}\n    scenarios: [ask]\n',
      {
        'echo.mjs':
          'const at = process.argv.indexOf("--runner-body"); console.log(require("node:fs").readFileSync(process.argv[at + 1], "utf8")); process.exit(4);'.replace(
            'require("node:fs")',
            '(await import("node:fs"))',
          ),
      },
    );
    const { results, outDir } = await run(manifest);
    expect(failureOf(results[0])).toMatch(/last lines of its log:\n\{"model":"tiny"\}$/);
    expect(results[0].run).toMatchObject({ bot: 'small', bot_path: 'bots/echo.mjs' });
    expect(readFileSync(join(outDir, '001-bots_echo__small__ask.body.json'), 'utf8')).toBe('{"model":"tiny"}\n');
  });

  it("prints the files' warnings before the first run, and refuses a Python factory judge unless --judge replaces it", async () => {
    const judged =
      'name: judged\nscenarios:\n  - name: one\n    judge:\n      eval: { factory: evals.judges.typesafe_classifier }\n    turns:\n      - user: "hi"\n        expect:\n          - event: response\n            eval: "greets"\n            text_contians: "hi"\n';
    const manifest = project(
      'factory',
      'spawn: "{python} {bot} --port={port}"\nsuite:\n  - bot: bots/exit.mjs\n    scenarios: [judged]\n',
      { 'exit.mjs': 'process.exit(3);' },
    );
    writeFileSync(join(manifest, '..', 'scenarios', 'judged.yaml'), judged);
    const stderr = sink();
    await expect(
      runSuite({
        manifest,
        python: process.execPath,
        reporter: 'dot',
        stdout: sink(),
        stderr,
        outDir: join(manifest, '..', 'out'),
      }),
    ).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(
        /^cannot run in Node:\n.*judged\.yaml:5:\d+: error: judge\.eval\.factory: evals\.judges\.typesafe_classifier is a Python callable .*--judge openai:MODEL\[@URL\] or --judge ollama:MODEL$/,
      ),
    });
    expect(stderr.raw).toMatch(
      /judged\.yaml:11:13: warning: turns\[0\]\.expect\[0\]\.text_contians: unknown key 'text_contians'; did you mean 'text_contains'\?/,
    );
    const { results } = await run(manifest, { judge: 'openai:gpt-4o-mini@http://127.0.0.1:1/v1' });
    expect(results.map((r) => [r.name, r.status])).toEqual([['judged/one', 'failed']]);
    expect(failureOf(results[0])).toMatch(/exited with code 3/);
  });

  it('refuses a bad spawn template and a bad shard before starting anything', async () => {
    const manifest = project(
      'badspawn',
      'spawn: "{python} {bot} --port {prt}"\nsuite:\n  - bot: any\n    scenarios: [ask]\n',
    );
    await expect(run(manifest)).rejects.toThrow(/unknown placeholder \{prt\}/);
    await expect(run(manifest, { spawn: 'x {port}', shard: '4/3' })).rejects.toThrow(/--shard "4\/3"/);
  });

  it('refuses an invalid manifest with located errors (a usage error)', async () => {
    const manifest = project('badmanifest', 'concurrency: zero\nsuite:\n  - bot: any\n    scenarios: [ask, nothere]\n');
    await expect(run(manifest)).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/manifest\.yaml:1:\d+: error: concurrency[\s\S]*scenario not found: nothere/),
    });
  });

  it('writes nothing and starts nothing when a signal came before the first run', async () => {
    const manifest = project('aborted', 'suite:\n  - bot: bots/exit.mjs\n    scenarios: [ask]\n', {
      'exit.mjs': 'process.exit(1);',
    });
    const controller = new AbortController();
    controller.abort(new Error('SIGINT'));
    const outcome = await run(manifest, { signal: controller.signal });
    expect(outcome).toMatchObject({ interrupted: true, results: [] });
    expect(readFileSync(join(outcome.outDir, 'results.jsonl'), 'utf8')).toBe('');
  });
});
