import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusWordErrorRate } from '../../../src/metrics/wer.js';
import { createStt } from '../../../src/speech/stt/table.js';
import type { SttProvider } from '../../../src/speech/stt/types.js';
import { createTts } from '../../../src/speech/tts/table.js';
import type { TtsProvider } from '../../../src/speech/tts/types.js';

/**
 * The offline speech loop the reference bot and the audio scenarios stand on:
 * Flite speaks plain English sentences, PocketSphinx writes down what it
 * heard. Measured here: 7.9% WER for slt (16 errors in 203 words; 9.4%
 * before the batch decoder, docs/benchmarks.md).
 */
const SENTENCES = readFileSync(join(import.meta.dirname, '..', '..', '..', 'fixtures', 'sentences.txt'), 'utf8')
  .split('\n')
  .map((l) => l.trim())
  .filter((l) => l && !l.startsWith('#'));

let tts: TtsProvider;
let stt: SttProvider;
beforeAll(async () => {
  tts = await createTts('flite:slt', { noCache: true });
  stt = await createStt('sphinx');
});
afterAll(async () => {
  await tts.close();
  await stt.close();
});

/** Runs `fn` over `items` with at most `limit` at a time, keeping order. */
async function mapLimit<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]);
      }
    }),
  );
  return out;
}

describe('Flite -> PocketSphinx round trip', () => {
  it('keeps the word error rate over the fixture sentences at or below 10% (voice slt, 16 kHz)', async () => {
    expect(SENTENCES.length).toBeGreaterThanOrEqual(20);
    const hypotheses = await mapLimit(SENTENCES, 2, async (sentence) => {
      const speech = await tts.synthesize(sentence, { sampleRate: 16000 });
      return (await stt.transcribe(speech.pcm, speech.sampleRate)).text;
    });
    const wer = corpusWordErrorRate(SENTENCES.map((reference, i) => ({ reference, hypothesis: hypotheses[i] })));
    expect(wer.reference_words).toBe(203);
    expect(wer.wer).toBeLessThanOrEqual(0.1);
    // Most sentences come back word for word.
    const exact = SENTENCES.filter(
      (s, i) => corpusWordErrorRate([{ reference: s, hypothesis: hypotheses[i] }]).wer === 0,
    );
    expect(exact.length).toBeGreaterThanOrEqual(SENTENCES.length / 2);
  }, 120_000);
});
