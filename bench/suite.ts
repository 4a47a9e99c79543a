/**
 * Suite benchmark (issue 6): a 20-scenario text suite (bench/suite/manifest.yaml:
 * the bundled text scenarios plus twelve one-question ones), each run against
 * its own reference bot spawned by `earshot suite`, at several concurrencies.
 *
 *   npm run build && npm run bench:suite             # concurrency 1, 4 and 8
 *   npx tsx bench/suite.ts --levels 1,8 --json out.json
 *   npx tsx bench/suite.ts --levels 1,8 --stagger-ms 0 --no-history   # without issue 16's scheduling
 *
 * Measured first, on an idle suite: the reference bot's spawn time (spawn →
 * its port accepts connections; median of --spawns starts) and, from the
 * concurrency-1 run, the longest single scenario (session time, no spawn).
 * Per concurrency: wall time, passes, the CPU time the run took (this process
 * and the bots it reaped, from /proc/self/stat) and the wall time that CPU
 * needs at the least on this machine's cores, and the share of time a task
 * waited for a CPU (Linux PSI; other work on the machine shows up here).
 *
 * Target: at concurrency 8 the suite finishes within 1.2 × the longest single
 * scenario + the spawn time.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BotProcess, PortAllocator, resolveSelfCommand } from '../src/bots/index.js';
import { runSuite, type SuiteOutcome } from '../src/runner/index.js';
import { cpuStallUs } from './machine.js';

const MANIFEST = resolve(import.meta.dirname, 'suite', 'manifest.yaml');
const TARGET_FACTOR = 1.2;

interface Row {
  concurrency: number;
  wall_ms: number;
  runs: number;
  passed: number;
  speedup: number;
  cpu_ms: number | null;
  /** cpu_ms / cores: the least wall time this much CPU work takes here. */
  cpu_floor_ms: number | null;
  cpu_pressure_pct: number | null;
  spawn_p50_ms: number | null;
  /** Failure kind → count, when not every run passed. */
  failure_kinds: Record<string, number>;
}

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,4,8' },
    spawns: { type: 'string', default: '5' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    // Issue 16's scheduling, to compare with it off: --stagger-ms 0 (all spawns at once), --no-history (order by turns).
    'stagger-ms': { type: 'string' },
    'no-history': { type: 'boolean', default: false },
  },
});
const levels = values.levels.split(',').map(Number);
if (levels.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error(`--levels: expected whole numbers ≥ 1, got ${values.levels}`);
const [, cli] = resolveSelfCommand();
if (!existsSync(cli)) {
  process.stderr.write(
    `bench/suite: ${cli} is missing; run \`npm run build\` first (the suite spawns the built reference bot)\n`,
  );
  process.exit(2);
}

/** CPU time of this process plus the children it has waited for (the bots), ms; null off Linux. */
function cpuMs(): number | null {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    // After "pid (comm) ": state=0 ... utime=11 stime=12 cutime=13 cstime=14, in clock ticks (100 Hz on Linux).
    return (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return null;
  }
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const quiet = { write: () => true };
const work = mkdtempSync(join(tmpdir(), 'earshot-bench-suite-'));

/** Spawn → accepting connections, for the reference bot alone on an otherwise idle suite. */
async function spawnTimes(count: number): Promise<number[]> {
  const ports = new PortAllocator(7900);
  const times: number[] = [];
  for (let i = 0; i <= count; i++) {
    const port = await ports.acquire();
    const bot = BotProcess.spawn({
      command: process.execPath,
      args: [cli, 'refbot', '--port', String(port)],
      logFile: join(work, `spawn-${i}.log`),
    });
    const ready = await bot.waitReady({ host: 'localhost', port, timeoutMs: 60_000 });
    if (!ready.ready) throw new Error(`the reference bot did not start: ${bot.logTail()}`);
    if (i > 0) times.push(ready.afterMs); // the first start warms the disk cache
    await bot.stop({ graceMs: 0, termGraceMs: 5000 });
    ports.release(port);
  }
  return times;
}

/** Spawn times the suite saw, from each run's trace ("accepting connections on port N after X ms"). */
function observedSpawns(outcome: SuiteOutcome): number[] {
  return outcome.results.flatMap((r) => {
    const trace = r.artifacts?.trace ? readFileSync(join(outcome.outDir, r.artifacts.trace), 'utf8') : '';
    const m = /accepting connections on port \d+ after (\d+) ms/.exec(trace);
    return m ? [Number(m[1])] : [];
  });
}

async function runAt(concurrency: number): Promise<{ row: Omit<Row, 'speedup'>; outcome: SuiteOutcome }> {
  const cpu0 = cpuMs();
  const stall0 = cpuStallUs();
  const t0 = performance.now();
  // Each level's folder sits beside the earlier ones: it is ordered by the durations of the level before (1 runs first).
  const outcome = await runSuite({
    manifest: MANIFEST,
    concurrency,
    outDir: join(work, `c${concurrency}`),
    reporter: 'dot',
    stdout: quiet,
    stderr: process.stderr,
    ...(values['stagger-ms'] !== undefined ? { spawnStaggerMs: Number(values['stagger-ms']) } : {}),
    ...(values['no-history'] ? { knownDurations: new Map() } : {}),
  });
  const wall = performance.now() - t0;
  const cpu1 = cpuMs();
  const stall1 = cpuStallUs();
  const cpu = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
  const spawns = observedSpawns(outcome);
  return {
    outcome,
    row: {
      concurrency,
      wall_ms: Math.round(outcome.summary.wall_ms ?? wall),
      runs: outcome.results.length,
      passed: outcome.summary.counts.passed,
      cpu_ms: cpu,
      cpu_floor_ms: cpu === null ? null : Math.round(cpu / cpus().length),
      cpu_pressure_pct:
        stall0 !== null && stall1 !== null ? Math.round(((stall1 - stall0) / 1000 / wall) * 1000) / 10 : null,
      spawn_p50_ms: spawns.length ? Math.round(median(spawns)) : null,
      failure_kinds: outcome.summary.failure_kinds,
    },
  };
}

const started = new Date().toISOString();
const load = loadavg().map((x) => Math.round(x * 100) / 100);
const spawns = await spawnTimes(Number(values.spawns));
const spawnMs = Math.round(median(spawns));
const rows: Row[] = [];
let longest: { name: string; ms: number } | null = null;
for (const c of [...new Set([1, ...levels])].sort((a, b) => a - b)) {
  const { row, outcome } = await runAt(c);
  if (c === 1) {
    const top = [...outcome.results].sort((a, b) => b.duration_ms - a.duration_ms)[0];
    longest = { name: top.name, ms: top.duration_ms };
  }
  if (!levels.includes(c)) continue;
  rows.push({ ...row, speedup: 0 });
}
const base = rows.find((r) => r.concurrency === 1)?.wall_ms ?? rows[0].wall_ms;
for (const r of rows) r.speedup = Math.round((base / r.wall_ms) * 100) / 100;
const targetMs = Math.round(TARGET_FACTOR * longest!.ms + spawnMs);
const at8 = rows.find((r) => r.concurrency === 8);

const pad = (s: string | number, n: number): string => String(s).padStart(n);
const lines = [
  `earshot suite benchmark — ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load.join(' ')}`,
  `manifest: ${MANIFEST} (20 text scenarios, one reference bot per run)`,
  `reference bot spawn → accepting connections: median ${spawnMs} ms (${spawns.join(', ')})`,
  `longest single scenario (concurrency 1): ${longest!.name} ${longest!.ms} ms`,
  '',
  `${pad('concurrency', 11)} ${pad('wall s', 7)} ${pad('passed', 7)} ${pad('speedup', 7)} ${pad('CPU s', 6)} ${pad('CPU/cores s', 11)} ${pad('CPU wait %', 10)} ${pad('spawn p50 ms', 12)}`,
  ...rows.map(
    (r) =>
      `${pad(r.concurrency, 11)} ${pad((r.wall_ms / 1000).toFixed(1), 7)} ${pad(`${r.passed}/${r.runs}`, 7)} ${pad(r.speedup.toFixed(2), 7)} ` +
      `${pad(r.cpu_ms === null ? '-' : (r.cpu_ms / 1000).toFixed(1), 6)} ${pad(r.cpu_floor_ms === null ? '-' : (r.cpu_floor_ms / 1000).toFixed(1), 11)} ` +
      `${pad(r.cpu_pressure_pct ?? '-', 10)} ${pad(r.spawn_p50_ms ?? '-', 12)}`,
  ),
  ...rows
    .filter((r) => r.passed < r.runs)
    .map(
      (r) =>
        `  concurrency ${r.concurrency}: ${r.runs - r.passed} run(s) did not pass: ${Object.entries(r.failure_kinds)
          .map(([k, n]) => `${k} × ${n}`)
          .join(', ')}`,
    ),
  '',
];
let holds: boolean | null = null;
if (at8) {
  holds = at8.wall_ms <= targetMs;
  lines.push(
    `target at concurrency 8: ≤ ${TARGET_FACTOR} × ${longest!.ms} ms + ${spawnMs} ms = ${targetMs} ms; measured ${at8.wall_ms} ms: ${holds ? 'HOLDS' : 'DOES NOT HOLD'}`,
  );
  if (!holds && at8.cpu_floor_ms !== null && at8.cpu_floor_ms > targetMs * 0.8) {
    lines.push(
      `  why: the run is CPU-bound here: it took ${(at8.cpu_ms! / 1000).toFixed(1)} s of CPU (bot start-ups and sessions), which needs at least ` +
        `${(at8.cpu_floor_ms / 1000).toFixed(1)} s on ${cpus().length} cores, and 8 bots starting at once stretch each start-up to ${at8.spawn_p50_ms} ms (p50).`,
    );
  }
}
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ started_at: started, cores: cpus().length, load_average: load, node: process.version, spawn_ms: spawns, spawn_p50_ms: spawnMs, longest_scenario: longest, target_ms: targetMs, target_holds: holds, rows }, null, 2)}\n`,
  );
}
if (!values.keep) rmSync(work, { recursive: true, force: true });
else process.stdout.write(`outputs kept in ${work}\n`);
