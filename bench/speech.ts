/**
 * Speech benchmark: Flite synthesis time per sentence and Flite → PocketSphinx word error
 * rate per voice over fixtures/sentences.txt, one-shot and persistent recognizer.
 *   npm run bench:speech [-- slt,rms]
 */
import { FliteTts } from '../src/speech/tts/flite.js';
import { SphinxStt } from '../src/speech/stt/sphinx.js';
import { resolveSphinx } from '../src/speech/stt/sphinx-config.js';
import { sincResample } from '../src/audio/index.js';
import { corpusWordErrorRate } from '../src/metrics/wer.js';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
const sentences = readFileSync(new URL('../fixtures/sentences.txt', import.meta.url),'utf8').split('\n').filter(l=>l.trim() && !l.startsWith('#'));
const voices = (process.argv[2] ?? 'slt,rms,awb,kal,kal16').split(',');
console.log('load', loadavg().map(x=>x.toFixed(2)).join(' '), 'cpus', cpus().length);
const tts = new FliteTts({ resample: sincResample });
await tts.synthesize('warm up', { sampleRate: 16000 });
const median = (xs: number[]) => { const s=[...xs].sort((a,b)=>a-b); return s[Math.floor(s.length/2)]; };
for (const voice of voices) {
  const audio: Int16Array[] = []; const ms: number[] = [];
  for (const s of sentences) { const t0 = performance.now(); audio.push((await tts.synthesize(s, { voice, sampleRate: 16000 })).pcm); ms.push(performance.now()-t0); }
  const audioSec = audio.reduce((n,a)=>n+a.length,0)/16000;
  for (const persistent of [false, true]) {
    const stt = new SphinxStt(resolveSphinx(), 2, sincResample, persistent);
    const pairs = []; const sttMs: number[] = [];
    for (const [i, s] of sentences.entries()) { const r = await stt.transcribe(audio[i], 16000); sttMs.push(r.elapsedMs); pairs.push({ reference: s, hypothesis: r.text }); }
    await stt.close();
    const w = corpusWordErrorRate(pairs);
    const total = sttMs.reduce((a,b)=>a+b,0)/1000;
    console.log(`${voice.padEnd(6)} ${persistent ? 'persistent' : 'one-shot  '} WER ${(w.wer*100).toFixed(1).padStart(5)}% (S${w.substitutions} D${w.deletions} I${w.insertions} / ${w.reference_words}) flite ${(ms.reduce((a,b)=>a+b,0)/ms.length).toFixed(0)} ms/sentence (median ${median(ms).toFixed(0)}) audio ${(audioSec/sentences.length).toFixed(2)} s/sentence; sphinx ${(total/sentences.length).toFixed(2)} s/call (median ${(median(sttMs)/1000).toFixed(2)}) RTF ${(total/audioSec).toFixed(2)}`);
  }
}
await tts.close();
const one = new SphinxStt(resolveSphinx(), 0, sincResample, false);
const loads: number[] = [];
for (let i = 0; i < 5; i++) loads.push((await one.transcribe(new Int16Array(1600), 16000)).elapsedMs);
console.log('sphinx one-shot call on 0.1 s of silence (model load + process):', loads.map(x => x.toFixed(0)).join(' '), 'ms');
const per = new SphinxStt(resolveSphinx(), 0, sincResample, true);
await per.transcribe(new Int16Array(1600), 16000);
const pl: number[] = [];
for (let i = 0; i < 5; i++) pl.push((await per.transcribe(new Int16Array(1600), 16000)).elapsedMs);
console.log('sphinx persistent call on 0.1 s of silence:', pl.map(x => x.toFixed(0)).join(' '), 'ms');
await per.close();
console.log('load', loadavg().map(x=>x.toFixed(2)).join(' '));
