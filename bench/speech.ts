/**
 * Speech benchmark: Flite synthesis time per sentence and Flite → PocketSphinx word error
 * rate per voice over fixtures/sentences.txt, with the recognizer run three ways (sphinx.ts):
 * `once` (a fresh pocketsphinx_batch per reply), `stream` (the long-lived pocketsphinx_continuous
 * earshot used as "persistent" before) and `pool` (long-lived pocketsphinx_batch processes, one
 * reply after another, then all replies at once). Reports WER, seconds per reply, and how many
 * pooled transcripts differ from the one-shot ones (0 expected).
 *   npm run bench:speech [-- slt,rms] [--sentences N]
 */
import { FliteTts } from '../src/speech/tts/flite.js';
import { SphinxStt, type SphinxMode } from '../src/speech/stt/sphinx.js';
import { resolveSphinx } from '../src/speech/stt/sphinx-config.js';
import { sincResample } from '../src/audio/index.js';
import { corpusWordErrorRate } from '../src/metrics/wer.js';
import { readFileSync } from 'node:fs';
import { availableParallelism, cpus, loadavg } from 'node:os';

const args = process.argv.slice(2);
const flag = (name: string): string | undefined => {
  const i = args.indexOf(name);
  return i >= 0 ? args.splice(i, 2)[1] : undefined;
};
const limit = Number(flag('--sentences') ?? Infinity);
const sentences = readFileSync(new URL('../fixtures/sentences.txt', import.meta.url), 'utf8')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'))
  .slice(0, limit);
const voices = (args[0] ?? 'slt,rms,awb,kal,kal16').split(',');
console.log(
  'load',
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
  'cpus',
  cpus().length,
  'pool size',
  availableParallelism(),
);
const tts = new FliteTts({ resample: sincResample });
await tts.synthesize('warm up', { sampleRate: 16000 });
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;

interface Row {
  label: string;
  texts: string[];
  perReplyMs: number[];
  wallMs: number;
}

async function measure(label: string, mode: SphinxMode, audio: Int16Array[], concurrent: boolean): Promise<Row> {
  const stt = new SphinxStt(resolveSphinx(), 2, sincResample, mode);
  if (mode === 'pool') await stt.transcribe(new Int16Array(1600), 16000); // the pool's first process loads once per run, not per reply
  const t0 = performance.now();
  const results = concurrent
    ? await Promise.all(audio.map((a) => stt.transcribe(a, 16000)))
    : await audio.reduce<Promise<Awaited<ReturnType<SphinxStt['transcribe']>>[]>>(
        async (acc, a) => [...(await acc), await stt.transcribe(a, 16000)],
        Promise.resolve([]),
      );
  const wallMs = performance.now() - t0;
  await stt.close();
  return { label, texts: results.map((r) => r.text), perReplyMs: results.map((r) => r.elapsedMs), wallMs };
}

for (const voice of voices) {
  const audio: Int16Array[] = [];
  const ms: number[] = [];
  for (const s of sentences) {
    const t0 = performance.now();
    audio.push((await tts.synthesize(s, { voice, sampleRate: 16000 })).pcm);
    ms.push(performance.now() - t0);
  }
  const audioSec = audio.reduce((n, a) => n + a.length, 0) / 16000;
  console.log(
    `${voice}: flite ${mean(ms).toFixed(0)} ms/sentence (median ${median(ms).toFixed(0)}), audio ${(audioSec / sentences.length).toFixed(2)} s/sentence`,
  );
  const rows = [
    await measure('one-shot', 'once', audio, false),
    await measure('persistent', 'stream', audio, false),
    await measure('pooled', 'pool', audio, false),
    await measure('pooled, all at once', 'pool', audio, true),
  ];
  for (const row of rows) {
    const w = corpusWordErrorRate(sentences.map((reference, i) => ({ reference, hypothesis: row.texts[i] })));
    const differ = row.texts.filter((t, i) => t !== rows[0].texts[i]).length;
    console.log(
      `  ${row.label.padEnd(20)} WER ${(w.wer * 100).toFixed(1).padStart(5)}% (S${w.substitutions} D${w.deletions} I${w.insertions} / ${w.reference_words})` +
        ` per reply ${(mean(row.perReplyMs) / 1000).toFixed(2)} s (median ${(median(row.perReplyMs) / 1000).toFixed(2)}), wall ${(row.wallMs / 1000).toFixed(1)} s` +
        `, RTF ${(row.wallMs / 1000 / audioSec).toFixed(2)}, transcripts differing from one-shot: ${differ}`,
    );
  }
}
await tts.close();

for (const mode of ['once', 'stream', 'pool'] as const) {
  const stt = new SphinxStt(resolveSphinx(), 0, sincResample, mode);
  if (mode !== 'once') await stt.transcribe(new Int16Array(1600), 16000);
  const times: number[] = [];
  for (let i = 0; i < 5; i++) times.push((await stt.transcribe(new Int16Array(1600), 16000)).elapsedMs);
  await stt.close();
  console.log(`sphinx ${mode} call on 0.1 s of silence:`, times.map((x) => x.toFixed(0)).join(' '), 'ms');
}
console.log(
  'load',
  loadavg()
    .map((x) => x.toFixed(2))
    .join(' '),
);
