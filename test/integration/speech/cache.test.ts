import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { CachedTts, defaultTtsCacheDir, UtteranceCache, type UtteranceKey } from '../../../src/speech/cache.js';
import { decodeWav, downmixToMono, sincResample } from '../../../src/audio/index.js';
import { FliteTts } from '../../../src/speech/tts/flite.js';
import type { SynthesisResult, SynthesizeOptions, TtsProvider } from '../../../src/speech/tts/types.js';

/** Real Flite underneath; counts the syntheses that reach it. */
class Counting implements TtsProvider {
  calls = 0;
  constructor(
    private readonly inner: TtsProvider,
    readonly cacheKeyOptions: Record<string, unknown> = {},
  ) {}
  get name(): string {
    return this.inner.name;
  }
  get defaultVoice(): string {
    return this.inner.defaultVoice;
  }
  synthesize(text: string, o: SynthesizeOptions): Promise<SynthesisResult> {
    this.calls++;
    return this.inner.synthesize(text, o);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

let flite: FliteTts;
let dir: string;
let cache: UtteranceCache;

beforeAll(() => {
  flite = new FliteTts({ resample: sincResample });
});
afterAll(async () => {
  await flite.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-tts-cache-'));
  cache = new UtteranceCache(dir);
  return () => rmSync(dir, { recursive: true, force: true });
});

const allFiles = (d: string): string[] =>
  readdirSync(d, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => e.name);

describe('CachedTts', () => {
  it('synthesizes on a miss, stores a WAV, and answers the same audio from disk on a hit', async () => {
    const counting = new Counting(flite);
    const tts = new CachedTts(counting, cache);
    const first = await tts.synthesize('What is the capital of France?', { sampleRate: 16000 });
    const second = await tts.synthesize('What is the capital of France?', { sampleRate: 16000 });
    expect(counting.calls).toBe(1);
    expect(tts.stats).toEqual({ hits: 1, misses: 1 });
    expect(second.pcm).toEqual(first.pcm);
    const path = cache.pathFor(tts.keyFor('What is the capital of France?', { sampleRate: 16000 }));
    expect(downmixToMono(decodeWav(readFileSync(path)))).toEqual({ samples: first.pcm, sampleRate: 16000 });

    // A fresh wrapper over the same folder (the next run) hits as well.
    const nextRun = new CachedTts(new Counting(flite), new UtteranceCache(dir));
    await nextRun.synthesize('What is the capital of France?', { sampleRate: 16000 });
    expect(nextRun.stats).toEqual({ hits: 1, misses: 0 });
  });

  it('misses when the text, voice, rate or provider options change', async () => {
    const counting = new Counting(flite);
    const tts = new CachedTts(counting, cache);
    await tts.synthesize('Hello there.', { sampleRate: 16000 });
    await tts.synthesize('Hello there!', { sampleRate: 16000 });
    await tts.synthesize('Hello there.', { sampleRate: 16000, voice: 'rms' });
    await tts.synthesize('Hello there.', { sampleRate: 24000 });
    expect(counting.calls).toBe(4);
    const other = new CachedTts(new Counting(flite, { speed: 1.2 }), cache);
    await other.synthesize('Hello there.', { sampleRate: 16000 });
    expect(other.stats.misses).toBe(1);
    expect(allFiles(dir).filter((f) => f.endsWith('.wav'))).toHaveLength(5);
  });

  it('treats the default voice and the same voice named explicitly as one entry', async () => {
    const tts = new CachedTts(new Counting(flite), cache);
    await tts.synthesize('Thank you.', { sampleRate: 16000 });
    await tts.synthesize('Thank you.', { sampleRate: 16000, voice: 'slt' });
    expect(tts.stats).toEqual({ hits: 1, misses: 1 });
  });

  it('synthesizes once when the same utterance is asked for twice at the same time', async () => {
    const counting = new Counting(flite);
    const tts = new CachedTts(counting, cache);
    const [a, b] = await Promise.all([
      tts.synthesize('Goodbye and have a nice day.', { sampleRate: 16000 }),
      tts.synthesize('Goodbye and have a nice day.', { sampleRate: 16000 }),
    ]);
    expect(counting.calls).toBe(1);
    expect(a.pcm).toEqual(b.pcm);
  });

  it('replaces an unreadable entry instead of failing, and leaves no temporary files', async () => {
    const tts = new CachedTts(new Counting(flite), cache);
    const key = tts.keyFor('Yes, that is correct.', { sampleRate: 16000 });
    await tts.synthesize('Yes, that is correct.', { sampleRate: 16000 });
    writeFileSync(cache.pathFor(key), 'truncated');
    const again = await tts.synthesize('Yes, that is correct.', { sampleRate: 16000 });
    expect(tts.stats.misses).toBe(2);
    expect(downmixToMono(decodeWav(readFileSync(cache.pathFor(key)))).samples).toEqual(again.pcm);
    expect(allFiles(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('UtteranceCache keys', () => {
  const key: UtteranceKey = {
    provider: 'kokoro',
    voice: 'af_heart',
    text: 'Hi.',
    sampleRate: 16000,
    options: { dtype: 'q8', speed: 1 },
  };

  it('hash the same whatever the order of option keys, and differ for any field', () => {
    expect(UtteranceCache.hash({ ...key, options: { speed: 1, dtype: 'q8' } })).toBe(UtteranceCache.hash(key));
    for (const change of [
      { provider: 'flite' },
      { voice: 'af_bella' },
      { text: 'Hi!' },
      { sampleRate: 24000 },
      { options: { dtype: 'fp32', speed: 1 } },
    ]) {
      expect(UtteranceCache.hash({ ...key, ...change })).not.toBe(UtteranceCache.hash(key));
    }
  });

  it('misses on a stored file of another rate', async () => {
    await cache.put(key, { pcm: new Int16Array(10), sampleRate: 24000 });
    expect(existsSync(cache.pathFor(key))).toBe(true);
    expect(await cache.get(key)).toBeUndefined();
  });
});

describe('defaultTtsCacheDir', () => {
  it('is $EARSHOT_CACHE_DIR/tts, else $XDG_CACHE_HOME/earshot/tts, else ~/.cache/earshot/tts', () => {
    expect(defaultTtsCacheDir({ EARSHOT_CACHE_DIR: '/var/cache/e', XDG_CACHE_HOME: '/x' })).toBe('/var/cache/e/tts');
    expect(defaultTtsCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/earshot/tts');
    expect(defaultTtsCacheDir({})).toMatch(/\/\.cache\/earshot\/tts$/);
  });
});
