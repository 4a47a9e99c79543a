/**
 * How long a local model stalls the sessions' thread: the worst event-loop
 * gap (a 1 ms interval's lateness) during each call, with the model where
 * earshot runs it (a process of its own, model-process.ts) and, for
 * comparison, where it ran before (transformers.js / kokoro-js in the
 * sessions' own process). A stall delays every session's event handling and
 * scheduled sends (frames are paced on their own thread and stamped there, so
 * timings are not skewed; what the caller does next is).
 *
 *   npm run bench:event-loop -- --models-dir DIR [--calls N] [--runs R] [--json FILE]
 *
 * DIR is a model store with whisper-tiny.en and kokoro in it (`npm run
 * models:fixtures -- --out DIR [--full]`). Per configuration: the median and the
 * worst of the per-call worst gaps, over N calls, per run.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { Command } from 'commander';
import { int16ToFloat32 } from '../src/audio/index.js';
import { type ModelStore, ModelStore as Store } from '../src/speech/models/store.js';
import { findModel } from '../src/speech/models/registry.js';
import { loadTransformers } from '../src/speech/onnx.js';
import { createStt } from '../src/speech/stt/table.js';
import { createTts } from '../src/speech/tts/table.js';
import { toneBursts } from '../test/integration/speech/tones.testutil.js';

interface Row {
  model: string;
  where: 'own process' | 'in-process';
  run: number;
  calls: number;
  call_ms_p50: number;
  stall_ms_p50: number;
  stall_ms_max: number;
}

const SENTENCE = 'I would like to book a table for four people tomorrow at seven in the evening, please.';

/** Runs `call` `n` times; the worst gap of a 1 ms interval during each call. */
async function stalls(n: number, call: () => Promise<unknown>): Promise<{ stalls: number[]; callMs: number[] }> {
  const out: number[] = [];
  const callMs: number[] = [];
  for (let i = 0; i < n; i++) {
    let worst = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      worst = Math.max(worst, now - last - 1);
      last = now;
    }, 1);
    const started = performance.now();
    await call();
    const ended = performance.now();
    // The gap still open when the call returned counts too (a call that blocked throughout never let the timer run).
    worst = Math.max(worst, ended - last - 1);
    clearInterval(timer);
    out.push(Math.max(0, worst));
    callMs.push(ended - started);
  }
  return { stalls: out, callMs };
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (x: number): number => Math.round(x * 10) / 10;

async function inProcessWhisper(store: ModelStore): Promise<(audio: Float32Array) => Promise<unknown>> {
  const model = findModel('whisper-tiny.en')!;
  const { pipeline } = await loadTransformers(store.dir);
  const asr = (await pipeline('automatic-speech-recognition', store.modelDir(model), {
    dtype: { encoder_model: 'fp32', decoder_model_merged: 'q8' },
    local_files_only: true,
  })) as unknown as (audio: Float32Array, kwargs: Record<string, unknown>) => Promise<unknown>;
  // The same call earshot's provider makes (no extra generation options), so both decode alike.
  return (audio) => asr(audio, {});
}

async function inProcessKokoro(store: ModelStore): Promise<(text: string) => Promise<unknown>> {
  await loadTransformers(store.dir);
  const { KokoroTTS } = await import('kokoro-js');
  const tts = await KokoroTTS.from_pretrained(store.modelDir(findModel('kokoro')!), { dtype: 'q8', device: 'cpu' });
  return (text) => tts.generate(text, { voice: 'af_heart' });
}

const program = new Command('bench:event-loop')
  .requiredOption('--models-dir <dir>', 'model store holding whisper-tiny.en and kokoro (fixtures or real)')
  .option('--calls <n>', 'calls per run', '8')
  .option('--runs <n>', 'runs per configuration', '2')
  .option('--json <file>', 'write the rows as JSON')
  .action(async (o: { modelsDir: string; calls: string; runs: string; json?: string }) => {
    const store = new Store(o.modelsDir);
    const calls = Number(o.calls);
    const runs = Number(o.runs);
    const pcm = toneBursts(3, 16000, 6);
    const rows: Row[] = [];
    const record = async (model: string, where: Row['where'], call: () => Promise<unknown>): Promise<void> => {
      await call(); // loaded and warm
      for (let run = 1; run <= runs; run++) {
        const m = await stalls(calls, call);
        rows.push({
          model,
          where,
          run,
          calls,
          call_ms_p50: round(median(m.callMs)),
          stall_ms_p50: round(median(m.stalls)),
          stall_ms_max: round(Math.max(...m.stalls)),
        });
      }
    };
    const whisper = await createStt('whisper:tiny.en', { modelStore: store });
    await record('whisper-tiny.en', 'own process', () => whisper.transcribe(pcm, 16000));
    await whisper.close();
    const kokoro = await createTts({ provider: 'kokoro' }, { modelStore: store, noCache: true });
    await record('kokoro', 'own process', () => kokoro.synthesize(SENTENCE, { sampleRate: 24000 }));
    await kokoro.close();
    // Last: these load ONNX Runtime into this process.
    const asr = await inProcessWhisper(store);
    const audio = int16ToFloat32(pcm);
    await record('whisper-tiny.en', 'in-process', () => asr(audio));
    const tts = await inProcessKokoro(store);
    await record('kokoro', 'in-process', () => tts(SENTENCE));
    console.log(`${cpus()[0]?.model} ×${cpus().length}, load ${loadavg()[0].toFixed(2)}, ${new Date().toISOString()}`);
    console.table(rows);
    if (o.json) writeFileSync(o.json, `${JSON.stringify({ cpu: cpus()[0]?.model, rows }, null, 2)}\n`);
  });

program.parseAsync().catch((err: unknown) => {
  console.error(`bench:event-loop: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
});
