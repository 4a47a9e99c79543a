/**
 * Concurrency benchmark (issue 16): N simultaneous real-time audio sessions
 * from this one process against the reference bot in light mode (`earshot
 * refbot --light`: no VAD, STT or brain on its side, one canned reply placed a
 * known time after each turn, its truth exact), N stepped up until a limit is
 * crossed.
 *
 *   npm run build && npm run bench:concurrency                  # 1,2,4,8,16,32,48,64; then with STT
 *   npx tsx bench/concurrency.ts --levels 1,2 --turns 2 --json out.json
 *   npx tsx bench/concurrency.ts --no-transcribe --all          # every level, even past the limits
 *
 * Each session speaks `--turns` questions (Flite, cached) and waits for each
 * canned reply to play out. Per N, from all N sessions: frame lateness of the
 * microphone (sent − due over every frame, p50/p99/max, as the pacer thread
 * records it), voice-to-voice error (earshot's measured voice-to-voice − the
 * bot's truth, matched through src/tools/calibrate as `earshot calibrate`
 * does: the signed p50, and the p95 of the absolute error), this process's CPU per session (every thread: main, pacer thread,
 * ONNX), and peak RSS. The largest N that holds p99 lateness ≤ 2 ms and p95
 * |error| ≤ 10 ms is `max_sessions`. The second table does the same with
 * earshot transcribing every reply (PocketSphinx, `response` checked).
 *
 * `--json FILE`: { max_sessions, levels: [{ sessions, lateness_p50_ms,
 * lateness_p99_ms, lateness_max_ms, error_p50_ms, error_p95_ms,
 * cpu_pct_per_session, rss_mb, ... }], transcribing: { max_sessions, levels } }.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PortAllocator, resolveSelfCommand } from '../src/bots/index.js';
import { monotonicClock } from '../src/core/clock.js';
import { ThreadPacer } from '../src/pacing/index.js';
import { loadScenario, type Scenario } from '../src/scenario/index.js';
import { runSession } from '../src/drivers/index.js';
import { AudioEngine } from '../src/session/index.js';
import { matchRun } from '../src/tools/calibrate/match.js';
import { parseTruthLog, truthConnections, type TruthLine } from '../src/tools/calibrate/truth.js';
import { startRefbotChild } from '../src/tools/refbot-child.js';

const LATENESS_P99_LIMIT_MS = 2;
const ERROR_P95_LIMIT_MS = 10;

export interface Level {
  sessions: number;
  passed: number;
  turns_matched: number;
  lateness_p50_ms: number | null;
  lateness_p99_ms: number | null;
  lateness_max_ms: number | null;
  error_p50_ms: number | null;
  error_p95_ms: number | null;
  cpu_pct_per_session: number;
  rss_mb: number;
  wall_s: number;
  within_limits: boolean;
}

const USAGE = 'usage: bench/concurrency.ts [--levels 1,2,4,...] [--turns N] [--no-transcribe] [--all] [--json FILE]';
const { values } = (() => {
  try {
    return parseArgs({
      options: {
        levels: { type: 'string', default: '1,2,4,8,16,32,48,64' },
        turns: { type: 'string', default: '3' },
        'no-transcribe': { type: 'boolean', default: false },
        all: { type: 'boolean', default: false },
        json: { type: 'string' },
        /** Keep the work folder (scenario, truth logs, bot logs, results per level) here. */
        keep: { type: 'string' },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
})();
const levels = values.levels.split(',').map(Number);
const turns = Number(values.turns);
if (levels.some((n) => !Number.isInteger(n) || n < 1) || !Number.isInteger(turns) || turns < 1) {
  console.error(USAGE);
  process.exit(2);
}
const [, cli] = resolveSelfCommand();
if (!existsSync(cli)) {
  console.error(
    `bench/concurrency: ${cli} is missing; run \`npm run build\` first (it spawns the built reference bot)`,
  );
  process.exit(2);
}

function scenarioYaml(transcribe: boolean): string {
  const turn = [
    '      - user: "What is the capital of Germany?"',
    '        expect:',
    '          - event: bot_audio_stopped',
    '            within_ms: 20000',
    // In order: the reply's transcript comes once its audio has stopped.
    ...(transcribe
      ? ['          - event: response', '            text_contains: "berlin"', '            within_ms: 20000']
      : []),
  ];
  return [
    `name: concurrency${transcribe ? '_stt' : ''}`,
    'user:',
    '  modality: audio',
    '  speech: { service: flite, voice: slt, sample_rate: 16000 }',
    'judge:',
    '  modality: audio',
    '  transcription: { service: sphinx }',
    'turns:',
    ...Array.from({ length: turns }, () => turn)
      .flat()
      .map((l) => l.slice(4)),
    '',
  ].join('\n');
}

const quantile = (xs: number[], q: number): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
};
const r3 = (x: number | null | undefined): number | null =>
  x === null || x === undefined || !Number.isFinite(x) ? null : Math.round(x * 1000) / 1000;
const epochNow = (): number => performance.timeOrigin + performance.now();

async function runLevel(
  n: number,
  scenario: Scenario,
  url: string,
  truthFile: string,
  workDir: string,
): Promise<Level> {
  const pacer = new ThreadPacer();
  const engine = new AudioEngine({ pacer, record: false, clock: monotonicClock });
  let rssPeak = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 250);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const tag = `${n}-${Date.now()}`;
  const runs = await Promise.all(
    Array.from({ length: n }, async (_, k) => {
      const fromEpochMs = epochNow();
      const sessionEpochMs = epochNow();
      const outcome = await runSession(scenario, {
        url: `${url}/?bench=${tag}-${k}`,
        codec: 'pipecat-eval',
        media: engine.media,
        clock: monotonicClock,
        recordingPath: join(workDir, `${tag}-${k}.wav`),
      });
      return { k, outcome, fromEpochMs, sessionEpochMs, toEpochMs: epochNow() };
    }),
  );
  const wallMs = performance.now() - t0;
  // With --keep the results stay beside the truth log, one JSONL per level.
  if (values.keep)
    writeFileSync(
      join(workDir, `results-${scenario.name}-${n}.jsonl`),
      `${runs.map((r) => JSON.stringify(r.outcome.result)).join('\n')}\n`,
    );
  const cpu = process.cpuUsage(cpu0);
  clearInterval(rssTimer);
  const lateness = pacer.stats().frameLateness;
  await engine.close();
  pacer.close();

  const lines: TruthLine[] = parseTruthLog(readFileSync(truthFile, 'utf8'), truthFile);
  const connections = truthConnections(lines);
  const targetOf = new Map(lines.filter((l) => l.event === 'connection_open').map((l) => [l.conn, String(l.target)]));
  const errors: number[] = [];
  for (const run of runs) {
    // Concurrent sessions overlap in time: each one's connection is found by its tag in the request target.
    const mine = connections.filter(
      (c) =>
        targetOf.get(c.conn)?.includes(`bench=${tag}-${run.k}&`) ||
        targetOf.get(c.conn)?.endsWith(`bench=${tag}-${run.k}`),
    );
    const m = matchRun(
      {
        run: run.k,
        sessionEpochMs: run.sessionEpochMs,
        fromEpochMs: run.fromEpochMs,
        toEpochMs: run.toEpochMs,
        turns: run.outcome.result.turns,
      },
      mine,
    );
    for (const s of m.samples) if (s.metric === 'voice_to_voice_ms' && s.error_ms !== null) errors.push(s.error_ms);
  }
  const absErrors = errors.map(Math.abs);
  const level: Level = {
    sessions: n,
    passed: runs.filter((r) => r.outcome.result.status === 'passed').length,
    turns_matched: errors.length,
    lateness_p50_ms: r3(lateness.p50Ms),
    lateness_p99_ms: r3(lateness.p99Ms),
    lateness_max_ms: r3(lateness.maxMs),
    error_p50_ms: r3(quantile(errors, 0.5)),
    error_p95_ms: r3(quantile(absErrors, 0.95)),
    cpu_pct_per_session: r3((100 * (cpu.user + cpu.system)) / 1000 / wallMs / n) ?? 0,
    rss_mb: Math.round((rssPeak / 1048576) * 10) / 10,
    wall_s: Math.round(wallMs / 100) / 10,
    within_limits: false,
  };
  level.within_limits =
    level.passed === n &&
    errors.length >= n * turns &&
    (level.lateness_p99_ms ?? Infinity) <= LATENESS_P99_LIMIT_MS &&
    (level.error_p95_ms ?? Infinity) <= ERROR_P95_LIMIT_MS;
  return level;
}

async function table(transcribe: boolean, workDir: string): Promise<{ max_sessions: number; levels: Level[] }> {
  const file = join(workDir, `concurrency${transcribe ? '-stt' : ''}.yaml`);
  writeFileSync(file, scenarioYaml(transcribe));
  const scenario = await loadScenario(file);
  const truthFile = join(workDir, `truth${transcribe ? '-stt' : ''}.jsonl`);
  const bot = await startRefbotChild({
    ports: new PortAllocator(47_000 + Math.floor(Math.random() * 1000)),
    args: ['--light', '--truth-log', truthFile, '-q'],
    logFile: join(workDir, `refbot${transcribe ? '-stt' : ''}.log`),
    label: 'bench/concurrency: the light reference bot',
  });
  const rows: Level[] = [];
  let max = 0;
  try {
    for (const n of levels) {
      const row = await runLevel(n, scenario, bot.url, truthFile, workDir);
      rows.push(row);
      console.error(
        `  ${transcribe ? 'stt ' : ''}${n} sessions: p99 lateness ${row.lateness_p99_ms} ms, p95 |error| ${row.error_p95_ms} ms, ${row.passed}/${n} passed`,
      );
      // The largest N of an unbroken run of levels within the limits, from the first.
      if (rows.every((r) => r.within_limits)) max = n;
      if (!row.within_limits && !values.all) break;
    }
  } finally {
    await bot.stop();
  }
  return { max_sessions: max, levels: rows };
}

function render(title: string, t: { max_sessions: number; levels: Level[] }): string {
  const cols: [keyof Level, string][] = [
    ['sessions', 'sessions'],
    ['passed', 'passed'],
    ['turns_matched', 'turns'],
    ['lateness_p50_ms', 'late p50'],
    ['lateness_p99_ms', 'late p99'],
    ['lateness_max_ms', 'late max'],
    ['error_p50_ms', 'err p50'],
    ['error_p95_ms', '|err| p95'],
    ['cpu_pct_per_session', 'cpu %/sess'],
    ['rss_mb', 'rss MB'],
    ['wall_s', 'wall s'],
  ];
  const width = cols.map(([k, h]) => Math.max(h.length, ...t.levels.map((r) => String(r[k]).length)));
  return [
    title,
    cols.map(([, h], i) => h.padStart(width[i])).join('  '),
    ...t.levels.map((r) => cols.map(([k], i) => String(r[k]).padStart(width[i])).join('  ')),
    `largest N with p99 lateness ≤ ${LATENESS_P99_LIMIT_MS} ms and p95 |error| ≤ ${ERROR_P95_LIMIT_MS} ms: ${t.max_sessions}`,
  ].join('\n');
}

const workDir = values.keep ?? mkdtempSync(join(tmpdir(), 'earshot-concurrency-'));
mkdirSync(workDir, { recursive: true });
try {
  const light = await table(false, workDir);
  const transcribing = values['no-transcribe'] ? null : await table(true, workDir);
  const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, load avg ${loadavg()
    .map((x) => x.toFixed(2))
    .join(' ')}`;
  console.log(`concurrency benchmark — ${turns} turns per session, light reference bot; ${machine}`);
  console.log(render('replies not transcribed:', light));
  if (transcribing) console.log(render('\nevery reply transcribed (PocketSphinx):', transcribing));
  if (values.json) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ ...light, ...(transcribing ? { transcribing } : {}), turns, machine }, null, 2)}\n`,
    );
    console.log(`wrote ${values.json}`);
  }
} finally {
  if (!values.keep) rmSync(workDir, { recursive: true, force: true });
}
