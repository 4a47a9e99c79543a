import { mkdtempSync, readFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach } from 'vitest';
import type { ScenarioResult } from '../../src/results/index.js';
import { ROOT } from '../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun, type Started } from '../suite/cli.testutil.js';

/**
 * Helpers for the fault tests: a reference bot started with `--fault` as a
 * subprocess, and `earshot run` as another, measured from outside (wall time)
 * and from inside (peak RSS through a preloaded probe), with its results read
 * back the way a user reads them.
 */
export const fixture = (name: string): string => join(ROOT, 'test', 'faults', 'fixtures', `${name}.yaml`);
const PROBE = pathToFileURL(join(ROOT, 'test', 'faults', 'rss-probe.mjs')).href;

export interface MeasuredRun extends CliRun {
  out: string;
  wallMs: number;
  /** Peak resident set size of the earshot process, MiB. */
  peakRssMb: number;
  results: ScenarioResult[];
}

export interface StartedRun extends Started {
  out: string;
  /** Resolves once the process has exited and its outputs have been read. */
  measured: Promise<MeasuredRun>;
}

/** Starts `earshot run <scenarios> --url <url> --out <tmp> ...flags` as a subprocess with the RSS probe loaded. */
export function startRun(
  url: string,
  scenarios: readonly string[],
  flags: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): StartedRun {
  const out = mkdtempSync(join(tmpdir(), 'earshot-faults-'));
  const rssFile = join(out, '.peak-rss-kib');
  const t0 = performance.now();
  const started = earshot(['run', ...scenarios, '--url', url, '--out', out, '--reporter', 'dot', ...flags], {
    NODE_OPTIONS: `--import=${PROBE}`,
    EARSHOT_TEST_RSS_FILE: rssFile,
    ...env,
  });
  const measured = started.done.then((run): MeasuredRun => {
    const wallMs = performance.now() - t0;
    if (!existsSync(rssFile)) throw new Error(`the RSS probe wrote nothing; stderr:\n${run.stderr}`);
    return { ...run, out, wallMs, peakRssMb: Number(readFileSync(rssFile, 'utf8')) / 1024, results: readResults(out) };
  });
  return { ...started, out, measured };
}

export function runAgainst(
  url: string,
  scenarios: readonly string[],
  flags: readonly string[] = [],
  env: NodeJS.ProcessEnv = {},
): Promise<MeasuredRun> {
  return startRun(url, scenarios, flags, env).measured;
}

/**
 * For a test file: a function that starts a reference bot with fault switches
 * (and `args` before them), every bot it started stopped after each test
 * (`stop()` is safe after a bot exited by itself).
 */
export function faultyBots(args: readonly string[] = []): (...faults: string[]) => Promise<RefbotProcess> {
  const bots: RefbotProcess[] = [];
  afterEach(async () => {
    await Promise.all(bots.splice(0).map((b) => b.stop()));
  });
  return async (...faults) => {
    const b = await startRefbotProcess([...args, ...faults.flatMap((f) => ['--fault', f])]);
    bots.push(b);
    return b;
  };
}

/** name → [status, failure kinds] in run order: what a run meant, for one-line assertions. */
export function verdicts(results: readonly ScenarioResult[]): Array<[string, string, string[]]> {
  return results.map((r) => [r.name, r.status, r.failures.map((f) => f.kind)]);
}

/** The CLI crashed or printed a stack trace: both are earshot bugs, whatever the bot did. */
export function harnessTrouble(run: CliRun): string[] {
  const text = `${run.stdout}\n${run.stderr}`;
  return [/internal error/i, /\n\s+at .+\(.+:\d+:\d+\)/, /Unhandled|uncaught/i, /FATAL ERROR|heap out of memory/i]
    .filter((re) => re.test(text))
    .map(String);
}
