import { AudioOptionError, checkSampleRate } from './errors.js';
import { createResampler, type ResamplerFactory, type StreamResampler } from './resample.js';
import { SILERO_FRAME_SAMPLES, SILERO_SAMPLE_RATE, type SileroState, type SileroVad } from './silero.js';

/**
 * Streaming voice activity detection: audio in at any rate, in chunks of any
 * size; speech start and end out, each at a sample position of the input.
 *
 * Decisions follow the Silero/vad-node rules: a frame at or above
 * `positiveThreshold` is speech; once speaking, only frames below
 * `negativeThreshold` count towards the end (hysteresis), and speech ends after
 * `minSilenceMs` of them without a speech frame in between (redemption). Unlike
 * vad-node's FrameProcessor, a start is only reported once `minSpeechMs` of
 * consecutive speech frames confirm it (a cough never starts a turn and then
 * takes it back), it is dated to the first of those frames, and nothing
 * buffers the audio, so memory stays flat however long someone talks.
 */
export interface VadOptions {
  /** Rate of the audio pushed in; it is resampled to 16 kHz for the model. */
  sampleRate: number;
  positiveThreshold?: number;
  negativeThreshold?: number;
  /** Consecutive speech needed before a start is reported (rounded up to 32 ms frames). */
  minSpeechMs?: number;
  /** Non-speech needed before an end is reported (rounded up to 32 ms frames). */
  minSilenceMs?: number;
  /** Called for every 32 ms model frame, in order. */
  onFrame?: (frame: VadFrame) => void;
  resampler?: ResamplerFactory;
}

export interface VadFrame {
  /** Input-rate sample range the frame covers, counted from the first sample pushed. */
  startSample: number;
  endSample: number;
  probability: number;
  /** The detector's state after this frame. */
  speaking: boolean;
}

export type VadEvent =
  /** `sample`: first input sample of the first frame of the confirmed speech run. */
  | { type: 'speech_start'; sample: number }
  /** `sample`: one past the last input sample of the last speech frame. */
  | { type: 'speech_end'; sample: number };

export const DEFAULT_VAD = {
  positiveThreshold: 0.5,
  negativeThreshold: 0.35,
  minSpeechMs: 96,
  minSilenceMs: 320,
} as const;

const FRAME_MS = (SILERO_FRAME_SAMPLES * 1000) / SILERO_SAMPLE_RATE;

export class StreamingVad {
  readonly sampleRate: number;
  private readonly pos: number;
  private readonly neg: number;
  private readonly minSpeechFrames: number;
  private readonly minSilenceFrames: number;
  private readonly onFrame: ((f: VadFrame) => void) | undefined;
  private readonly state: SileroState;
  private readonly frame = new Float32Array(SILERO_FRAME_SAMPLES);
  private fill = 0;
  private frameIndex = 0;
  private inputSamples = 0;
  private isSpeaking = false;
  private runStartFrame = -1;
  private runFrames = 0;
  private silenceFrames = 0;
  private lastSpeechFrame = -1;
  private chain: Promise<unknown> = Promise.resolve();
  private ended = false;

  private constructor(
    private readonly model: SileroVad,
    private readonly resampler: StreamResampler,
    options: VadOptions,
  ) {
    this.sampleRate = options.sampleRate;
    this.pos = options.positiveThreshold ?? DEFAULT_VAD.positiveThreshold;
    this.neg =
      options.negativeThreshold ??
      Math.min(this.pos, DEFAULT_VAD.negativeThreshold + (this.pos - DEFAULT_VAD.positiveThreshold));
    if (!(this.pos > 0 && this.pos < 1))
      throw new AudioOptionError('positiveThreshold', this.pos, 'a probability between 0 and 1');
    if (!(this.neg >= 0 && this.neg <= this.pos))
      throw new AudioOptionError('negativeThreshold', this.neg, `0..positiveThreshold (${this.pos})`);
    const minSpeechMs = options.minSpeechMs ?? DEFAULT_VAD.minSpeechMs;
    const minSilenceMs = options.minSilenceMs ?? DEFAULT_VAD.minSilenceMs;
    if (!(minSpeechMs >= 0)) throw new AudioOptionError('minSpeechMs', minSpeechMs, 'a duration of 0 ms or more');
    if (!(minSilenceMs >= 0)) throw new AudioOptionError('minSilenceMs', minSilenceMs, 'a duration of 0 ms or more');
    this.minSpeechFrames = Math.max(1, Math.ceil(minSpeechMs / FRAME_MS - 1e-9));
    this.minSilenceFrames = Math.max(1, Math.ceil(minSilenceMs / FRAME_MS - 1e-9));
    this.onFrame = options.onFrame;
    this.state = model.createState();
  }

  static async create(model: SileroVad, options: VadOptions): Promise<StreamingVad> {
    checkSampleRate(options.sampleRate);
    const factory = options.resampler ?? createResampler;
    // Medium quality: the model only needs speech band; a third of best's CPU per stream.
    const resampler = await factory(options.sampleRate, SILERO_SAMPLE_RATE, { quality: 'medium' });
    return new StreamingVad(model, resampler, options);
  }

  get speaking(): boolean {
    return this.isSpeaking;
  }

  /** Input samples pushed so far. */
  get samplesIn(): number {
    return this.inputSamples;
  }

  /** Feeds a chunk; resolves with the events it completed. Calls are processed in order even if not awaited. */
  push(pcm: Int16Array): Promise<VadEvent[]> {
    if (this.ended)
      return Promise.reject(new AudioOptionError('vad', 'flushed', 'a VAD stream that has not been flushed'));
    this.inputSamples += pcm.length;
    const at16k = this.resampler.process(pcm);
    return this.enqueue(() => this.consume(at16k));
  }

  /** Ends the stream: runs the last partial frame and reports an end if speech was still going on. */
  flush(): Promise<VadEvent[]> {
    if (this.ended) return Promise.resolve([]);
    this.ended = true;
    const tail = this.resampler.flush();
    this.resampler.close();
    return this.enqueue(async () => {
      const events = await this.consume(tail);
      if (this.fill > 0) {
        this.frame.fill(0, this.fill);
        this.fill = 0;
        events.push(...(await this.runFrame()));
      }
      if (this.isSpeaking) {
        this.isSpeaking = false;
        events.push({ type: 'speech_end', sample: this.toInput(this.lastSpeechFrame + 1) });
      }
      return events;
    });
  }

  private enqueue(job: () => Promise<VadEvent[]>): Promise<VadEvent[]> {
    const result = this.chain.then(job);
    this.chain = result.catch(() => undefined);
    return result;
  }

  private async consume(at16k: Int16Array): Promise<VadEvent[]> {
    const events: VadEvent[] = [];
    for (let i = 0; i < at16k.length; i++) {
      this.frame[this.fill++] = at16k[i] / 32768;
      if (this.fill === SILERO_FRAME_SAMPLES) {
        this.fill = 0;
        events.push(...(await this.runFrame()));
      }
    }
    return events;
  }

  private async runFrame(): Promise<VadEvent[]> {
    const f = this.frameIndex++;
    const p = await this.model.probability(this.frame, this.state);
    const events = this.decide(f, p);
    this.onFrame?.({
      startSample: this.toInput(f),
      endSample: this.toInput(f + 1),
      probability: p,
      speaking: this.isSpeaking,
    });
    return events;
  }

  private decide(f: number, p: number): VadEvent[] {
    if (!this.isSpeaking) {
      if (p >= this.pos) {
        if (this.runFrames === 0) this.runStartFrame = f;
        this.runFrames++;
        if (this.runFrames >= this.minSpeechFrames) {
          this.isSpeaking = true;
          this.silenceFrames = 0;
          this.lastSpeechFrame = f;
          this.runFrames = 0;
          return [{ type: 'speech_start', sample: this.toInput(this.runStartFrame) }];
        }
      } else this.runFrames = 0;
      return [];
    }
    if (p >= this.pos) {
      this.silenceFrames = 0;
      this.lastSpeechFrame = f;
    } else if (p < this.neg && ++this.silenceFrames >= this.minSilenceFrames) {
      this.isSpeaking = false;
      this.silenceFrames = 0;
      return [{ type: 'speech_end', sample: this.toInput(this.lastSpeechFrame + 1) }];
    }
    return [];
  }

  /** Input-rate sample index at the start of 16 kHz model frame `f` (the resampler keeps time alignment). */
  private toInput(f: number): number {
    return Math.round((f * SILERO_FRAME_SAMPLES * this.sampleRate) / SILERO_SAMPLE_RATE);
  }
}
