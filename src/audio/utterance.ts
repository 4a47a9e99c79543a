import { audibleBounds, type AudibleBounds, type GateOptions } from './level.js';

export interface UtteranceOptions {
  /** Earliest due time of the first frame (e.g. "800 ms after the bot's audio started"). */
  notBeforeMs?: number;
  label?: string;
  /** Energy gate for the voiced span; defaults to the stream's. */
  gate?: GateOptions;
  /**
   * The voiced span, when the samples' own energy would mislead the gate
   * (background noise added over the speech: the span is the clean voice's).
   */
  voiced?: AudibleBounds | null;
}

export type UtteranceState = 'queued' | 'playing' | 'completed' | 'cancelled';

/**
 * When an utterance was on the air, on the session clock. Due times are the
 * ideal microphone timeline (what latency metrics anchor on); sent times are
 * when frames were actually handed to the wire.
 */
export interface UtteranceTiming {
  id: number;
  label: string | null;
  state: UtteranceState;
  sampleRate: number;
  samplesTotal: number;
  /** Samples put into frames so far (all of them once completed; fewer when cancelled). */
  samplesSent: number;
  firstFrameDueMs: number | null;
  lastFrameDueMs: number | null;
  firstSentMs: number | null;
  lastSentMs: number | null;
  /**
   * When the first voiced sample (the energy gate's first audible one) played:
   * its due time, plus the lateness of the frame that carried it when that frame
   * left late (the bot cannot hear a sample before it is sent). Null if none was sent.
   */
  utteranceStartMs: number | null;
  /**
   * When the end of the last voiced sample that was sent played — "end of user
   * speech" — due time plus its frame's lateness, as for the start. For a cut
   * utterance, where it was cut.
   */
  utteranceEndMs: number | null;
}

/** One queued piece of speech on a `MicStream`. Created by `MicStream.enqueue`. */
export class Utterance {
  readonly label: string | null;
  /** The voiced span within `samples`, found once at enqueue time. */
  readonly voiced: AudibleBounds | null;
  /** Resolves when the first frame is sent, or when the utterance is cancelled before that. Never rejects. */
  readonly started: Promise<UtteranceTiming>;
  /** Resolves when the last frame is sent, or on cancellation. Never rejects. */
  readonly finished: Promise<UtteranceTiming>;

  /** @internal */ state: UtteranceState = 'queued';
  /** @internal */ offset = 0;
  /** @internal */ firstFrameDueMs: number | null = null;
  /** @internal */ lastFrameDueMs: number | null = null;
  private firstSentMs: number | null = null;
  private lastSentMs: number | null = null;
  /** Samples covered by frames already marked sent, and how late the frames holding the voiced edges left. */
  private markedOffset = 0;
  private startLatenessMs = 0;
  private endLatenessMs = 0;
  private resolveStarted!: (t: UtteranceTiming) => void;
  private resolveFinished!: (t: UtteranceTiming) => void;

  /** @internal */
  constructor(
    readonly id: number,
    readonly samples: Int16Array,
    readonly sampleRate: number,
    /** @internal */ readonly eligibleAtMs: number,
    options: UtteranceOptions,
    gate: GateOptions,
    private readonly onCancel: (u: Utterance) => void,
  ) {
    this.label = options.label ?? null;
    this.voiced = options.voiced !== undefined ? options.voiced : audibleBounds(samples, sampleRate, gate);
    this.started = new Promise((resolve) => (this.resolveStarted = resolve));
    this.finished = new Promise((resolve) => (this.resolveFinished = resolve));
  }

  /** Stops it: dropped if still queued, cut at the next frame boundary if playing. No effect once finished. */
  cancel(): void {
    this.onCancel(this);
  }

  timing(): UtteranceTiming {
    const first = this.firstFrameDueMs;
    const v = this.voiced;
    const msAt = (sample: number): number => (first as number) + (sample * 1000) / this.sampleRate;
    const voicedEnd = v ? Math.min(v.end, this.offset) : 0;
    const hasVoice = first !== null && v !== null && voicedEnd > v.first;
    return {
      id: this.id,
      label: this.label,
      state: this.state,
      sampleRate: this.sampleRate,
      samplesTotal: this.samples.length,
      samplesSent: this.offset,
      firstFrameDueMs: first,
      lastFrameDueMs: this.lastFrameDueMs,
      firstSentMs: this.firstSentMs,
      lastSentMs: this.lastSentMs,
      utteranceStartMs: hasVoice ? msAt(v.first) + this.startLatenessMs : null,
      utteranceEndMs: hasVoice ? msAt(voicedEnd) + this.endLatenessMs : null,
    };
  }

  /** @internal Called once per frame, after `offset` and `lastFrameDueMs` moved to that frame. */
  markSent(sentMs: number): void {
    const v = this.voiced;
    if (v && this.lastFrameDueMs !== null) {
      const lateness = Math.max(0, sentMs - this.lastFrameDueMs);
      const from = this.markedOffset;
      const to = this.offset;
      if (v.first >= from && v.first < to) this.startLatenessMs = lateness;
      const end = Math.min(v.end, to);
      if (end > from && end <= to && end > v.first) this.endLatenessMs = lateness;
    }
    this.markedOffset = this.offset;
    this.lastSentMs = sentMs;
    if (this.firstSentMs === null) {
      this.firstSentMs = sentMs;
      this.resolveStarted(this.timing());
    }
  }

  /** @internal */
  close(state: 'completed' | 'cancelled'): void {
    if (this.state === 'completed' || this.state === 'cancelled') return;
    this.state = state;
    const t = this.timing();
    this.resolveStarted(t);
    this.resolveFinished(t);
  }
}
