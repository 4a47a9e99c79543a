import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { decodeWav, downmixToMono, encodeWav } from '../audio/index.js';
import type { SynthesisResult, SynthesizeOptions, TtsProvider } from './tts/types.js';

/** Root of earshot's caches; the utterance cache is its `tts/` folder. */
export const CACHE_DIR_ENV = 'EARSHOT_CACHE_DIR';

/** `$EARSHOT_CACHE_DIR/tts`, else `$XDG_CACHE_HOME/earshot/tts`, else `~/.cache/earshot/tts`. */
export function defaultTtsCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env[CACHE_DIR_ENV]) return join(resolve(env[CACHE_DIR_ENV]), 'tts');
  const base = env.XDG_CACHE_HOME ? resolve(env.XDG_CACHE_HOME) : join(homedir(), '.cache');
  return join(base, 'earshot', 'tts');
}

/** Everything that decides what a synthesized utterance sounds like. */
export interface UtteranceKey {
  provider: string;
  voice: string;
  text: string;
  sampleRate: number;
  options: Record<string, unknown>;
}

/** Bump when the stored format or the meaning of a key changes: old entries then miss. */
const KEY_VERSION = 1;

/**
 * Synthesized utterances on disk, one WAV per content hash (so a person can
 * listen to what was sent). Writes go to a unique temporary name and are
 * renamed into place, so concurrent runs sharing a cache never read half a file.
 */
export class UtteranceCache {
  readonly dir: string;

  constructor(dir: string) {
    this.dir = resolve(dir);
  }

  static hash(key: UtteranceKey): string {
    return createHash('sha256')
      .update(canonicalJson({ v: KEY_VERSION, ...key }))
      .digest('hex');
  }

  pathFor(key: UtteranceKey): string {
    const hash = UtteranceCache.hash(key);
    return join(this.dir, hash.slice(0, 2), `${hash}.wav`);
  }

  /** The stored utterance, or undefined when absent or unreadable (then it is synthesized again and overwritten). */
  async get(key: UtteranceKey): Promise<SynthesisResult | undefined> {
    let bytes: Buffer;
    try {
      bytes = await readFile(this.pathFor(key));
    } catch {
      return undefined;
    }
    try {
      const wav = downmixToMono(decodeWav(bytes));
      if (wav.sampleRate !== key.sampleRate) return undefined;
      return { pcm: wav.samples, sampleRate: wav.sampleRate };
    } catch {
      return undefined;
    }
  }

  async put(key: UtteranceKey, value: SynthesisResult): Promise<void> {
    const path = this.pathFor(key);
    await mkdir(dirname(path), { recursive: true });
    const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      await writeFile(tmp, encodeWav(value.pcm, value.sampleRate));
      await rename(tmp, path);
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    }
  }
}

export interface CacheStats {
  hits: number;
  misses: number;
}

/** A TTS provider that answers from the cache when it can and fills it when it cannot. */
export class CachedTts implements TtsProvider {
  readonly stats: CacheStats = { hits: 0, misses: 0 };
  private readonly inFlight = new Map<string, Promise<SynthesisResult>>();

  constructor(
    readonly inner: TtsProvider,
    readonly cache: UtteranceCache,
  ) {}

  get name(): string {
    return this.inner.name;
  }
  get defaultVoice(): string {
    return this.inner.defaultVoice;
  }
  get cacheKeyOptions(): Record<string, unknown> {
    return this.inner.cacheKeyOptions;
  }
  get origin(): string | undefined {
    return this.inner.origin;
  }

  keyFor(text: string, options: SynthesizeOptions): UtteranceKey {
    return {
      provider: this.inner.name,
      voice: options.voice ?? this.inner.defaultVoice,
      text,
      sampleRate: options.sampleRate,
      options: this.inner.cacheKeyOptions,
    };
  }

  async synthesize(text: string, options: SynthesizeOptions): Promise<SynthesisResult> {
    options.signal?.throwIfAborted();
    const key = this.keyFor(text, options);
    const hash = UtteranceCache.hash(key);
    const cached = await this.cache.get(key);
    if (cached) {
      this.stats.hits++;
      return cached;
    }
    // Two turns saying the same thing at once synthesize it once.
    const running = this.inFlight.get(hash);
    if (running) {
      try {
        const result = await running;
        this.stats.hits++;
        return result;
      } catch (err) {
        // The other caller may have been aborted; only our own abort ends our call.
        if (options.signal?.aborted) throw err;
      }
    }
    this.stats.misses++;
    const job = (async () => {
      const result = await this.inner.synthesize(text, options);
      await this.cache.put(key, result);
      return result;
    })();
    this.inFlight.set(hash, job);
    try {
      return await job;
    } finally {
      if (this.inFlight.get(hash) === job) this.inFlight.delete(hash);
    }
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}

/** JSON with object keys sorted at every level, so equal options hash equally. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value && typeof value === 'object') {
    const obj = value as Record<string, unknown>;
    return Object.fromEntries(
      Object.keys(obj)
        .sort()
        .filter((k) => obj[k] !== undefined)
        .map((k) => [k, sortKeys(obj[k])]),
    );
  }
  return value;
}
