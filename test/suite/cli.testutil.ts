import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ScenarioResult } from '../../src/results/index.js';
import { CLI, ROOT } from '../support/paths.js';

export const FIXTURES = join(ROOT, 'test', 'suite', 'fixtures');

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface Started {
  child: ChildProcess;
  done: Promise<CliRun>;
}

export function earshot(args: readonly string[], env: NodeJS.ProcessEnv = {}): Started {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd: ROOT,
    env: { ...process.env, NO_COLOR: '1', CI: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const done = new Promise<CliRun>((resolve) =>
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

export function readResults(dir: string): ScenarioResult[] {
  const file = join(dir, 'results.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as ScenarioResult);
}

/** What a result set means, without timings: identity, status, turn statuses, failure kinds. */
export function essence(results: readonly ScenarioResult[]): string[] {
  return results
    .map((r) =>
      JSON.stringify([
        r.file,
        r.run?.bot ?? '',
        r.run?.repeat_index ?? 0,
        r.status,
        r.turns.map((t) => t.status),
        r.failures.map((f) => f.kind).sort(),
      ]),
    )
    .sort();
}

/** Pids the test bots wrote (EARSHOT_TEST_PID_DIR) that still run (zombies count as gone). */
export function livePids(pidDir: string): number[] {
  if (!existsSync(pidDir)) return [];
  return readdirSync(pidDir)
    .map(Number)
    .filter((pid) => {
      try {
        return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
      } catch {
        return false;
      }
    });
}

export async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!check()) {
    if (performance.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
