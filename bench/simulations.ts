/**
 * Simulations benchmark (issue 13): how many simultaneous audio simulations one
 * process sustains. At each level N, N reference bots (subprocesses, the
 * table-booking brain of test/e2e/sim) each take one simulated call at the
 * same time, all from this process: the caller's lines synthesized by Flite
 * and streamed in real time on one shared pacer, the bots' speech transcribed
 * by PocketSphinx, the caller's model and the judge played by the tests'
 * OpenAI-compatible stand-in server (in this process, over real HTTP).
 *
 *   npm run build && npm run bench:simulations           # N = 1, 2, 4, 8
 *   npx tsx bench/simulations.ts --levels 1,2 --json out.json
 *
 * Per N: runs that passed, the pacer's frame lateness (sent − due, every frame
 * of every call: p50, p99, max), wall time, CPU of this process and of the
 * bots (as a share of one core over the level's wall time), and the share of
 * time a task waited for a CPU (Linux PSI). A level is sustained when every
 * run passed and the frame lateness p99 stayed within 5 ms (the pacer target).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { BotProcess, PortAllocator, resolveSelfCommand } from '../src/bots/index.js';
import type { DurationSummary } from '../src/core/histogram.js';
import { loadScenarioFile, type LlmConfig, type Simulation } from '../src/scenario/index.js';
import { runSimulation } from '../src/drivers/index.js';
import { AudioEngine } from '../src/session/index.js';
import { callerRules, judgeRules, seeded } from '../test/e2e/sim/booking-rules.testutil.js';
import { startLlmServer } from '../test/support/llm-server.js';
import { simLlm } from '../test/support/sim-llm.js';
import { cpuStallUs } from './machine.js';

const SIM_DIR = resolve(import.meta.dirname, '..', 'test', 'e2e', 'sim');
const LATENESS_P99_TARGET_MS = 5;

interface Row {
  n: number;
  passed: number;
  runs: number;
  pass_rate: number;
  /** Failure kind → count over the runs that did not pass. */
  failure_kinds: Record<string, number>;
  ended_by: Record<string, number>;
  wall_ms: number;
  call_p50_ms: number | null;
  frame_lateness_ms: { p50: number | null; p99: number | null; max: number | null; frames: number };
  /** CPU time over wall time, in % of one core: this process (callers, pacer, TTS, STT of the bots' speech) and the bots together. */
  harness_cpu_pct: number;
  bots_cpu_pct: number | null;
  cpu_pressure_pct: number | null;
  sustained: boolean;
}

const { values } = parseArgs({
  options: {
    levels: { type: 'string', default: '1,2,4,8' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
});
const levels = [...new Set(values.levels.split(',').map(Number))].sort((a, b) => a - b);
if (levels.some((n) => !Number.isInteger(n) || n < 1))
  throw new Error(`--levels: expected whole numbers ≥ 1, got ${values.levels}`);
const [, cli] = resolveSelfCommand();
if (!existsSync(cli)) {
  process.stderr.write(
    `bench/simulations: ${cli} is missing; run \`npm run build\` first (it spawns the built reference bot)\n`,
  );
  process.exit(2);
}

const simulation = loadScenarioFile(join(SIM_DIR, 'booking_audio.yaml')).scenarios[0] as Simulation;
const brain = join(SIM_DIR, 'brain-booking.yaml');
const work = mkdtempSync(join(tmpdir(), 'earshot-bench-sims-'));
const server = await startLlmServer(simLlm({ persona: callerRules(), judge: judgeRules }));
const override = (model: string): LlmConfig => ({ service: 'openai', model, endpoint: server.url });

/** utime + stime of a live process, ms; null off Linux or once it is gone. */
function processCpuMs(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return null;
  }
}

const median = (xs: number[]): number | null => {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const round = (x: number | null, digits = 2): number | null =>
  x === null ? null : Math.round(x * 10 ** digits) / 10 ** digits;
const tally = (keys: string[]): Record<string, number> =>
  keys.reduce<Record<string, number>>((acc, k) => {
    acc[k] = (acc[k] ?? 0) + 1;
    return acc;
  }, {});

async function level(n: number): Promise<Row> {
  const ports = new PortAllocator(7950);
  const bots: BotProcess[] = [];
  const urls: string[] = [];
  try {
    for (let i = 0; i < n; i++) {
      const port = await ports.acquire();
      const bot = BotProcess.spawn({
        command: process.execPath,
        args: [cli, 'refbot', '--brain', brain, '--port', String(port)],
        logFile: join(work, `n${n}-bot${i}.log`),
      });
      bots.push(bot);
      const ready = await bot.waitReady({ host: '127.0.0.1', port, timeoutMs: 60_000 });
      if (!ready.ready) throw new Error(`reference bot ${i} did not start: ${bot.logTail()}`);
      urls.push(`ws://127.0.0.1:${port}`);
    }
    // One engine: one pacer for every call's microphone, as one `earshot suite` process has.
    const engine = new AudioEngine({ record: false });
    const botCpu0 = bots.map((b) => processCpuMs(b.pid));
    const cpu0 = process.cpuUsage();
    const stall0 = cpuStallUs();
    const t0 = performance.now();
    let outcomes: Awaited<ReturnType<typeof runSimulation>>[];
    try {
      outcomes = await Promise.all(
        urls.map((url, i) =>
          runSimulation(
            simulation,
            { url, env: {}, media: engine.media },
            {
              env: {},
              simulatorOverride: override('persona-model'),
              judgeOverride: override('judge-model'),
              random: seeded(i + 1),
              requestTimeoutMs: 30_000,
            },
          ),
        ),
      );
    } finally {
      await engine.close();
    }
    const wall = performance.now() - t0;
    const lateness: DurationSummary = engine.pacer.stats().frameLateness;
    const cpu = process.cpuUsage(cpu0);
    const stall1 = cpuStallUs();
    const botCpu = bots.map((b, i) => {
      const now = processCpuMs(b.pid);
      return now !== null && botCpu0[i] !== null ? now - botCpu0[i]! : null;
    });
    const results = outcomes.map((o) => o.result);
    const passed = results.filter((r) => r.status === 'passed').length;
    const p99 = round(lateness.p99Ms);
    return {
      n,
      passed,
      runs: results.length,
      pass_rate: passed / results.length,
      failure_kinds: tally(results.flatMap((r) => (r.status === 'passed' ? [] : r.failures.map((f) => f.kind)))),
      ended_by: tally(results.map((r) => r.simulation?.ended_by ?? 'none')),
      wall_ms: Math.round(wall),
      call_p50_ms: median(results.map((r) => r.duration_ms)),
      frame_lateness_ms: { p50: round(lateness.p50Ms), p99, max: round(lateness.maxMs), frames: lateness.count },
      harness_cpu_pct: Math.round(((cpu.user + cpu.system) / 1000 / wall) * 1000) / 10,
      bots_cpu_pct: botCpu.every((c) => c !== null)
        ? Math.round((botCpu.reduce<number>((a, c) => a + c!, 0) / wall) * 1000) / 10
        : null,
      cpu_pressure_pct:
        stall0 !== null && stall1 !== null ? Math.round(((stall1 - stall0) / 1000 / wall) * 1000) / 10 : null,
      sustained: passed === results.length && p99 !== null && p99 <= LATENESS_P99_TARGET_MS,
    };
  } finally {
    await Promise.all(bots.map((b) => b.stop({ graceMs: 2000, termGraceMs: 3000 })));
    ports.releaseAll();
  }
}

const started = new Date().toISOString();
const load = loadavg().map((x) => Math.round(x * 100) / 100);
const rows: Row[] = [];
try {
  for (const n of levels) {
    process.stderr.write(`bench/simulations: ${n} simultaneous audio simulation(s)…\n`);
    rows.push(await level(n));
  }
} finally {
  await server.close();
}

const pad = (s: string | number | null, w: number): string => String(s ?? '-').padStart(w);
const best = [...rows].reverse().find((r) => r.sustained);
const lines = [
  `earshot simulations benchmark — ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node ${process.version}, load average ${load.join(' ')}`,
  `simulation: ${simulation.name} (audio: Flite → bot, bot → PocketSphinx; caller and judge: the stand-in LLM server), one reference bot per call`,
  '',
  `${pad('N', 3)} ${pad('passed', 7)} ${pad('wall s', 7)} ${pad('call p50 s', 10)} ${pad('late p50', 8)} ${pad('p99', 6)} ${pad('max ms', 7)} ${pad('harness CPU %', 13)} ${pad('bots CPU %', 10)} ${pad('CPU wait %', 10)}`,
  ...rows.map(
    (r) =>
      `${pad(r.n, 3)} ${pad(`${r.passed}/${r.runs}`, 7)} ${pad((r.wall_ms / 1000).toFixed(1), 7)} ${pad(r.call_p50_ms === null ? null : (r.call_p50_ms / 1000).toFixed(1), 10)} ` +
      `${pad(r.frame_lateness_ms.p50, 8)} ${pad(r.frame_lateness_ms.p99, 6)} ${pad(r.frame_lateness_ms.max, 7)} ${pad(r.harness_cpu_pct, 13)} ${pad(r.bots_cpu_pct, 10)} ${pad(r.cpu_pressure_pct, 10)}`,
  ),
  ...rows
    .filter((r) => r.passed < r.runs)
    .map(
      (r) =>
        `  N=${r.n}: ${r.runs - r.passed} run(s) did not pass: ${Object.entries(r.failure_kinds)
          .map(([k, c]) => `${k} × ${c}`)
          .join(', ')}; ended by ${Object.entries(r.ended_by)
          .map(([k, c]) => `${k} × ${c}`)
          .join(', ')}`,
    ),
  '',
  best
    ? `sustained: ${best.n} simultaneous audio simulation(s) (every run passed, frame lateness p99 ≤ ${LATENESS_P99_TARGET_MS} ms)`
    : `sustained: none of the levels tried (every run passing with frame lateness p99 ≤ ${LATENESS_P99_TARGET_MS} ms)`,
];
process.stdout.write(`${lines.join('\n')}\n`);
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ started_at: started, cores: cpus().length, load_average: load, node: process.version, simulation: simulation.name, lateness_p99_target_ms: LATENESS_P99_TARGET_MS, sustained: best?.n ?? 0, rows }, null, 2)}\n`,
  );
}
if (!values.keep) rmSync(work, { recursive: true, force: true });
else process.stdout.write(`bot logs kept in ${work}\n`);
