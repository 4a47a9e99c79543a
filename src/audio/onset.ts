import { AudioOptionError, checkSampleRate } from './errors.js';
import { audibleEnd, DEFAULT_GATE, firstAudibleSample, type GateOptions } from './level.js';
import type { ResamplerFactory } from './resample.js';
import type { SileroVad } from './silero.js';
import { ChunkTimeline, SampleRing } from './timeline.js';
import { StreamingVad, type VadEvent } from './vad.js';

/**
 * When the bot's audio actually starts and stops, measured from the audio it
 * sent, independent of what it claims (`bot-started-speaking`).
 *
 * Every received sample gets a time on the session clock (`ChunkTimeline`:
 * chunks play back to back from the arrival of the chunk that opened the run;
 * a late chunk opens a new run). Silero VAD decides where speech is, frame by
 * frame (32 ms); the energy gate then finds the exact first and last audible
 * sample around the VAD's frames, following sound back (or forward) across
 * pauses shorter than `bridgeMs` — Silero typically confirms speech a frame or
 * two after the first phoneme, and the gate recovers those milliseconds.
 */
export interface OnsetDetectorOptions {
  vad: SileroVad;
  gate?: GateOptions;
  /** A chunk arriving more than this after the stream's expected end starts a new run (default 100 ms). */
  gapMs?: number;
  positiveThreshold?: number;
  negativeThreshold?: number;
  /** Speech must last this long to count as the bot talking (default 64 ms). */
  minSpeechMs?: number;
  /** Silence that ends the bot's audio (default 500 ms); pauses between sentences shorter than this do not. */
  minSilenceMs?: number;
  /** How far before the VAD's first speech frame the gate may look for the onset (default 500 ms). */
  lookbackMs?: number;
  /** Silence shorter than this inside sound does not split it (default 150 ms). */
  bridgeMs?: number;
  resampler?: ResamplerFactory;
}

export type OnsetEventType = 'bot_audio_started' | 'bot_audio_stopped';

export interface OnsetEvent {
  type: OnsetEventType;
  /** Session time of the first audible sample (started) or of the end of the last one (stopped). */
  atMs: number;
  /** That sample's index in the detector's stream (received audio plus silence standing in for gaps). */
  sample: number;
  sampleRate: number;
}

export interface PlacedChunk {
  /** Session time at which the chunk's first sample plays. */
  startMs: number;
  endMs: number;
  /** Onsets and offsets this chunk completed (an offset is known only after `minSilenceMs`). */
  events: OnsetEvent[];
}

interface StreamState {
  rate: number;
  timeline: ChunkTimeline;
  ring: SampleRing;
  vad: StreamingVad;
  speechStart: number;
  lastStopEnd: number;
  /** The next real chunk opens a new run: the run's tail is synthetic silence. */
  afterFill: boolean;
}

const FRAME_MS = 32;

export class OnsetDetector {
  private readonly opts: Required<Omit<OnsetDetectorOptions, 'resampler' | 'positiveThreshold' | 'negativeThreshold'>> &
    Pick<OnsetDetectorOptions, 'resampler' | 'positiveThreshold' | 'negativeThreshold'>;
  private stream: StreamState | null = null;
  private chain: Promise<unknown> = Promise.resolve();
  private isSpeaking = false;

  constructor(options: OnsetDetectorOptions) {
    this.opts = {
      vad: options.vad,
      gate: options.gate ?? DEFAULT_GATE,
      gapMs: options.gapMs ?? 100,
      minSpeechMs: options.minSpeechMs ?? 64,
      minSilenceMs: options.minSilenceMs ?? 500,
      lookbackMs: options.lookbackMs ?? 500,
      bridgeMs: options.bridgeMs ?? 150,
      resampler: options.resampler,
      positiveThreshold: options.positiveThreshold,
      negativeThreshold: options.negativeThreshold,
    };
    for (const k of ['gapMs', 'minSilenceMs', 'lookbackMs', 'bridgeMs'] as const) {
      if (!(this.opts[k] >= 0 && this.opts[k] <= 60_000))
        throw new AudioOptionError(k, this.opts[k], 'a duration from 0 to 60000 ms');
    }
  }

  /** Bot audio is audible now (between a `bot_audio_started` and its `bot_audio_stopped`). */
  get speaking(): boolean {
    return this.isSpeaking;
  }

  /** Places a received chunk on the session clock and runs detection on it. Calls are handled in order. */
  push(samples: Int16Array, sampleRate: number, arrivalMs: number): Promise<PlacedChunk> {
    try {
      checkSampleRate(sampleRate);
    } catch (err) {
      return Promise.reject(err);
    }
    return this.enqueue(async () => {
      const events: OnsetEvent[] = [];
      let st = this.stream;
      if (!st || st.rate !== sampleRate) {
        if (st) events.push(...(await this.closeStream(st)));
        st = this.stream = await this.openStream(sampleRate);
      }
      const gap = st.timeline.gapBefore(arrivalMs);
      if (gap > 0) events.push(...(await this.fillSilence(st, gap)));
      const startMs = st.timeline.append(samples.length, arrivalMs, st.afterFill);
      st.afterFill = false;
      st.ring.append(samples);
      events.push(...this.refine(st, await st.vad.push(samples)));
      st.timeline.forgetBefore(st.ring.start);
      return { startMs, endMs: startMs + (samples.length * 1000) / sampleRate, events };
    });
  }

  /**
   * No audio has arrived for a while: if the bot was audible, let the detector
   * hear the silence up to `nowMs` so it can report the stop (dated to the
   * last audible sample, not to now). Call it from a timer or before matching.
   */
  idle(nowMs: number): Promise<OnsetEvent[]> {
    return this.enqueue(async () => {
      const st = this.stream;
      const end = st?.timeline.endMs;
      if (!st || end === null || end === undefined || !st.vad.speaking) return [];
      const gap = nowMs - end;
      return gap > 0 ? this.fillSilence(st, gap) : [];
    });
  }

  /** The stream is over (the session ends): reports a stop still pending. */
  finish(): Promise<OnsetEvent[]> {
    return this.enqueue(async () => {
      const st = this.stream;
      this.stream = null;
      return st ? this.closeStream(st) : [];
    });
  }

  private enqueue<T>(job: () => Promise<T>): Promise<T> {
    const result = this.chain.then(job);
    this.chain = result.catch(() => undefined);
    return result;
  }

  private async openStream(rate: number): Promise<StreamState> {
    const vad = await StreamingVad.create(this.opts.vad, {
      sampleRate: rate,
      positiveThreshold: this.opts.positiveThreshold,
      negativeThreshold: this.opts.negativeThreshold,
      minSpeechMs: this.opts.minSpeechMs,
      minSilenceMs: this.opts.minSilenceMs,
      resampler: this.opts.resampler,
    });
    const o = this.opts;
    const holdMs = o.lookbackMs + o.minSilenceMs + o.minSpeechMs + 2 * o.bridgeMs + 4 * FRAME_MS + 500;
    return {
      rate,
      timeline: new ChunkTimeline(rate, o.gapMs),
      ring: new SampleRing(Math.ceil((holdMs * rate) / 1000)),
      vad,
      speechStart: 0,
      lastStopEnd: 0,
      afterFill: false,
    };
  }

  private async closeStream(st: StreamState): Promise<OnsetEvent[]> {
    return this.refine(st, await st.vad.flush());
  }

  /** Silence stands in for a gap, long enough for the VAD to end speech; then the next chunk opens a new run. */
  private async fillSilence(st: StreamState, gapMs: number): Promise<OnsetEvent[]> {
    // Silero keeps some memory: a few frames after speech can still score high, hence the margin.
    const fillMs = Math.min(gapMs, this.opts.minSilenceMs + 16 * FRAME_MS);
    const count = Math.round((fillMs * st.rate) / 1000);
    st.afterFill = true;
    if (count <= 0) return [];
    st.timeline.extend(count);
    st.ring.appendSilence(count);
    return this.refine(st, await st.vad.push(new Int16Array(count)));
  }

  private refine(st: StreamState, vadEvents: VadEvent[]): OnsetEvent[] {
    const out: OnsetEvent[] = [];
    const rate = st.rate;
    const ms = (x: number): number => Math.round((x * rate) / 1000);
    for (const e of vadEvents) {
      if (e.type === 'speech_start') {
        const lower = Math.max(st.lastStopEnd, e.sample - ms(this.opts.lookbackMs));
        const { from, samples } = st.ring.slice(lower, e.sample + ms(this.opts.minSpeechMs + 2 * FRAME_MS));
        const at = this.soundStart(samples, rate, e.sample - from);
        const sample = at === null ? e.sample : from + at;
        st.speechStart = sample;
        this.isSpeaking = true;
        out.push({ type: 'bot_audio_started', atMs: st.timeline.timeOf(sample), sample, sampleRate: rate });
      } else {
        const lower = Math.max(st.speechStart, e.sample - ms(this.opts.lookbackMs));
        const { from, samples } = st.ring.slice(lower, st.ring.endSample);
        const at = this.soundEnd(samples, rate, e.sample - from);
        const sample = Math.max(st.speechStart, at === null ? e.sample : from + at);
        st.lastStopEnd = sample;
        this.isSpeaking = false;
        out.push({ type: 'bot_audio_stopped', atMs: st.timeline.timeOf(sample), sample, sampleRate: rate });
      }
    }
    return out;
  }

  /**
   * First audible sample of the sound the VAD found at `vadAt`, followed back across pauses shorter than `bridgeMs`.
   */
  private soundStart(pcm: Int16Array, rate: number, vadAt: number): number | null {
    const { gate } = this.opts;
    const w = Math.max(1, Math.round((gate.windowMs * rate) / 1000));
    const reach = Math.round((this.opts.bridgeMs * rate) / 1000) + w;
    let cursor = firstAudibleSample(pcm, rate, gate, Math.max(0, vadAt));
    if (cursor < 0) cursor = firstAudibleSample(pcm, rate, gate);
    if (cursor < 0) return null;
    for (;;) {
      const earlier = firstAudibleSample(
        pcm,
        rate,
        gate,
        Math.max(0, cursor - reach),
        Math.min(pcm.length, cursor + w),
      );
      if (earlier < 0 || earlier >= cursor) return cursor;
      cursor = earlier;
    }
  }

  /**
   * One past the last audible sample of the sound ending near `vadAt`, followed on across pauses shorter than
   * `bridgeMs`.
   */
  private soundEnd(pcm: Int16Array, rate: number, vadAt: number): number | null {
    const { gate } = this.opts;
    const w = Math.max(1, Math.round((gate.windowMs * rate) / 1000));
    const reach = Math.round((this.opts.bridgeMs * rate) / 1000) + w;
    let cursor = audibleEnd(pcm, rate, gate, 0, Math.min(pcm.length, Math.max(0, vadAt) + w));
    if (cursor < 0) cursor = audibleEnd(pcm, rate, gate);
    if (cursor < 0) return null;
    for (;;) {
      const later = audibleEnd(pcm, rate, gate, Math.max(0, cursor - w), Math.min(pcm.length, cursor + reach));
      if (later <= cursor) return cursor;
      cursor = later;
    }
  }
}
