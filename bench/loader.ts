/**
 * Scenario loader benchmark: `npx tsx bench/loader.ts [--runs N] [--dir DIR]`.
 *
 * Loads Pipecat's whole release corpus (every scenario with its includes, and
 * the manifest; `--dir` the newest one: its scenarios: lists and the
 * manifest's expansion) the way `earshot validate DIR` does, N times, and prints the
 * time per full load: the first (cold: module JIT, empty caches) and the
 * steady state. Target: under 300 ms per full load.
 */
import { existsSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validatePaths } from '../src/scenario/index.js';

const REPO = resolve(fileURLToPath(import.meta.url), '..', '..');
const TARGET_MS = 300;

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

const dir = resolve(
  arg('--dir') ?? process.env.EARSHOT_COMPAT_DIR ?? resolve(REPO, '..', 'shared/compat/pipecat-release-evals'),
);
const runs = Number(arg('--runs') ?? 50);
if (!existsSync(dir)) {
  process.stderr.write(`corpus not found at ${dir}: set EARSHOT_COMPAT_DIR or pass --dir\n`);
  process.exit(2);
}

const times: number[] = [];
const cpuTimes: number[] = [];
let summary = '';
for (let i = 0; i < runs; i++) {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const results = validatePaths([dir]);
  const c = process.cpuUsage(c0);
  times.push(performance.now() - t0);
  cpuTimes.push((c.user + c.system) / 1000);
  const invalid = results.filter((r) => r.status === 'invalid');
  if (invalid.length > 0) {
    process.stderr.write(`corpus has invalid files: ${invalid.map((r) => r.file).join(', ')}\n`);
    process.exit(1);
  }
  const count = (s: string): number => results.filter((r) => r.status === s).length;
  const scenarios = results.reduce((n, r) => n + r.scenarios.length, 0);
  summary = `${count('valid')} files loaded (${scenarios} scenarios), ${count('skipped')} include fragments skipped`;
}

const cold = times[0];
const cpuWarm = cpuTimes.slice(1).sort((a, b) => a - b);
const cpuMedian = cpuWarm[Math.floor(cpuWarm.length / 2)] ?? 0;
const warm = times.slice(1).sort((a, b) => a - b);
const pct = (p: number): number => warm[Math.min(warm.length - 1, Math.floor((p / 100) * warm.length))];
const mean = warm.reduce((a, b) => a + b, 0) / Math.max(1, warm.length);
const lines = [
  `scenario loader: ${dir}`,
  `  ${summary}, ${runs} full loads`,
  `  first load (cold)  ${cold.toFixed(1)} ms wall, ${cpuTimes[0].toFixed(1)} ms CPU`,
  `  per full load      mean ${mean.toFixed(1)} ms, p50 ${pct(50).toFixed(1)} ms, p95 ${pct(95).toFixed(1)} ms, min ${warm[0]?.toFixed(1)} ms, max ${warm[warm.length - 1]?.toFixed(1)} ms wall; median ${cpuMedian.toFixed(1)} ms CPU`,
  `  machine load average at the end: ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')} on ${availableParallelism()} cores (other work stretches wall times)`,
  `  target < ${TARGET_MS} ms per full load: ${Math.max(cold, pct(95)) < TARGET_MS ? 'met' : 'MISSED'} (cold and p95)`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (Math.max(cold, pct(95)) >= TARGET_MS) process.exitCode = 1;
