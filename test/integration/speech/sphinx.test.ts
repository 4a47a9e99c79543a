import { readdirSync, readFileSync } from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corpusWordErrorRate, wordErrorRate } from '../../../src/metrics/wer.js';
import { DependencyMissingError, SpeechConfigError, SpeechProviderError } from '../../../src/speech/errors.js';
import { decodeWav, downmixToMono, sincResample } from '../../../src/audio/index.js';
import { resolveSphinx } from '../../../src/speech/stt/sphinx-config.js';
import { SphinxStt } from '../../../src/speech/stt/sphinx.js';
import type { Transcription } from '../../../src/speech/stt/types.js';

/**
 * Real PocketSphinx (Debian pocketsphinx + pocketsphinx-en-us) on real human
 * speech: the LibriVox clips of Debian's pocketsphinx-testdata and their
 * reference transcripts.
 */
const LIBRIVOX = '/usr/share/pocketsphinx/test/data/librivox';
const clips = readFileSync(join(LIBRIVOX, 'transcription'), 'utf8')
  .trim()
  .split('\n')
  .map((line) => {
    const m = /^<s> (.*) <\/s> \((.*)\)$/.exec(line);
    if (!m) throw new Error(`unexpected transcript line: ${line}`);
    const { samples: pcm, sampleRate } = downmixToMono(decodeWav(readFileSync(join(LIBRIVOX, `${m[2]}.wav`))));
    return { id: m[2], reference: m[1], pcm, sampleRate };
  });
/** What pocketsphinx_batch hears in clip 0880 (the reference: "he was not an ill disposed young man"). */
const BATCH_0880 = 'he was not until this blows young man';
const clip = (suffix: string): (typeof clips)[number] => clips.find((c) => c.id.endsWith(suffix))!;

/** pocketsphinx processes this test process started and that are still alive. */
function ownSphinxChildren(): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((p) => {
      try {
        const stat = readFileSync(`/proc/${p}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && stat.includes('(pocketsphinx_');
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('sphinx, one process per call', () => {
  let stt: SphinxStt;
  beforeAll(() => {
    stt = new SphinxStt(resolveSphinx(), 2, sincResample, 'once');
  });
  afterAll(() => stt.close());

  it('transcribes the LibriVox clips within the error rate measured for the en-us model (36.6%)', async () => {
    const results: Transcription[] = [];
    for (const c of clips) results.push(await stt.transcribe(c.pcm, c.sampleRate));
    const wer = corpusWordErrorRate(clips.map((c, i) => ({ reference: c.reference, hypothesis: results[i].text })));
    expect(wer.reference_words).toBe(71);
    expect(wer.wer).toBeLessThan(0.4);
    expect(results[1].text).toBe(BATCH_0880);
    expect(wordErrorRate(clip('0920').reference, results[3].text).wer).toBeLessThan(0.25);
  }, 60_000);

  it('resamples other rates to 16 kHz first', async () => {
    const c = clip('0880');
    const at48k = await sincResample(c.pcm, 16000, 48000);
    expect((await stt.transcribe(at48k, 48000)).text).toBe(BATCH_0880);
  });

  it('returns empty text for silence', async () => {
    expect((await stt.transcribe(new Int16Array(16000), 16000)).text).toBe('');
  });

  it('kills the recognizer when aborted, and cleans up', async () => {
    const long = new Int16Array(clips.reduce((n, c) => n + c.pcm.length, 0));
    let at = 0;
    for (const c of clips) {
      long.set(c.pcm, at);
      at += c.pcm.length;
    }
    const controller = new AbortController();
    const started = performance.now();
    const call = stt.transcribe(long, 16000, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('turn over')), 300);
    await expect(call).rejects.toThrow('turn over');
    expect(performance.now() - started).toBeLessThan(1500);
    await new Promise((r) => setTimeout(r, 100));
    expect(ownSphinxChildren()).toEqual([]);
  });

  it('refuses languages the en-us model does not speak', async () => {
    await expect(stt.transcribe(new Int16Array(100), 16000, { language: 'es' })).rejects.toThrow(
      new SpeechConfigError('sphinx', 'language', "the en-us model transcribes English only, got 'es'"),
    );
  });
});

describe('sphinx, persistent pocketsphinx_continuous (stream mode)', () => {
  let stt: SphinxStt;
  beforeAll(() => {
    stt = new SphinxStt(resolveSphinx(), 2, sincResample, 'stream');
  });
  afterAll(() => stt.close());

  it('times words (stream mode only) from the start of the audio given, not of the padded audio', async () => {
    const c = clip('0880');
    const r = await stt.transcribe(c.pcm, c.sampleRate);
    expect(r.words?.map((w) => w.word).join(' ')).toBe(r.text);
    expect(r.words![0].start_sec).toBeGreaterThan(0.1);
    expect(r.words![0].start_sec).toBeLessThan(0.4);
    expect(r.words!.at(-1)!.end_sec).toBeLessThanOrEqual(c.pcm.length / c.sampleRate + 0.05);
    expect(r.audioSeconds).toBeCloseTo(2.99, 2);
  });

  it('transcribes request after request in one process, each request getting only its own words', async () => {
    const pairs = [];
    for (const c of clips)
      pairs.push({ reference: c.reference, hypothesis: (await stt.transcribe(c.pcm, c.sampleRate)).text });
    const pid = stt.streamProcessId;
    expect(pid).toBeGreaterThan(0);
    expect(corpusWordErrorRate(pairs).wer).toBeLessThan(0.45);
    expect(pairs[1].hypothesis).toMatch(/^he was not .* young man$/);
    expect(pairs[4].hypothesis).toMatch(/^he might even have been made .*/);
    expect((await stt.transcribe(new Int16Array(8000), 16000)).text).toBe('');
    expect(stt.streamProcessId).toBe(pid);
  }, 60_000);

  it('keeps overlapping requests apart', async () => {
    const [a, b, c] = await Promise.all(
      [clip('0880'), clip('0920'), clip('0930')].map((x) => stt.transcribe(x.pcm, x.sampleRate)),
    );
    expect(a.text).toMatch(/young man$/);
    expect(b.text).toMatch(/^had he married/);
    expect(c.text).toMatch(/^he might even/);
    expect(a.words![0].start_sec).toBeLessThan(0.5);
    expect(c.words![0].start_sec).toBeLessThan(0.5);
  }, 60_000);

  it('falls back to a one-shot run when the process dies, and starts a new one for the next request', async () => {
    const c = clip('0880');
    await stt.transcribe(c.pcm, c.sampleRate);
    const pid = stt.streamProcessId!;
    const call = stt.transcribe(c.pcm, c.sampleRate);
    process.kill(pid, 'SIGKILL');
    expect((await call).text).toBe(BATCH_0880);
    await stt.transcribe(c.pcm, c.sampleRate);
    expect(stt.streamProcessId).not.toBe(pid);
  }, 60_000);

  it('ends its process on close', async () => {
    const own = new SphinxStt(resolveSphinx(), 0, sincResample, 'stream');
    await own.transcribe(new Int16Array(4000), 16000);
    const pid = own.streamProcessId!;
    await own.close();
    expect(ownSphinxChildren()).not.toContain(pid);
    await expect(own.transcribe(new Int16Array(10), 16000)).rejects.toThrow(SpeechProviderError);
  });
});

describe('sphinx installation checks', () => {
  it('names the apt packages when the program is missing', () => {
    expect(() => resolveSphinx({}, { PATH: '/nonexistent' })).toThrow(
      new DependencyMissingError(
        'PocketSphinx (pocketsphinx_continuous)',
        'install it: sudo apt-get install pocketsphinx pocketsphinx-en-us',
      ),
    );
    expect(() => resolveSphinx({ binary: '/opt/nothing/pocketsphinx_continuous' })).toThrow(
      'PocketSphinx (/opt/nothing/pocketsphinx_continuous) is missing; install it: sudo apt-get install pocketsphinx pocketsphinx-en-us',
    );
  });

  it('names the model package when the en-us model is missing', () => {
    const empty = mkdtempSync(join(tmpdir(), 'earshot-nomodel-'));
    try {
      expect(() => resolveSphinx({ modelDir: empty })).toThrow(
        `PocketSphinx en-us model (${join(empty, 'en-us')}) is missing; install it: sudo apt-get install pocketsphinx-en-us`,
      );
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });

  it('reports a recognizer that fails with its exit status', async () => {
    const broken = new SphinxStt({ ...resolveSphinx(), batchBinary: '/bin/false' }, 0, sincResample, 'once');
    await expect(broken.transcribe(new Int16Array(1600), 16000)).rejects.toThrow(
      /^sphinx: \/bin\/false exited with code 1/,
    );
  });
});
