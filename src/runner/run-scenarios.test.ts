import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { VirtualTerminal } from '../report/terminal.testutil.js';
import { runScenarios } from './run-scenarios.js';

/** A port nothing listens on: bound, then released. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('runScenarios --repeat', () => {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-run-repeat-'));
  writeFileSync(join(dir, 'a.yaml'), 'name: a\nturns:\n  - user: "hi"\n    expect:\n      - event: response\n');
  writeFileSync(join(dir, 'b.yaml'), 'name: b\nturns:\n  - user: "hi"\n    expect:\n      - event: response\n');

  it('runs every scenario N times, repeat by repeat, each result with its repeat_index and its own artifacts', async () => {
    const url = `ws://127.0.0.1:${await closedPort()}`;
    const out = join(dir, 'out');
    const stdout = new VirtualTerminal(false);
    const outcome = await runScenarios({
      paths: [join(dir, 'a.yaml'), join(dir, 'b.yaml')],
      url,
      outDir: out,
      repeat: 3,
      reporter: 'list',
      stdout,
      stderr: new VirtualTerminal(false),
      session: { codec: 'pipecat-eval', connectTimeoutMs: 50 },
    });
    expect(outcome.results.map((r) => `${r.name}#${r.run?.repeat_index}:${r.status}`)).toEqual([
      'a#0:failed',
      'b#0:failed',
      'a#1:failed',
      'b#1:failed',
      'a#2:failed',
      'b#2:failed',
    ]);
    expect(outcome.summary.scenarios.map((s) => [s.name, s.runs, s.pass_rate, s.pass_rate_ci95])).toEqual([
      ['a', 3, 0, { low: 0, high: 0.561 }],
      ['b', 3, 0, { low: 0, high: 0.561 }],
    ]);
    expect(readdirSync(out).filter((f) => f.endsWith('.trace.log'))).toHaveLength(6);
    expect(stdout.raw).toContain('Pass rates (95% Wilson interval):');
  });

  it('leaves a single run as it was (no repeat_index) and refuses a repeat below 1', async () => {
    const url = `ws://127.0.0.1:${await closedPort()}`;
    const outcome = await runScenarios({
      paths: [join(dir, 'a.yaml')],
      url,
      outDir: join(dir, 'single'),
      reporter: 'dot',
      stdout: new VirtualTerminal(false),
      stderr: new VirtualTerminal(false),
      session: { codec: 'pipecat-eval', connectTimeoutMs: 50 },
    });
    expect(outcome.results[0].run).toBeUndefined();
    await expect(runScenarios({ paths: [join(dir, 'a.yaml')], url, repeat: 0 })).rejects.toThrow(UsageError);
  });
});
