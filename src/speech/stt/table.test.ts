import { describe, expect, it } from 'vitest';
import { SpeechConfigError, UnknownProviderError } from '../errors.js';
import { SphinxStt } from './sphinx.js';
import { createStt, parseSttSpec, STT_PROVIDERS } from './table.js';

describe('STT table', () => {
  it('holds sphinx, whisper and moonshine', () => {
    expect(Object.keys(STT_PROVIDERS)).toEqual(['sphinx', 'whisper', 'moonshine']);
  });

  it('reads --stt NAME[:model] and Pipecat judge.transcription blocks', () => {
    expect(parseSttSpec('sphinx')).toEqual({ provider: 'sphinx' });
    expect(parseSttSpec('whisper:tiny.en')).toEqual({ provider: 'whisper', model: 'tiny.en' });
    expect(parseSttSpec({ service: 'whisper', model: 'base', language: 'es', padding_secs: 1, device: 'cpu' })).toEqual(
      {
        provider: 'whisper',
        model: 'base',
        language: 'es',
        padding_secs: 1,
        options: { device: 'cpu' },
      },
    );
    // Pipecat's default transcription service.
    expect(parseSttSpec({ model: 'tiny' }).provider).toBe('moonshine');
    expect(() => parseSttSpec({ service: 'sphinx', padding_secs: -1 })).toThrow(
      new SpeechConfigError('sphinx', 'padding_secs', 'expected seconds from 0 to 30, got -1'),
    );
  });

  it('names the known providers for an unknown one', async () => {
    await expect(createStt('deepgram')).rejects.toThrow(
      new UnknownProviderError('stt', 'deepgram', ['sphinx', 'whisper', 'moonshine']),
    );
    await expect(createStt('deepgram')).rejects.toThrow(
      "unknown STT provider 'deepgram' (known: sphinx, whisper, moonshine)",
    );
  });

  it('builds sphinx with the persistent option, and refuses models and languages it does not have', async () => {
    const stt = await createStt({ service: 'sphinx', persistent: true, padding_secs: 0 });
    expect(stt).toBeInstanceOf(SphinxStt);
    expect((stt as SphinxStt).mode).toBe('stream');
    await stt.close();
    await expect(createStt('sphinx:fr-fr')).rejects.toThrow("sphinx: model: only 'en-us' is available, got 'fr-fr'");
    await expect(createStt({ service: 'sphinx', language: 'it' })).rejects.toThrow(
      "sphinx: language: the en-us model transcribes English only, got 'it'",
    );
  });
});
