import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { getPriority } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav, downmixToMono, sincResample } from '../../../src/audio/index.js';
import { SpeechQueueFullError } from '../../../src/speech/errors.js';
import { RECOGNIZER_NICE, resolveSphinx } from '../../../src/speech/stt/sphinx-config.js';
import { SphinxStt } from '../../../src/speech/stt/sphinx.js';
import { createTts } from '../../../src/speech/tts/table.js';
import { CLI } from '../../support/paths.js';

/**
 * The pooled PocketSphinx recognizers (long-lived pocketsphinx_batch
 * processes) against a fresh process per call, on real speech: the LibriVox
 * clips of Debian's pocketsphinx-testdata and Flite sentences.
 */
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
interface Clip {
  id: string;
  pcm: Int16Array;
  sampleRate: number;
}
const clips: Clip[] = readFileSync(join(LIBRIVOX, 'transcription'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => {
    const id = /\((.*)\)$/.exec(line)![1];
    const { samples: pcm, sampleRate } = downmixToMono(decodeWav(readFileSync(join(LIBRIVOX, `${id}.wav`))));
    return { id, pcm, sampleRate };
  });

const config = resolveSphinx();
let once: SphinxStt;
const expected = new Map<string, string>();

beforeAll(async () => {
  const tts = await createTts('flite:slt', { noCache: true });
  for (const [i, text] of [
    'What is the capital of France?',
    'Please cancel my order and send me a refund.',
    'I would like to book a table for two people tonight.',
  ].entries()) {
    const r = await tts.synthesize(text, { sampleRate: 16000 });
    clips.push({ id: `flite-${i}`, pcm: r.pcm, sampleRate: r.sampleRate });
  }
  await tts.close();
  once = new SphinxStt(config, 2, sincResample, 'once');
  for (const c of clips) expected.set(c.id, (await once.transcribe(c.pcm, c.sampleRate)).text);
}, 120_000);
afterAll(() => once.close());

const transcribeAll = async (stt: SphinxStt, order: Clip[]): Promise<Map<string, string>> => {
  const texts = await Promise.all(order.map((c) => stt.transcribe(c.pcm, c.sampleRate)));
  return new Map(order.map((c, i) => [c.id, texts[i].text]));
};

describe('pooled PocketSphinx', () => {
  it('gives every clip the words a fresh process gives it, whatever it decoded before and in any order', async () => {
    const stt = new SphinxStt(config, 2, sincResample, 'pool', { size: 2 });
    try {
      expect([...expected.values()].filter((t) => t.length > 0).length).toBe(clips.length);
      const forward = await transcribeAll(stt, clips);
      const backward = await transcribeAll(stt, [...clips].reverse());
      const interleaved = await transcribeAll(stt, [
        ...clips.filter((_, i) => i % 2),
        ...clips.filter((_, i) => i % 2 === 0),
      ]);
      for (const got of [forward, backward, interleaved])
        expect(Object.fromEntries(got)).toEqual(Object.fromEntries(expected));
      // Two long-lived processes did all 24 calls.
      expect(stt.pool.stats()).toMatchObject({ size: 2, workers: 2, started: 2, replaced: 0 });
    } finally {
      await stt.close();
    }
  }, 120_000);

  it('queues requests beyond its workers and refuses one more than the queue holds, at once', async () => {
    const stt = new SphinxStt(config, 2, sincResample, 'pool', { size: 1, maxQueue: 2 });
    try {
      const [a, b, c] = clips;
      const calls = [a, b, c].map((x) => stt.transcribe(x.pcm, x.sampleRate));
      // Each call resamples before it reaches the pool; wait until all three are in.
      await waitFor(() => stt.pool.stats().busy === 1 && stt.pool.stats().queued === 2);
      const refused = await stt.transcribe(a.pcm, a.sampleRate).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(SpeechQueueFullError);
      expect(refused).toMatchObject({ kind: 'queue_full', workers: 1, maxQueue: 2 });
      expect((refused as Error).message).toMatch(
        /^sphinx: all 1 recognizers are busy and 2 transcriptions already wait/,
      );
      const texts = (await Promise.all(calls)).map((r) => r.text);
      expect(texts).toEqual([a, b, c].map((x) => expected.get(x.id)));
      expect(stt.pool.stats()).toMatchObject({ refused: 1, started: 1, queued: 0, busy: 0 });
    } finally {
      await stt.close();
    }
  }, 60_000);

  it('drops a queued request when its caller aborts, and keeps serving the others', async () => {
    const stt = new SphinxStt(config, 2, sincResample, 'pool', { size: 1, maxQueue: 4 });
    try {
      const [a, b] = clips;
      const first = stt.transcribe(a.pcm, a.sampleRate);
      const controller = new AbortController();
      const second = stt.transcribe(b.pcm, b.sampleRate, { signal: controller.signal });
      await waitFor(() => stt.pool.stats().queued === 1);
      controller.abort(new Error('turn over'));
      await expect(second).rejects.toThrow('turn over');
      expect(stt.pool.stats().queued).toBe(0);
      expect((await first).text).toBe(expected.get(a.id));
    } finally {
      await stt.close();
    }
  }, 60_000);

  it('replaces a recognizer process that dies, and the request it held still gets its words', async () => {
    const stt = new SphinxStt(config, 2, sincResample, 'pool', { size: 1 });
    try {
      const c = clips[1];
      await stt.transcribe(c.pcm, c.sampleRate);
      const pid = stt.pool.workersNow()[0].processId!;
      expect(pid).toBeGreaterThan(0);
      const call = stt.transcribe(c.pcm, c.sampleRate);
      await waitFor(() => stt.pool.stats().busy === 1);
      process.kill(pid, 'SIGKILL');
      expect((await call).text).toBe(expected.get(c.id));
      const now = stt.pool.workersNow();
      expect(now).toHaveLength(1);
      expect(now[0].processId).not.toBe(pid);
      expect(stt.pool.stats()).toMatchObject({ started: 2, replaced: 1 });
    } finally {
      await stt.close();
    }
  }, 60_000);

  it('runs its recognizers below the real-time work (nice RECOGNIZER_NICE), this process untouched', async () => {
    const stt = new SphinxStt(config, 0, sincResample, 'pool', { size: 1 });
    try {
      await stt.transcribe(new Int16Array(1600), 16000);
      const pid = stt.pool.workersNow()[0].processId!;
      // Never above this process: under `nice -n 15 npm test` it stays at 15.
      expect(getPriority(pid)).toBe(Math.max(RECOGNIZER_NICE, getPriority()));
    } finally {
      await stt.close();
    }
  });

  it('ends its processes on close and refuses work afterwards', async () => {
    const stt = new SphinxStt(config, 0, sincResample, 'pool', { size: 1 });
    await stt.transcribe(new Int16Array(1600), 16000);
    const worker = stt.pool.workersNow()[0];
    await stt.close();
    expect(worker.alive).toBe(false);
    expect(() => process.kill(worker.processId!, 0)).toThrow();
    await expect(stt.transcribe(new Int16Array(10), 16000)).rejects.toThrow('sphinx: provider closed');
  });
});

describe('pooled PocketSphinx in a script', () => {
  it('lets a process whose last work is closing the pool finish: close waits for the idle, unreferenced recognizer', () => {
    // The recognizers are unreferenced while idle so they never keep a process alive; closing must still wait for them.
    const speech = pathToFileURL(join(dirname(CLI), '..', 'speech', 'index.js')).href;
    const script = `const { createStt } = await import(${JSON.stringify(speech)});
      const stt = await createStt({ service: 'sphinx', padding_secs: 0 });
      const r = await stt.transcribe(new Int16Array(1600), 16000);
      await stt.close();
      console.log('closed', JSON.stringify(r.text));`;
    const out = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(out.stderr).toBe('');
    expect(out.stdout.trim()).toBe('closed ""');
    expect(out.status).toBe(0);
  }, 40_000);
});

async function waitFor(condition: () => boolean, timeoutMs = 5000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
