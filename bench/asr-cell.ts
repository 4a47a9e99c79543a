/**
 * One cell of `npm run bench:asr`, in a process of its own so that its peak
 * RSS is that one model's: `node --import tsx bench/asr-cell.ts JOB.json`.
 * Loads the model the way earshot's providers do (their load plans, the same
 * pipeline options, 2 s of padding around each utterance), plus ONNX
 * Runtime's thread counts through `session_options`, which the providers do
 * not expose. Writes its result as JSON to the job's `out`. Also used by
 * scripts/gpu-check.ts (`device: cuda`, verbose ONNX Runtime log).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { float32ToInt16, int16ToFloat32, sincResample } from '../src/audio/index.js';
import { lookupModel, ModelStore } from '../src/speech/models/store.js';
import { asrLoadPlan } from '../src/speech/stt/transformers.js';
import { DEFAULT_PADDING_SECS, prepareAudio, STT_SAMPLE_RATE } from '../src/speech/stt/types.js';
import { kokoroLoadPlan, KOKORO_DEFAULT_VOICE } from '../src/speech/tts/kokoro.js';
import { loadTransformers, type OnnxDevice } from '../src/speech/onnx.js';
import type { Dtype, DtypeSpec } from '../src/speech/models/registry.js';
import { tokenBudget, type CellRun } from './asr-stats.js';

/** `default` is the registry's own choice (STT: encoder fp32, decoder q8; Kokoro: q8). */
export type DtypeLabel = 'fp32' | 'q8' | 'default';

export interface UtteranceFile {
  sample_rate: number;
  utterances: { text: string; seconds: number; pcm_b64: string }[];
}

export interface LoadOptions {
  modelsDir: string;
  model: string;
  dtype: DtypeLabel;
  /** Intra-op threads; 0 leaves ONNX Runtime's default (no `session_options`, as the providers load). */
  threads: number;
  device: OnnxDevice;
  /** Session log at verbose level: it names the execution provider each node was placed on. */
  ortVerbose?: boolean;
}

export interface CellJob extends LoadOptions {
  kind: 'cell';
  utterancesFile: string;
  /** Times over the utterances (after one untimed warm-up call). */
  passes: number;
  /** Load only, no call: what the verbose session log says about placement is all that is wanted. */
  probeOnly?: boolean;
  out: string;
}

export interface CellResult extends CellRun {
  model: string;
  dtype: DtypeLabel;
  threads: number;
  device: OnnxDevice;
  first_call_ms: number;
}

export function dtypeSpec(label: DtypeLabel): DtypeSpec | undefined {
  return label === 'default' ? undefined : label;
}

export function loadUtterances(file: string): { text: string; seconds: number; pcm: Int16Array }[] {
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as UtteranceFile;
  if (parsed.sample_rate !== STT_SAMPLE_RATE) throw new Error(`${file}: expected ${STT_SAMPLE_RATE} Hz audio`);
  return parsed.utterances.map((u) => {
    const bytes = Buffer.from(u.pcm_b64, 'base64');
    const pcm = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 2).slice();
    return { text: u.text, seconds: u.seconds, pcm };
  });
}

function sessionOptions(o: LoadOptions): Record<string, number> | undefined {
  const out: Record<string, number> = {};
  if (o.threads > 0) Object.assign(out, { intraOpNumThreads: o.threads, interOpNumThreads: 1 });
  if (o.ortVerbose) Object.assign(out, { logSeverityLevel: 0, logVerbosityLevel: 0 });
  return Object.keys(out).length ? out : undefined;
}

/** Threads of this process now: ONNX Runtime starts intra-op threads per session, so this shows what it got. */
export function osThreads(): number | null {
  try {
    const m = /Threads:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/**
 * CPU time of this process over wall time while the calls ran: how many cores
 * ONNX Runtime really kept busy (its thread count alone does not say).
 */
function cpuMeter(): { start(): void; stop(): void; cores(): number | null } {
  let cpu0 = process.cpuUsage();
  let wall0 = 0;
  let cores: number | null = null;
  return {
    start() {
      cpu0 = process.cpuUsage();
      wall0 = performance.now();
    },
    stop() {
      const cpu = process.cpuUsage(cpu0);
      cores = (cpu.user + cpu.system) / 1000 / Math.max(1, performance.now() - wall0);
    },
    cores: () => cores,
  };
}

interface OrtSessionLike {
  run(...args: unknown[]): Promise<unknown>;
}

type AsrPipelineLike = ((audio: Float32Array, kwargs: Record<string, unknown>) => Promise<unknown>) & {
  model: { sessions: Record<string, OrtSessionLike> };
  dispose(): Promise<unknown>;
};

export interface LoadedStt {
  asr: AsrPipelineLike;
  loadMs: number;
  /** Decoder runs so far: one per generated token (the merged decoder takes the prompt in its first run). */
  decoderRuns(): number;
}

export async function loadStt(o: LoadOptions): Promise<LoadedStt> {
  const store = new ModelStore(o.modelsDir);
  const plan = asrLoadPlan(store, lookupModel(o.model), { device: o.device, dtype: dtypeSpec(o.dtype) });
  const { pipeline } = await loadTransformers(store.dir);
  const extra = sessionOptions(o);
  const started = performance.now();
  const asr = (await pipeline(plan.task, plan.modelPath, {
    ...plan.options,
    ...(extra ? { session_options: extra } : {}),
  })) as unknown as AsrPipelineLike;
  const loadMs = performance.now() - started;
  const decoder = asr.model.sessions.decoder_model_merged;
  if (!decoder) throw new Error(`${o.model}: the pipeline has no decoder_model_merged session`);
  let runs = 0;
  const run = decoder.run.bind(decoder);
  decoder.run = (...args: unknown[]) => {
    runs++;
    return run(...args);
  };
  return { asr, loadMs, decoderRuns: () => runs };
}

/** As TransformersStt.transcribe: resample, 2 s of padding, float; plus the token budget of real speech. */
export async function transcribeOnce(stt: LoadedStt, pcm: Int16Array, speechSeconds: number): Promise<number> {
  const tokens = tokenBudget(speechSeconds);
  const padded = await prepareAudio(pcm, STT_SAMPLE_RATE, DEFAULT_PADDING_SECS, sincResample);
  await stt.asr(int16ToFloat32(padded), { max_new_tokens: tokens, min_new_tokens: tokens });
  return tokens;
}

interface KokoroLike {
  generate(text: string, options: { voice: string; speed: number }): Promise<{ audio: Float32Array }>;
}

/**
 * kokoro-js's own `from_pretrained` drops `session_options`, so the model and
 * tokenizer are loaded here from the same plan and handed to its constructor;
 * `generate` is then exactly what KokoroTts calls.
 */
export async function loadKokoro(o: LoadOptions): Promise<{ tts: KokoroLike; loadMs: number }> {
  const store = new ModelStore(o.modelsDir);
  const dtype = (dtypeSpec(o.dtype) ?? lookupModel('kokoro').defaultDtype) as Dtype;
  const plan = kokoroLoadPlan(store, { dtype, device: o.device });
  const t = await loadTransformers(store.dir);
  const { KokoroTTS } = await importKokoroQuietly();
  const extra = sessionOptions(o);
  const started = performance.now();
  const [model, tokenizer] = await Promise.all([
    t.StyleTextToSpeech2Model.from_pretrained(plan.modelPath, {
      dtype: plan.options.dtype,
      device: plan.options.device,
      local_files_only: true,
      ...(extra ? { session_options: extra } : {}),
    }),
    t.AutoTokenizer.from_pretrained(plan.modelPath, { local_files_only: true }),
  ]);
  const tts = new KokoroTTS(model, tokenizer) as unknown as KokoroLike;
  return { tts, loadMs: performance.now() - started };
}

/** Seconds of 24 kHz audio made, after the same resampling to 16 kHz the provider does. */
export async function synthesizeOnce(tts: KokoroLike, text: string): Promise<number> {
  const out = await tts.generate(text, { voice: KOKORO_DEFAULT_VOICE, speed: 1 });
  await sincResample(float32ToInt16(out.audio), 24000, 16000);
  return out.audio.length / 24000;
}

/** phonemizer's module adds process-wide rethrowing listeners; a bench's one-line errors need them gone (kokoro.ts). */
async function importKokoroQuietly(): Promise<typeof import('kokoro-js')> {
  const exceptions = new Set(process.listeners('uncaughtException'));
  const rejections = new Set(process.listeners('unhandledRejection'));
  const mod = await import('kokoro-js');
  for (const l of process.listeners('uncaughtException'))
    if (!exceptions.has(l)) process.removeListener('uncaughtException', l);
  for (const l of process.listeners('unhandledRejection'))
    if (!rejections.has(l)) process.removeListener('unhandledRejection', l);
  return mod;
}

export async function runCell(job: CellJob): Promise<CellResult> {
  const utterances = loadUtterances(job.utterancesFile);
  const rtfs: number[] = [];
  const audioS: number[] = [];
  let firstCallMs = 0;
  let loadMs: number;
  let tokensPerCall: number | null = null;
  const busy = cpuMeter();
  if (job.model === 'kokoro') {
    const k = await loadKokoro(job);
    loadMs = k.loadMs;
    if (job.probeOnly) return result(job, { rtfs, loadMs, firstCallMs, tokensPerCall, audioS, cores: busy.cores() });
    const t0 = performance.now();
    await synthesizeOnce(k.tts, utterances[0].text);
    firstCallMs = performance.now() - t0;
    busy.start();
    for (let p = 0; p < job.passes; p++) {
      for (const u of utterances) {
        const started = performance.now();
        const seconds = await synthesizeOnce(k.tts, u.text);
        rtfs.push((performance.now() - started) / 1000 / seconds);
        audioS.push(seconds);
      }
    }
    busy.stop();
  } else {
    const stt = await loadStt(job);
    loadMs = stt.loadMs;
    if (job.probeOnly) return result(job, { rtfs, loadMs, firstCallMs, tokensPerCall, audioS, cores: busy.cores() });
    const t0 = performance.now();
    await transcribeOnce(stt, utterances[0].pcm, utterances[0].seconds);
    firstCallMs = performance.now() - t0;
    const runsBefore = stt.decoderRuns();
    busy.start();
    for (let p = 0; p < job.passes; p++) {
      for (const u of utterances) {
        const started = performance.now();
        await transcribeOnce(stt, u.pcm, u.seconds);
        rtfs.push((performance.now() - started) / 1000 / u.seconds);
        audioS.push(u.seconds);
      }
    }
    busy.stop();
    tokensPerCall = rtfs.length ? (stt.decoderRuns() - runsBefore) / rtfs.length : null;
  }
  return result(job, { rtfs, loadMs, firstCallMs, tokensPerCall, audioS, cores: busy.cores() });
}

function result(
  job: CellJob,
  m: {
    rtfs: number[];
    loadMs: number;
    firstCallMs: number;
    tokensPerCall: number | null;
    audioS: number[];
    cores: number | null;
  },
): CellResult {
  return {
    model: job.model,
    dtype: job.dtype,
    threads: job.threads,
    device: job.device,
    rtfs: m.rtfs,
    load_ms: m.loadMs,
    first_call_ms: m.firstCallMs,
    rss_mb: process.resourceUsage().maxRSS / 1024,
    tokens_per_call: m.tokensPerCall,
    os_threads: osThreads(),
    cores_busy: m.cores,
    audio_s_per_call: m.audioS.reduce((a, b) => a + b, 0) / Math.max(1, m.audioS.length),
  };
}

/** The sessions measurement (bench/asr-sessions.ts): one transcriber, levels of simulated calls. */
export interface SessionsJob {
  kind: 'sessions';
  transcriber: 'whisper' | 'sphinx';
  /** For whisper: the model, dtype and threads of the pipeline. */
  load?: LoadOptions;
  utterancesFile: string;
  durationS: number;
  duty: number;
  /** Each transcript due this many times its reply's length after the reply ended. */
  deadlineFactor: number;
  seed: number;
  maxSessions: number;
  out: string;
}

export type ChildJob = CellJob | SessionsJob;

async function main(): Promise<void> {
  const file = process.argv[2];
  if (!file) throw new Error('usage: bench/asr-cell.ts JOB.json');
  const job = JSON.parse(readFileSync(file, 'utf8')) as ChildJob;
  const result =
    job.kind === 'cell' ? await runCell(job) : await (await import('./asr-sessions.js')).runSessionsJob(job);
  writeFileSync(job.out, `${JSON.stringify(result)}\n`);
}

if (process.argv[1]?.endsWith('asr-cell.ts')) {
  main().then(
    // ONNX Runtime's thread pools can keep a process alive after its sessions are done with.
    () => process.exit(0),
    (err: unknown) => {
      console.error(`bench/asr-cell: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
      process.exit(1);
    },
  );
}
