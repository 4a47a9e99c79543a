/**
 * Cold-start benchmark (issue 16): `earshot run` of one text scenario against
 * a reference bot that is already running, timed from process start to exit.
 *
 *   npm run build && npm run bench:cold-start                 # 10 runs, a refbot started here
 *   npx tsx bench/cold-start.ts --runs 20 --url ws://127.0.0.1:8765 --json out.json
 *
 * Without `--url` it starts `earshot refbot` (the built CLI) once, waits for
 * it to listen, and stops it afterwards; its start is not timed. Each run is
 * `node dist/cli/main.js run scenarios/text/capital_question.yaml --url URL
 * --no-record` spawned afresh, timed with the monotonic clock from the spawn
 * to its exit; the first run (disk cache cold) is reported apart from the
 * rest. Target: under 1 s (p50). A text-only run never starts the pacer
 * thread, so the figure is the CLI's own start-up, load and one session.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SCENARIO = join(ROOT, 'scenarios', 'text', 'capital_question.yaml');
const TARGET_MS = 1000;

const { values } = parseArgs({
  options: { runs: { type: 'string', default: '10' }, url: { type: 'string' }, json: { type: 'string' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1) {
  console.error(`--runs: expected a whole number ≥ 1, got ${values.runs}`);
  process.exit(2);
}
if (!existsSync(CLI)) {
  console.error(`bench/cold-start: ${CLI} is missing; run \`npm run build\` first`);
  process.exit(2);
}

function startRefbot(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [CLI, 'refbot', '--port', '0'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /refbot listening on (ws:\/\/\S+)/.exec(out);
      if (m) ok({ url: m[1], stop: () => child.kill('SIGTERM') });
    });
    child.once('exit', (code) => fail(new Error(`refbot exited (${code}) before listening:\n${out}`)));
  });
}

function timeOneRun(url: string, outDir: string): Promise<{ ms: number; code: number | null }> {
  const t0 = performance.now();
  const child = spawn(process.execPath, [CLI, 'run', SCENARIO, '--url', url, '--no-record', '--out', outDir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((ok) =>
    child.once('exit', (code) => {
      const ms = performance.now() - t0;
      if (code !== 0) process.stderr.write(`run exited ${code}:\n${err}\n`);
      ok({ ms, code });
    }),
  );
}

const quantile = (xs: number[], q: number): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};

const bot = values.url ? { url: values.url, stop: () => {} } : await startRefbot();
const outDir = mkdtempSync(join(tmpdir(), 'earshot-cold-'));
const times: number[] = [];
let failed = 0;
try {
  for (let i = 0; i < runs; i++) {
    const r = await timeOneRun(bot.url, outDir);
    if (r.code !== 0) failed++;
    times.push(r.ms);
  }
} finally {
  bot.stop();
  rmSync(outDir, { recursive: true, force: true });
}
const warm = times.length > 1 ? times.slice(1) : times;
const round = (x: number): number => Math.round(x);
const result = {
  runs,
  failed,
  first_ms: round(times[0]),
  p50_ms: round(quantile(warm, 0.5)),
  min_ms: round(Math.min(...warm)),
  max_ms: round(Math.max(...warm)),
  target_ms: TARGET_MS,
  machine: `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, load avg ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`,
};
console.log(
  `cold start — earshot run scenarios/text/capital_question.yaml against a running refbot, ${runs} runs; ${result.machine}`,
);
console.log(
  `first ${result.first_ms} ms; then p50 ${result.p50_ms} ms, min ${result.min_ms} ms, max ${result.max_ms} ms (target < ${TARGET_MS} ms)${failed ? `; ${failed} runs failed` : ''}`,
);
if (values.json) writeFileSync(values.json, `${JSON.stringify(result, null, 2)}\n`);
process.exit(failed > 0 ? 1 : 0);
