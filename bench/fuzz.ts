/**
 * Fuzz benchmark for the scenario loader: `npx tsx bench/fuzz.ts [--cases N] [--seed S] [--hang-ms MS]`.
 *
 * Runs N seeded cases (default 10,000): mutations of valid files (earshot's
 * seeds, the loader's testdata and, when present, Pipecat's release corpus)
 * and the hostile classes (YAML bombs, deep nesting, huge strings and files,
 * binary and non-UTF-8 bytes, include cycles, symlinks and paths leaving the
 * root, unknown tags). The cases run in a child process under a watchdog: a
 * case that takes longer than --hang-ms is killed and counted as hung, and the
 * run resumes at the next case. Exits 1 on any crash, hang or unlocated error.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FuzzWorkspace, loadSeeds, makeCase, runCase, type CaseResult } from '../src/scenario/fuzz.testutil.js';

const HERE = fileURLToPath(import.meta.url);
const REPO = resolve(HERE, '..', '..');
const STARTUP_GRACE_MS = 60_000;

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(name);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

function seedFiles(): string[] {
  const testdata = join(REPO, 'src/scenario/testdata');
  const files = [
    'full/every_field.yaml',
    'sim/first_format.yaml',
    'manifest/manifest.yaml',
    'manifest/scenarios/book_table.yaml',
    'list/turn_completion.yaml',
    'list/shared_turns.yaml',
  ].map((f) => join(testdata, f));
  const corpus = process.env.EARSHOT_COMPAT_DIR ?? resolve(REPO, '..', 'shared/compat/pipecat-release-evals');
  if (existsSync(join(corpus, 'scenarios'))) {
    files.push(join(corpus, 'manifest.yaml'));
    for (const f of readdirSync(join(corpus, 'scenarios')).sort())
      if (f.endsWith('.yaml')) files.push(join(corpus, 'scenarios', f));
  }
  return files;
}

interface Job {
  seed: number;
  from: number;
  to: number;
}
type Report = { index: number } & CaseResult;

async function child(): Promise<void> {
  const ws = new FuzzWorkspace();
  const seeds = loadSeeds(seedFiles());
  process.send?.({ workspace: [ws.dir, ws.outside] });
  process.on('message', (job: Job) => {
    for (let i = job.from; i < job.to; i++) {
      process.send?.({ index: i, started: true });
      const result = runCase(ws, makeCase(job.seed, i, seeds));
      process.send?.({ index: i, ...result } satisfies Report);
    }
    ws.cleanup();
    process.exit(0);
  });
}

async function parent(): Promise<void> {
  const cases = arg('--cases', 10_000);
  const seed = arg('--seed', 20_260_101);
  const hangMs = arg('--hang-ms', 5_000);
  const seedCount = loadSeeds(seedFiles()).length;
  const results: Report[] = [];
  const hung: number[] = [];
  const t0 = performance.now();
  let next = 0;
  while (next < cases) {
    next = await runChild({ seed, from: next, to: cases }, hangMs, results, hung);
  }
  const wallMs = performance.now() - t0;
  report(results, hung, { cases, seed, hangMs, seedCount, wallMs });
}

/** Runs cases in a fresh child until it finishes, dies or hangs; returns the next case to run. */
function runChild(job: Job, hangMs: number, results: Report[], hung: number[]): Promise<number> {
  return new Promise((done) => {
    const proc: ChildProcess = fork(HERE, ['--child'], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    });
    let current = job.from;
    let timer: NodeJS.Timeout | undefined;
    let finished = false;
    let workspace: string[] = [];
    const arm = (ms: number): void => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        hung.push(current);
        finish(current + 1);
        proc.kill('SIGKILL');
      }, ms);
    };
    const finish = (nextIndex: number): void => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      done(nextIndex);
    };
    proc.on('message', (m: Report | { index: number; started: true } | { workspace: string[] }) => {
      if (finished) return; // a result racing the watchdog's kill: the case already counts as hung
      if ('workspace' in m) {
        workspace = m.workspace;
        return;
      }
      if ('started' in m) {
        current = m.index;
        arm(hangMs);
        return;
      }
      results.push(m);
      current = m.index + 1;
      arm(Math.max(hangMs, STARTUP_GRACE_MS)); // between cases
    });
    proc.on('exit', (code) => {
      // A killed child leaves its scratch folders behind.
      for (const dir of workspace) rmSync(dir, { recursive: true, force: true });
      if (finished) return;
      if (current < job.to && code !== 0) {
        // The process itself died mid-case (out of memory, native crash): a crash of that case.
        results.push({
          index: current,
          outcome: 'crashed',
          ms: 0,
          kind: 'unknown',
          detail: `child exited with code ${code}`,
        });
        finish(current + 1);
      } else {
        finish(job.to);
      }
    });
    proc.send(job);
    arm(Math.max(hangMs, STARTUP_GRACE_MS)); // loading modules and the workspace is not a case
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : 0;
}

function report(
  results: Report[],
  hung: number[],
  run: { cases: number; seed: number; hangMs: number; seedCount: number; wallMs: number },
): void {
  const count = (o: string): number => results.filter((r) => r.outcome === o).length;
  const ms = results.map((r) => r.ms).sort((a, b) => a - b);
  const out: string[] = [];
  out.push(
    `scenario loader fuzz: ${run.cases} cases, seed ${run.seed}, ${run.seedCount} seed files, hang limit ${run.hangMs} ms`,
  );
  out.push(`  loaded    ${count('loaded')}`);
  out.push(`  rejected  ${count('rejected')}  (located errors)`);
  out.push(`  crashed   ${count('crashed')}`);
  out.push(`  hung      ${hung.length}`);
  out.push(`  unlocated ${count('unlocated')}`);
  out.push(
    `  time      ${(run.wallMs / 1000).toFixed(1)} s wall; per case p50 ${percentile(ms, 50).toFixed(2)} ms, p99 ${percentile(ms, 99).toFixed(1)} ms, max ${percentile(ms, 100).toFixed(1)} ms`,
  );
  const kinds = new Map<string, Report[]>();
  for (const r of results) kinds.set(r.kind, [...(kinds.get(r.kind) ?? []), r]);
  out.push('  by class (cases: loaded/rejected, max ms):');
  for (const [kind, rs] of [...kinds.entries()].sort()) {
    const l = rs.filter((r) => r.outcome === 'loaded').length;
    const j = rs.filter((r) => r.outcome === 'rejected').length;
    out.push(
      `    ${kind.padEnd(15)} ${String(rs.length).padStart(5)}: ${l}/${j}, ${Math.max(...rs.map((r) => r.ms)).toFixed(1)}`,
    );
  }
  const bad = results.filter((r) => r.outcome === 'crashed' || r.outcome === 'unlocated');
  for (const r of bad.slice(0, 20)) out.push(`  FAIL case ${r.index} (${r.kind}) ${r.outcome}: ${r.detail}`);
  for (const i of hung.slice(0, 20)) out.push(`  HUNG case ${i} (replay: makeCase(${run.seed}, ${i}, seeds))`);
  process.stdout.write(`${out.join('\n')}\n`);
  if (bad.length > 0 || hung.length > 0) process.exitCode = 1;
}

if (process.argv.includes('--child')) await child();
else await parent();
