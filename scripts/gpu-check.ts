/**
 * The Node side of scripts/gpu-check.sh (run that; it builds the fixtures).
 *
 *   npx tsx scripts/gpu-check.ts --preflight            # what CUDA needs that is missing: one line each, exit 1
 *   npx tsx scripts/gpu-check.ts --models-dir DIR       # each model on cuda and on cpu, from a fixture store
 *
 * Which execution provider really ran: each model is loaded once with ONNX
 * Runtime's session log at verbose level, which lists for every session the
 * provider its nodes were placed on ("Node(s) placed on [CUDAExecutionProvider].
 * Number of nodes: N"). A CUDA session whose nodes all went to the CPU
 * provider is a failure, not a pass: asking for cuda is no proof it ran there.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { Command } from 'commander';
import { cudaSupport, onnxruntimeBinDir, type OnnxDevice } from '../src/speech/onnx.js';
import type { CellJob, CellResult } from '../bench/asr-cell.js';
import { runChild, writeUtterances } from '../bench/asr-run.js';
import { quantile } from '../bench/asr-stats.js';

const MODELS = ['whisper-tiny.en', 'moonshine-tiny', 'kokoro'] as const;
const INSTALL_PROVIDER =
  'ONNXRUNTIME_NODE_INSTALL_CUDA=v12 npm rebuild onnxruntime-node (downloads it from GitHub once; then no network)';
/** What onnxruntime-node 1.21's CUDA 12 provider loads, checked by name only while the provider itself is absent. */
const CUDA_LIBS: readonly [string, string][] = [
  ['libcudart.so.12', 'the CUDA 12 runtime'],
  ['libcublas.so.12', 'cuBLAS 12'],
  ['libcublasLt.so.12', 'cuBLAS 12'],
  ['libcufft.so.11', 'cuFFT (CUDA 12)'],
  ['libcudnn.so.9', 'cuDNN 9'],
];

/** Everything missing for CUDA, one line each; empty when nothing is. */
export function preflight(): string[] {
  const problems: string[] = [];
  const cuda = cudaSupport();
  const lib = join(onnxruntimeBinDir(), 'libonnxruntime_providers_cuda.so');
  if (!cuda.available) {
    problems.push(`${cuda.reason}: install it with ${INSTALL_PROVIDER}`);
    // Without the provider there is nothing to ldd: name the usual libraries the loader cannot find.
    const cache = spawnSync('ldconfig', ['-p'], { encoding: 'utf8' }).stdout ?? '';
    const dirs = (process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean);
    for (const [name, what] of CUDA_LIBS) {
      const inCache = cache.split('\n').some((l) => l.trim().startsWith(`${name} `));
      if (!inCache && !dirs.some((d) => existsSync(join(d, name)))) {
        problems.push(`${name} (${what}) is not in the loader's cache (ldconfig -p) nor in LD_LIBRARY_PATH`);
      }
    }
    return problems;
  }
  // The provider is there: the loader itself says which of its libraries it cannot find.
  const ldd = spawnSync('ldd', [lib], { encoding: 'utf8' });
  if (ldd.status !== 0) {
    problems.push(`ldd ${lib} failed: ${(ldd.stderr || ldd.error?.message || '').trim().split('\n')[0]}`);
  }
  for (const line of (ldd.stdout ?? '').split('\n')) {
    const m = /^\s*(\S+) => not found/.exec(line);
    if (m) problems.push(`${m[1]}, needed by ${basename(lib)}, is not found by the loader (ldd)`);
  }
  return problems;
}

/** Nodes per execution provider, summed over every session the verbose log describes. */
export function placements(log: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of log.matchAll(/placed on \[(\w+)\]\. Number of nodes: (\d+)/g)) {
    out.set(m[1], (out.get(m[1]) ?? 0) + Number(m[2]));
  }
  return out;
}

interface Row {
  model: string;
  device: OnnxDevice;
  providers: string;
  rtfP50: number | null;
  loadMs: number | null;
  error?: string;
  onCuda: number;
}

async function measure(modelsDir: string, model: string, device: OnnxDevice, work: string, utt: string): Promise<Row> {
  const base: CellJob = {
    kind: 'cell',
    modelsDir,
    model,
    dtype: 'default',
    threads: 0,
    device,
    utterancesFile: utt,
    passes: 1,
    out: join(work, 'out.json'),
  };
  try {
    const probe = await runChild<CellResult>({ ...base, ortVerbose: true, probeOnly: true }, work, { stderr: 'pipe' });
    const placed = placements(probe.stderr);
    const { result } = await runChild<CellResult>(base, work, { stderr: 'pipe' });
    return {
      model,
      device,
      providers: [...placed].map(([ep, n]) => `${ep} ${n}`).join(', ') || 'none logged',
      rtfP50: quantile(result.rtfs, 0.5),
      loadMs: result.load_ms,
      onCuda: placed.get('CUDAExecutionProvider') ?? 0,
    };
  } catch (err) {
    const error = (err instanceof Error ? err.message : String(err)).slice(0, 600);
    return { model, device, providers: '–', rtfP50: null, loadMs: null, error, onCuda: 0 };
  }
}

function render(rows: Row[]): string {
  const head = ['model', 'device', 'execution providers (nodes)', 'RTF p50', 'load ms'];
  const body = rows.map((r) => [
    r.model,
    r.device,
    r.error ? 'failed (below)' : r.providers,
    r.rtfP50 === null ? '–' : r.rtfP50.toFixed(3),
    r.loadMs === null ? '–' : r.loadMs.toFixed(0),
  ]);
  const width = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  return [head, ...body].map((l) => l.map((c, i) => c.padEnd(width[i])).join('  ')).join('\n');
}

async function run(modelsDir: string): Promise<number> {
  const work = mkdtempSync(join(tmpdir(), 'earshot-gpu-check-'));
  try {
    const utt = join(work, 'utterances.json');
    await writeUtterances(3, utt);
    const rows: Row[] = [];
    for (const model of MODELS) {
      for (const device of ['cuda', 'cpu'] as const) {
        const row = await measure(modelsDir, model, device, work, utt);
        rows.push(row);
        console.error(`  ${model} ${device}: ${row.error ? 'failed' : row.providers}`);
      }
    }
    console.log(render(rows));
    const bad = rows.filter((r) => r.device === 'cuda' && (r.error || r.onCuda === 0));
    for (const r of bad) {
      const why = r.error ?? `no node was placed on CUDAExecutionProvider (${r.providers})`;
      console.error(`gpu-check: ${r.model} cannot use CUDA: ${why}`);
    }
    if (bad.length) return 1;
    console.log('gpu-check: CUDA works for every model (nodes placed on CUDAExecutionProvider; the rest on CPU).');
    return 0;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const program = new Command('gpu-check')
  .description('Can earshot run its ONNX speech models on CUDA here? (scripts/gpu-check.sh runs this)')
  .option('--preflight', 'only list what CUDA needs that is missing (exit 1 if anything is)')
  .option('--models-dir <dir>', 'a model store with the full fixtures of whisper-tiny.en, moonshine-tiny, kokoro')
  .action(async (o: { preflight?: boolean; modelsDir?: string }) => {
    if (o.preflight) {
      const problems = preflight();
      for (const p of problems) console.log(`missing: ${p}`);
      process.exitCode = problems.length ? 1 : 0;
      return;
    }
    if (!o.modelsDir) throw new Error('give --preflight or --models-dir DIR');
    process.exitCode = await run(o.modelsDir);
  });

// Run as a script only: the unit test imports `placements`.
if (process.argv[1]?.endsWith('gpu-check.ts')) {
  program.parseAsync().catch((err: unknown) => {
    console.error(`gpu-check: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
    process.exitCode = 2;
  });
}
