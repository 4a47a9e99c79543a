import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CachedTts } from './cache.js';
import { CodeNotAllowedError, FactoryError, parseFactoryRef } from '../core/code-hooks.js';
import { createStt } from './stt/table.js';
import { createTts } from './tts/table.js';

/**
 * `factory:` lets a scenario bring its own TTS or STT as a JavaScript module.
 * That is code from the scenario: it runs only with the user's consent.
 */
let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-factory-'));
  // Importing the module leaves a mark, so a test can tell whether it ran.
  writeFileSync(
    join(dir, 'voices.mjs'),
    `import { writeFileSync } from 'node:fs';
writeFileSync(new URL('./imported.mark', import.meta.url), 'yes');
export function makeTts(config, context) {
  return {
    name: 'tone',
    synthesize: async (text, o) => ({ pcm: new Int16Array(text.length * 10).fill(config.level ?? 1000), sampleRate: o.sampleRate }),
    seenConfig: config,
    modelsDir: context.modelsDir,
  };
}
export function makeStt(config) {
  return { transcribe: async (pcm, sampleRate) => \`\${pcm.length} samples at \${sampleRate} Hz, padding \${config.padding_secs}\` };
}
export const notAFunction = 42;
export function makesNothing() { return { hello: true }; }
export default function () { throw new Error('no credentials for the cloud voice'); }
`,
  );
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('factory hook', () => {
  it('refuses to import scenario code without --allow-code, and never runs it', async () => {
    const err = await createTts({ factory: './voices.mjs#makeTts' }, { baseDir: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CodeNotAllowedError);
    expect((err as Error).message).toBe(
      "factory './voices.mjs#makeTts' runs code from the scenario; pass --allow-code to allow it",
    );
    await expect(createStt({ factory: './voices.mjs#makeStt' }, { baseDir: dir })).rejects.toThrow(CodeNotAllowedError);
    expect(existsSync(join(dir, 'imported.mark'))).toBe(false);
  });

  it('builds a custom TTS with the scenario block as its config, cached like the built-in ones', async () => {
    const cacheDir = join(dir, 'cache');
    const tts = await createTts(
      { factory: './voices.mjs#makeTts', level: 777 },
      { baseDir: dir, allowCode: true, cacheDir },
    );
    expect(tts).toBeInstanceOf(CachedTts);
    expect(tts.name).toBe('tone');
    const r = await tts.synthesize('hello', { sampleRate: 8000 });
    expect(r).toEqual({ pcm: new Int16Array(50).fill(777), sampleRate: 8000 });
    await tts.synthesize('hello', { sampleRate: 8000 });
    expect((tts as CachedTts).stats).toEqual({ hits: 1, misses: 1 });
    expect(existsSync(join(dir, 'imported.mark'))).toBe(true);
  });

  it('gives a custom STT the same 16 kHz padded audio as the built-in ones', async () => {
    const stt = await createStt(
      { factory: './voices.mjs#makeStt', padding_secs: 0.5 },
      { baseDir: dir, allowCode: true },
    );
    const r = await stt.transcribe(new Int16Array(8000), 8000);
    expect(r.text).toBe('32000 samples at 16000 Hz, padding 0.5');
    expect(r.audioSeconds).toBe(1);
  });

  it('explains what is wrong with a factory that cannot be used', async () => {
    const make = (ref: string) =>
      createTts({ factory: ref }, { baseDir: dir, allowCode: true, noCache: true }).catch((e: unknown) => e);
    const cases: Array<[string, string]> = [
      ['./missing.mjs#x', `factory './missing.mjs#x': module not found: ${join(dir, 'missing.mjs')}`],
      [
        './voices.mjs#notAFunction',
        "factory './voices.mjs#notAFunction': export 'notAFunction' is not a function (functions exported: default, makeStt, makeTts, makesNothing)",
      ],
      [
        './voices.mjs#makesNothing',
        "factory './voices.mjs#makesNothing': must return an object with a synthesize() method",
      ],
      ['./voices.mjs', "factory './voices.mjs': threw: no credentials for the cloud voice"],
      [
        'some-package#make',
        "factory 'some-package#make': must be a file path starting with './', '../' or '/' (package names are not resolved)",
      ],
    ];
    for (const [ref, message] of cases) {
      const err = await make(ref);
      expect(err).toBeInstanceOf(FactoryError);
      expect((err as Error).message).toBe(message);
    }
  });

  it('resolves relative paths against the scenario root and defaults to the default export', () => {
    expect(parseFactoryRef('../hooks/tts.js#create', '/proj/evals')).toEqual({
      ref: '../hooks/tts.js#create',
      path: '/proj/hooks/tts.js',
      exportName: 'create',
    });
    expect(parseFactoryRef('/abs/tts.mjs', '/x').exportName).toBe('default');
  });
});
