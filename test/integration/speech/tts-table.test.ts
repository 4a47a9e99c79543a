import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedTts } from '../../../src/speech/cache.js';
import { UnknownProviderError } from '../../../src/speech/errors.js';
import { ModelStore } from '../../../src/speech/models/store.js';
import { FliteTts } from '../../../src/speech/tts/flite.js';
import { createTts, parseTtsSpec, TTS_PROVIDERS } from '../../../src/speech/tts/table.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-tts-table-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('TTS table', () => {
  it('holds flite and kokoro', () => {
    expect(Object.keys(TTS_PROVIDERS)).toEqual(['flite', 'kokoro']);
  });

  it('reads --tts NAME[:voice] and Pipecat user.speech blocks', () => {
    expect(parseTtsSpec('flite')).toEqual({ provider: 'flite' });
    expect(parseTtsSpec('Flite:rms')).toEqual({ provider: 'flite', voice: 'rms' });
    expect(
      parseTtsSpec({ service: 'kokoro', voice: 'af_heart', sample_rate: 24000, language: 'en', speed: 1.1 }),
    ).toEqual({
      provider: 'kokoro',
      voice: 'af_heart',
      options: { language: 'en', speed: 1.1 },
    });
    expect(() => parseTtsSpec({ voice: 'x' })).toThrow('tts: service: names no provider and no factory');
  });

  it('names the known providers for an unknown one', async () => {
    const err = await createTts('espeak', { noCache: true }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownProviderError);
    expect((err as Error).message).toBe("unknown TTS provider 'espeak' (known: flite, kokoro)");
  });

  it('wraps providers in the utterance cache under cacheDir, unless noCache', async () => {
    const cached = await createTts('flite:rms', { cacheDir: dir, modelStore: new ModelStore(dir) });
    try {
      expect(cached).toBeInstanceOf(CachedTts);
      expect(cached.defaultVoice).toBe('rms');
      await cached.synthesize('Hello.', { sampleRate: 16000 });
      expect(readdirSync(dir, { recursive: true }).some((f) => String(f).endsWith('.wav'))).toBe(true);
    } finally {
      await cached.close();
    }
    const plain = await createTts('flite', { noCache: true });
    expect(plain).toBeInstanceOf(FliteTts);
    await plain.close();
  });
});
