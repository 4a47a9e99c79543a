/**
 * Finding the user's utterances: microphone frames through the streaming
 * Silero VAD, with the energy gate refining the VAD's 32 ms frame edges to the
 * sample, and the utterance's audio cut out for the recognizer when the VAD
 * ends it.
 */
import type { Clock } from '../../core/clock.js';
import {
  audibleEnd,
  DEFAULT_GATE,
  firstAudibleSample,
  type SileroVad,
  StreamingVad,
  type VadEvent,
} from '../../audio/index.js';
import { MicHistory } from './mic-history.js';
import type { MicFrame } from './virtual-mic.js';

export interface VadSettings {
  /** Consecutive speech before the VAD confirms a start (default 96 ms: three Silero frames). */
  minSpeechMs?: number;
  /** Silence before it ends an utterance (default 320 ms). */
  minSilenceMs?: number;
  positiveThreshold?: number;
}

/** A point of the user's speech, in microphone samples, traced back to the incoming stream. */
export interface SpeechEdge {
  /** The VAD's frame edge (start of its first / end of its last speech frame), microphone samples. */
  vadSample: number;
  /**
   * The energy gate's edge (first audible sample / one past the last), microphone samples; null when nothing was
   * audible.
   */
  voicedSample: number | null;
  /** The same edges in the connection's incoming stream (null where the microphone generated the audio). */
  inVadSample: number | null;
  inVoicedSample: number | null;
  /** Play time of the voiced edge (start: the first audible sample; end: the instant the last one finished). */
  voicedMs: number | null;
  /** Arrival of the message that carried the voiced edge's sample. */
  receivedMs: number | null;
  /** When the VAD decided. */
  detectedMs: number;
}

export interface Utterance {
  start: SpeechEdge;
  end: SpeechEdge;
  /** The audio to transcribe: from a little before the start to a little after the end. */
  pcm: Int16Array;
  sampleRate: number;
}

export interface UtteranceDetectorOptions {
  model: SileroVad;
  sampleRate: number;
  clock: Clock;
  vad?: VadSettings;
  onSpeechStart: (edge: SpeechEdge) => void;
  onSpeechEnd: (utterance: Utterance) => void;
  /** Where a VAD failure goes (the detector then stops; the connection stays up). */
  onError: (err: unknown) => void;
}

/** How far before the VAD's first speech frame the gate looks for the onset. */
const LOOKBACK_MS = 500;
/** How far past the VAD's last speech frame the gate follows a decaying tail. */
const TAIL_MS = 100;
/** Audio kept around an utterance for the recognizer. */
const STT_LEAD_MS = 300;
const STT_TRAIL_MS = 200;

export class UtteranceDetector {
  private readonly history: MicHistory;
  private readonly msToSamples: (ms: number) => number;
  private speechStart: SpeechEdge | null = null;
  /** End of the previous utterance (microphone samples): the onset search never reaches back past it. */
  private previousEnd = 0;
  private failed = false;

  private constructor(
    private readonly vad: StreamingVad,
    private readonly options: UtteranceDetectorOptions,
  ) {
    this.history = new MicHistory(options.sampleRate);
    this.msToSamples = (ms) => Math.round((ms * options.sampleRate) / 1000);
  }

  static async create(options: UtteranceDetectorOptions): Promise<UtteranceDetector> {
    const vad = await StreamingVad.create(options.model, {
      sampleRate: options.sampleRate,
      minSpeechMs: options.vad?.minSpeechMs ?? 96,
      minSilenceMs: options.vad?.minSilenceMs ?? 320,
      ...(options.vad?.positiveThreshold !== undefined ? { positiveThreshold: options.vad.positiveThreshold } : {}),
    });
    return new UtteranceDetector(vad, options);
  }

  /** True between a confirmed start and its end. */
  get speaking(): boolean {
    return this.speechStart !== null;
  }

  feed(frame: MicFrame): void {
    if (this.failed) return;
    this.history.append(frame);
    this.vad.push(frame.samples).then(
      (events) => {
        for (const event of events) this.handle(event);
      },
      (err: unknown) => {
        this.failed = true;
        this.options.onError(err);
      },
    );
  }

  private handle(event: VadEvent): void {
    const detectedMs = this.options.clock.now();
    if (event.type === 'speech_start') {
      const from = Math.max(this.previousEnd, event.sample - this.msToSamples(LOOKBACK_MS));
      const { samples, from: base } = this.history.slice(from, this.history.end);
      const first = firstAudibleSample(samples, this.options.sampleRate, DEFAULT_GATE);
      const voiced = first < 0 ? null : base + first;
      this.speechStart = this.edge(event.sample, voiced, 'start', detectedMs);
      this.options.onSpeechStart(this.speechStart);
      return;
    }
    const start = this.speechStart ?? this.edge(event.sample, null, 'start', detectedMs);
    this.speechStart = null;
    const from = start.voicedSample ?? start.vadSample;
    const to = Math.min(this.history.end, event.sample + this.msToSamples(TAIL_MS));
    const { samples, from: base } = this.history.slice(from, to);
    const last = audibleEnd(samples, this.options.sampleRate, DEFAULT_GATE);
    const end = this.edge(event.sample, last < 0 ? null : base + last, 'end', detectedMs);
    this.previousEnd = Math.max(event.sample, end.voicedSample ?? 0);
    const cut = this.history.slice(
      Math.max(0, start.vadSample - this.msToSamples(STT_LEAD_MS)),
      Math.min(this.history.end, event.sample + this.msToSamples(STT_TRAIL_MS)),
    );
    this.options.onSpeechEnd({ start, end, pcm: cut.samples, sampleRate: this.options.sampleRate });
  }

  private edge(vadSample: number, voicedSample: number | null, kind: 'start' | 'end', detectedMs: number): SpeechEdge {
    const atVad = this.history.locate(vadSample, kind);
    const atVoiced = voicedSample === null ? null : this.history.locate(voicedSample, kind);
    return {
      vadSample,
      voicedSample,
      inVadSample: atVad?.inIndex ?? null,
      inVoicedSample: atVoiced?.inIndex ?? null,
      voicedMs: atVoiced?.atMs ?? null,
      receivedMs: atVoiced?.arrivedMs ?? null,
      detectedMs,
    };
  }
}
