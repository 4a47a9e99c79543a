/**
 * The bot's TTS: Flite through src/speech (synthesis on a worker thread, the
 * on-disk utterance cache), plus a small in-memory cache in front, since the
 * bot says the same sentences over and over (the greeting on every connection).
 * Created on first use: a text-only bot never starts Flite.
 */
import { abortable } from '../../core/abort.js';
import { createTts, type TtsProvider } from '../../speech/index.js';

export interface BotTtsOptions {
  /** Flite voice (slt, rms, awb, kal, kal16). */
  voice: string;
  sampleRate: number;
  cacheDir?: string;
  noCache?: boolean;
  /** Sentences kept in memory (default 256, about 10 minutes of speech at 16 kHz, ~20 MB). */
  memoryEntries?: number;
}

export class BotTts {
  private provider: Promise<TtsProvider> | null = null;
  private readonly memory = new Map<string, Promise<Int16Array>>();
  private readonly maxEntries: number;

  constructor(readonly options: BotTtsOptions) {
    this.maxEntries = options.memoryEntries ?? 256;
  }

  get name(): string {
    return `flite:${this.options.voice}`;
  }

  /** Starts Flite's worker and checks the voice now rather than on the first reply. */
  async warm(): Promise<void> {
    await this.tts();
  }

  /** 16-bit mono PCM at `sampleRate`. Aborting stops waiting; the sentence still lands in the cache. */
  async synthesize(text: string, signal?: AbortSignal): Promise<Int16Array> {
    let job = this.memory.get(text);
    if (job) {
      // Most recently used last, so eviction drops the oldest.
      this.memory.delete(text);
      this.memory.set(text, job);
    } else {
      job = this.tts().then((tts) =>
        tts.synthesize(text, { sampleRate: this.options.sampleRate, voice: this.options.voice }).then((r) => r.pcm),
      );
      this.memory.set(text, job);
      job.catch(() => this.memory.delete(text));
      while (this.memory.size > this.maxEntries) this.memory.delete(this.memory.keys().next().value as string);
    }
    return abortable(job, signal);
  }

  async close(): Promise<void> {
    const provider = this.provider;
    this.provider = null;
    this.memory.clear();
    if (provider) await (await provider.catch(() => null))?.close();
  }

  private tts(): Promise<TtsProvider> {
    this.provider ??= createTts(
      { provider: 'flite', voice: this.options.voice },
      { cacheDir: this.options.cacheDir, noCache: this.options.noCache },
    );
    return this.provider;
  }
}
