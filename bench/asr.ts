/**
 * ASR/TTS compute benchmark on full-size fixture models.
 *
 *   npm run bench:asr                                   # every model, dtype and thread count, 2 runs; then sessions
 *   npm run bench:asr -- --quick                        # a smoke run: 3 utterances, 1 run, 20 s per sessions level
 *   npx tsx bench/asr.ts --models whisper-tiny.en --dtypes default --threads 1,2 --no-sessions --json out.json
 *
 * The models are the full-size fixtures of src/speech/fixture-models (the real
 * Whisper-tiny/base, Moonshine-tiny and Kokoro-82M architectures and
 * dimensions, seeded random weights), generated once into
 * `.cache/fixture-models-full` unless `--models-dir` names a store. So the
 * figures are the compute cost of structurally identical models, not their
 * accuracy. Per model, dtype (fp32; q8; `default` = encoder fp32, decoder q8)
 * and ONNX Runtime thread count (1, 2; 0 = its own default, what earshot's
 * providers load with), each in a fresh process (asr-cell.ts): load time, the
 * real-time factor of each call (wall time / seconds of speech) over Flite
 * utterances of 2–8 s at 16 kHz, p50/p95, peak RSS, and the cores kept busy.
 * Random weights never end on their own: each call decodes ceil(3 × speech
 * seconds) tokens, what real Whisper emits for English. Kokoro: synthesis
 * time / seconds made. Then the sessions (asr-sessions.ts): how many calls,
 * the bot speaking 40 % of the time, one Whisper-tiny-sized pipeline keeps up
 * with (every transcript within its reply's length after the reply ended),
 * against PocketSphinx's pool on the same schedule.
 *
 * `--json FILE`: { models: [{ name, dtype, threads, rtf_p50, rtf_p95, rss_mb,
 * load_ms, tokens_per_call, audio_s_per_call, cores_busy, calls, runs: [...] }],
 * sessions: { whisper: { max_sessions, max_sessions_runs, runs }, sphinx: {...},
 * duty, deadline_factor, session_seconds }, note, machine, date }.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { writeFixtureModels } from '../src/speech/fixture-models/write.js';
import { lookupModel, ModelStore } from '../src/speech/models/store.js';
import type { CellJob, CellResult, DtypeLabel, SessionsJob } from './asr-cell.js';
import { ROOT, runChild, writeUtterances } from './asr-run.js';
import type { SessionsResult } from './asr-sessions.js';
import { modelRow, reportProblems, withSpread, type ModelRow } from './asr-stats.js';

const DEFAULT_MODELS = 'whisper-tiny.en,whisper-base.en,moonshine-tiny,kokoro';
const SESSIONS_MODEL = 'whisper-tiny.en';
const DTYPES: readonly DtypeLabel[] = ['fp32', 'q8', 'default'];

interface Options {
  models: string[];
  dtypes: DtypeLabel[];
  threads: number[];
  runs: number;
  utterances: number;
  passes: number;
  modelsDir?: string;
  variant: 'full' | 'tiny';
  sessions: boolean;
  sessionSeconds: number;
  duty: number;
  deadlineFactor: number;
  sessionRuns: number;
  maxSessions: number;
  json?: string;
  quick?: boolean;
}

const list = (v: string): string[] =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
const positive =
  (name: string, integer: boolean) =>
  (v: string): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
      throw new InvalidArgumentError(`${name}: expected a ${integer ? 'whole ' : ''}number > 0, got '${v}'`);
    }
    return n;
  };

const program = new Command('bench:asr')
  .description('Whisper / Moonshine / Kokoro compute cost on full-size fixture models (random weights)')
  .option('--models <names>', 'registry names', DEFAULT_MODELS)
  .option('--dtypes <list>', 'fp32, q8, default (encoder fp32 / decoder q8)', 'fp32,q8,default')
  .option(
    '--threads <list>',
    'ONNX Runtime intra-op threads; 0 = its default, measured for dtype default only',
    '0,1,2',
  )
  .option('--runs <n>', 'fresh-process runs of every cell (the spread)', positive('--runs', true), 2)
  .option('--utterances <n>', 'Flite utterances of 2–8 s per cell', positive('--utterances', true), 8)
  .option('--passes <n>', 'times over the utterances per run', positive('--passes', true), 1)
  .option('--models-dir <dir>', 'a model store holding the fixtures (default: generated into .cache/)')
  .option('--variant <v>', 'full (the benchmark) or tiny (checks the bench itself in seconds)', 'full')
  .option('--no-sessions', 'skip the sessions measurement')
  .option('--session-seconds <s>', 'simulated call time per sessions level', positive('--session-seconds', false), 60)
  .option('--duty <share>', "share of a call's time the bot speaks", positive('--duty', false), 0.4)
  .option(
    '--deadline-factor <x>',
    "each transcript due within x × its reply's length",
    positive('--deadline-factor', false),
    1,
  )
  .option('--session-runs <n>', 'times the sessions search runs', positive('--session-runs', true), 1)
  .option('--max-sessions <n>', 'highest level tried', positive('--max-sessions', true), 64)
  .option('--quick', 'smoke run: 3 utterances, 1 run, 20 s per sessions level')
  .option('--json <file>', 'write the figures as JSON');

type RawOptions = Omit<Options, 'models' | 'dtypes' | 'threads' | 'variant'> & {
  models: string;
  dtypes: string;
  threads: string;
  variant: string;
};

function parseOptions(): Options {
  program.parse();
  const o = program.opts<RawOptions>();
  const dtypes = list(o.dtypes) as DtypeLabel[];
  for (const d of dtypes) if (!DTYPES.includes(d)) throw new Error(`--dtypes: unknown '${d}' (known: ${DTYPES})`);
  const threads = list(o.threads).map(Number);
  if (threads.some((n) => !Number.isInteger(n) || n < 0 || n > 64)) throw new Error(`--threads: bad '${o.threads}'`);
  const models = list(o.models);
  for (const m of models) lookupModel(m);
  if (o.variant !== 'full' && o.variant !== 'tiny') throw new Error(`--variant: full or tiny, got '${o.variant}'`);
  if (o.duty > 1) throw new Error(`--duty: a share up to 1, got ${o.duty}`);
  // --quick changes only what was left at its default: `--quick --runs 2` runs twice.
  const quick = (key: string, value: number, fallback: number): number =>
    o.quick && program.getOptionValueSource(key) === 'default' ? value : fallback;
  return {
    ...o,
    models,
    dtypes,
    threads,
    variant: o.variant,
    runs: quick('runs', 1, o.runs),
    utterances: quick('utterances', 3, o.utterances),
    sessionSeconds: quick('sessionSeconds', 20, o.sessionSeconds),
  };
}

function machine(): string {
  const load = loadavg()
    .map((x) => x.toFixed(2))
    .join(' ');
  return `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, load avg ${load}`;
}

/** Reuses a store whose markers say it holds the variant; writes the missing models once. */
async function ensureFixtures(o: Options, names: string[]): Promise<string> {
  const dir = resolve(o.modelsDir ?? join(ROOT, '.cache', `fixture-models-${o.variant}`));
  const store = new ModelStore(dir);
  const missing = names.filter((name) => {
    const model = lookupModel(name);
    return store.fixture(model)?.variant !== o.variant || !store.status(model).present;
  });
  if (missing.length && o.modelsDir) {
    const flag = o.variant === 'full' ? ' --full' : '';
    throw new Error(
      `${dir} lacks ${o.variant} fixtures of ${missing.join(', ')}: ` +
        `npm run models:fixtures -- --out ${dir}${flag} --models ${missing.join(',')}`,
    );
  }
  if (missing.length) {
    const started = performance.now();
    console.error(`writing ${o.variant} fixtures of ${missing.join(', ')} into ${dir} ...`);
    await writeFixtureModels(dir, { variant: o.variant, models: missing });
    console.error(`  done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  return dir;
}

function cellsFor(o: Options): { model: string; dtype: DtypeLabel; threads: number }[] {
  const out: { model: string; dtype: DtypeLabel; threads: number }[] = [];
  for (const model of o.models) {
    for (const dtype of o.dtypes) {
      // Kokoro has one graph; its default dtype is q8.
      if (model === 'kokoro' && dtype === 'default' && o.dtypes.includes('q8')) continue;
      for (const threads of o.threads) {
        if (threads === 0 && dtype !== 'default' && !(model === 'kokoro' && dtype === 'q8')) continue;
        out.push({ model, dtype, threads });
      }
    }
  }
  return out;
}

function render(rows: ModelRow[]): string {
  const head = [
    'model',
    'dtype',
    'threads',
    'RTF p50',
    'RTF p95',
    'audio s/call',
    'tokens/call',
    'cores busy',
    'RSS MB',
    'load ms',
  ];
  const body = rows.map((r) => [
    r.name,
    r.dtype,
    r.threads === 0 ? 'ORT default' : String(r.threads),
    withSpread(
      r.rtf_p50,
      r.runs.map((x) => x.rtf_p50),
    ),
    withSpread(
      r.rtf_p95,
      r.runs.map((x) => x.rtf_p95),
    ),
    r.audio_s_per_call.toFixed(2),
    r.tokens_per_call === null ? '–' : String(r.tokens_per_call),
    r.cores_busy === null ? '–' : r.cores_busy.toFixed(2),
    withSpread(
      r.rss_mb,
      r.runs.map((x) => x.rss_mb),
      0,
    ),
    withSpread(
      r.load_ms,
      r.runs.map((x) => x.load_ms),
      0,
    ),
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [head, ...body].map((line) => line.map((c, i) => c.padEnd(width[i])).join('  ')).join('\n');
}

interface SessionsSide {
  max_sessions: number;
  /** max_sessions of each run. */
  max_sessions_runs: number[];
  runs: SessionsResult[];
}

interface Sessions {
  whisper: SessionsSide & { model: string; dtype: string; threads: number };
  sphinx: SessionsSide & { model: string };
  duty: number;
  deadline_factor: number;
  session_seconds: number;
}

/**
 * Whisper-tiny-sized at its default dtype and the thread count that gave the
 * lowest p50 above, against PocketSphinx's pool: the same schedule for both,
 * each searched `--session-runs` times; the figure is the lowest run's.
 */
async function measureSessions(
  o: Options,
  rows: ModelRow[],
  at: { modelsDir: string; utterancesFile: string; work: string },
): Promise<Sessions> {
  const measured = rows.filter((r) => r.name === SESSIONS_MODEL && r.dtype === 'default' && r.rtf_p50 !== null);
  const threads = measured.sort((a, b) => a.rtf_p50! - b.rtf_p50!)[0]?.threads ?? 1;
  const base = {
    kind: 'sessions' as const,
    utterancesFile: at.utterancesFile,
    durationS: o.sessionSeconds,
    duty: o.duty,
    deadlineFactor: o.deadlineFactor,
    seed: 7,
    maxSessions: o.maxSessions,
    out: join(at.work, 'sessions.json'),
  };
  const load = {
    modelsDir: at.modelsDir,
    model: SESSIONS_MODEL,
    dtype: 'default' as const,
    threads,
    device: 'cpu' as const,
  };
  const side = async (job: SessionsJob): Promise<SessionsSide> => {
    const runs: SessionsResult[] = [];
    for (let i = 0; i < o.sessionRuns; i++)
      runs.push((await runChild<SessionsResult>(job, at.work, { stderr: 'inherit' })).result);
    const maxes = runs.map((r) => r.max_sessions);
    return { max_sessions: Math.min(...maxes), max_sessions_runs: maxes, runs };
  };
  const whisper = await side({ ...base, transcriber: 'whisper', load });
  const sphinx = await side({ ...base, transcriber: 'sphinx' });
  return {
    whisper: { model: SESSIONS_MODEL, dtype: 'default', threads, ...whisper },
    sphinx: { model: 'pocketsphinx en-us, pool', ...sphinx },
    duty: o.duty,
    deadline_factor: o.deadlineFactor,
    session_seconds: o.sessionSeconds,
  };
}

function renderSessions(o: Options, s: Sessions): string {
  const lines: string[] = [];
  for (const [name, side] of [
    [`${SESSIONS_MODEL} (default dtype, threads ${s.whisper.threads || 'ORT default'})`, s.whisper],
    ['PocketSphinx pool', s.sphinx],
  ] as const) {
    const perRun = side.runs.map((r) =>
      r.levels.map((l) => `${l.sessions}: ${l.lag_max ?? '–'}×${l.sustained ? '' : ' ✗'}`).join(', '),
    );
    lines.push(`sessions ${name}: ${side.max_sessions_runs.join(', ')} (largest lag per level: ${perRun.join(' | ')})`);
  }
  lines.push(
    `  (N calls, the bot speaking ${Math.round(o.duty * 100)} % of each with Flite replies of 2–8 s; sustained = ` +
      `every transcript within ${o.deadlineFactor} × its reply's length after the reply ended, ${o.sessionSeconds} s ` +
      'of calls per level)',
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const o = parseOptions();
  console.log(`bench:asr — ${machine()}`);
  const needed = [...new Set([...o.models, ...(o.sessions ? [SESSIONS_MODEL] : [])])];
  const modelsDir = await ensureFixtures(o, needed);
  const work = mkdtempSync(join(tmpdir(), 'earshot-bench-asr-'));
  try {
    const utterancesFile = join(work, 'utterances.json');
    const picked = await writeUtterances(o.utterances, utterancesFile);
    console.log(
      `${picked.length} Flite utterances (slt, 16 kHz): ${picked.map((u) => u.seconds.toFixed(1)).join(', ')} s; ` +
        `${o.variant} fixtures in ${modelsDir}`,
    );
    const cells = cellsFor(o);
    const results = new Map<string, CellResult[]>();
    for (let run = 1; run <= o.runs; run++) {
      for (const c of cells) {
        const job: CellJob = {
          kind: 'cell',
          modelsDir,
          ...c,
          device: 'cpu',
          utterancesFile,
          passes: o.passes,
          out: join(work, 'out.json'),
        };
        const { result: r } = await runChild<CellResult>(job, work, { stderr: 'pipe' });
        const key = `${c.model}|${c.dtype}|${c.threads}`;
        results.set(key, [...(results.get(key) ?? []), r]);
        const p50 = [...r.rtfs].sort((a, b) => a - b)[Math.floor(r.rtfs.length / 2)];
        console.error(
          `  run ${run}/${o.runs} ${c.model} ${c.dtype} threads ${c.threads}: RTF p50 ${p50.toFixed(3)}, ` +
            `RSS ${r.rss_mb.toFixed(0)} MB, load ${r.load_ms.toFixed(0)} ms (load avg ${loadavg()[0].toFixed(2)})`,
        );
      }
    }
    const rows = cells.map((c) =>
      modelRow(c.model, c.dtype, c.threads, results.get(`${c.model}|${c.dtype}|${c.threads}`)!),
    );
    const sessions = o.sessions ? await measureSessions(o, rows, { modelsDir, utterancesFile, work }) : {};
    const note =
      o.variant === 'full'
        ? 'compute cost of structurally identical models with seeded random weights, not their accuracy'
        : 'TINY fixtures (kilobyte graphs): checks the benchmark itself, the figures mean nothing';
    console.log(`\n${note}; RTF = wall time / seconds of speech (Kokoro: of audio made); (min–max over runs)`);
    console.log(render(rows));
    if (o.sessions) console.log(renderSessions(o, sessions as Sessions));
    const report = {
      models: rows,
      sessions,
      note,
      variant: o.variant,
      machine: machine(),
      date: new Date().toISOString(),
      utterances_s: picked.map((u) => Math.round(u.seconds * 100) / 100),
      runs: o.runs,
    };
    const problems = reportProblems(report);
    if (problems.length) throw new Error(`report shape: ${problems.join('; ')}`);
    if (o.json) {
      mkdirSync(resolve(o.json, '..'), { recursive: true });
      writeFileSync(o.json, `${JSON.stringify(report, null, 2)}\n`);
      console.log(`wrote ${o.json}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(`bench:asr: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  process.exit(1);
});
