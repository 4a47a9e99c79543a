/**
 * A connection's incoming audio: `raw-audio` messages or protobuf
 * AudioRawFrames, downmixed to mono, converted to the stream's first sample
 * rate if a client changes rate midway, played through the virtual
 * microphone into the utterance detector (VAD). The VAD model loads on the first audio;
 * frames played meanwhile wait for it, in order.
 */
import type { Clock } from '../../core/clock.js';
import { SystemTimerDriver } from '../../core/timers.js';
import { checkSampleRate, downmix, resample } from '../../audio/index.js';
import type { SpeechModels } from './speech-models.js';
import { UtteranceDetector, type SpeechEdge, type Utterance, type VadSettings } from './utterance-detector.js';
import { type MicFrame, VirtualMic } from './virtual-mic.js';

export interface IncomingAudioOptions {
  clock: Clock;
  models: SpeechModels;
  vad?: VadSettings;
  onSpeechStart: (edge: SpeechEdge) => void;
  onSpeechEnd: (utterance: Utterance) => void;
  onError: (err: unknown) => void;
}

export class IncomingAudio {
  private mic: VirtualMic | null = null;
  private detector: UtteranceDetector | null = null;
  private waiting: MicFrame[] = [];
  /** Conversions of a different rate finish in order: later audio waits behind them. */
  private tail: Promise<void> = Promise.resolve();
  private converting = 0;
  private closed = false;

  constructor(private readonly options: IncomingAudioOptions) {}

  /** The stream's sample rate (its first message's), or null before any audio. */
  get sampleRate(): number | null {
    return this.mic?.sampleRate ?? null;
  }

  /** Samples received so far: the incoming stream's length. */
  get samplesIn(): number {
    return this.mic?.samplesIn ?? 0;
  }

  push(pcm: Int16Array, sampleRate: number, numChannels: number, arrivedMs: number): void {
    if (this.closed) return;
    try {
      checkSampleRate(sampleRate);
    } catch (err) {
      // A client sending nonsense rates is told so (once per message) and not heard.
      this.options.onError(err);
      return;
    }
    const mono = numChannels > 1 ? downmix(pcm, numChannels) : pcm;
    const mic = this.mic ?? this.start(sampleRate);
    if (sampleRate === mic.sampleRate && this.converting === 0) {
      mic.push(mono, arrivedMs);
      return;
    }
    this.converting++;
    this.tail = this.tail.then(async () => {
      try {
        const converted = sampleRate === mic.sampleRate ? mono : await resample(mono, sampleRate, mic.sampleRate);
        if (!this.closed) mic.push(converted, arrivedMs);
      } catch (err) {
        this.options.onError(err);
      } finally {
        this.converting--;
      }
    });
  }

  close(): void {
    this.closed = true;
    this.mic?.close();
    this.waiting = [];
  }

  private start(sampleRate: number): VirtualMic {
    const { clock, models } = this.options;
    // Plain timers: the microphone's wake-ups only pace uploads and fill pauses with silence, where a
    // millisecond of jitter changes nothing, so it does not pay for the pacer's precise (polling) driver.
    const mic = new VirtualMic({
      sampleRate,
      clock,
      timers: new SystemTimerDriver(clock),
      onFrame: (f) => this.onFrame(f),
    });
    this.mic = mic;
    models.warm();
    models
      .vad()
      .then((model) =>
        UtteranceDetector.create({
          model,
          sampleRate,
          clock,
          vad: this.options.vad,
          onSpeechStart: (edge) => this.options.onSpeechStart(edge),
          onSpeechEnd: (u) => this.options.onSpeechEnd(u),
          onError: (err) => this.options.onError(err),
        }),
      )
      .then(
        (detector) => {
          if (this.closed) return;
          this.detector = detector;
          for (const f of this.waiting.splice(0)) detector.feed(f);
        },
        (err: unknown) => this.options.onError(err),
      );
    return mic;
  }

  private onFrame(frame: MicFrame): void {
    if (this.detector) this.detector.feed(frame);
    else if (!this.closed) this.waiting.push(frame);
  }
}
