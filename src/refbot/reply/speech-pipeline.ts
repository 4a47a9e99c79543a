/**
 * The spoken side of a reply: its sentences synthesized and queued on the
 * speaker as the text stream completes them; what went out when is kept by
 * the reply's SentAudio.
 */
import { firstAudibleSample } from '../../audio/index.js';
import { abortable, sleep } from '../../core/abort.js';
import type { ServerMessage } from '../../protocol/index.js';
import { AUDIO_BURST_MS } from '../faults/switches.js';
import type { SentAudio } from './sent-audio.js';
import type { ReplyContext, ReplyPlan, SpokenSegment } from './types.js';

export const TTS_PROCESSOR = 'FliteTTSService#0';

export function secs(ms: number): number {
  return Math.round(ms) / 1000;
}

/**
 * The utterance with at most `leadInMs` of silence before its first audible
 * sample (the energy gate's edge): Flite opens every utterance with ~200 ms
 * of silence, which a streaming production TTS does not make its caller wait
 * through. A view, not a copy; an utterance with nothing audible is kept whole.
 */
export function trimLeadIn(pcm: Int16Array, sampleRate: number, leadInMs: number): Int16Array {
  const first = firstAudibleSample(pcm, sampleRate);
  const keep = Math.round((leadInMs * sampleRate) / 1000);
  return first > keep ? pcm.subarray(first - keep) : pcm;
}

/** What the speech pipeline needs from its reply. */
export interface SpeechHost {
  readonly aborted: boolean;
  readonly ctx: ReplyContext;
  readonly plan: ReplyPlan;
  readonly audio: SentAudio;
  send(message: ServerMessage): void;
  segmentStarting(text: string, pcm: Int16Array, outStart: number): SpokenSegment;
  speechCompleted(): void;
  speechFailed(err: unknown): void;
}

/**
 * Synthesis and playback of a reply's sentences: each is synthesized as soon
 * as the text stream completes it, and queued on the speaker as soon as it is
 * synthesized, so sentences play back to back — or, with a sentence gap, with
 * that much silence between them, sent as frames (a Pipecat bot's speaking
 * window stays open over it, and the truth log counts it as sent audio).
 */
export class SpeechPipeline {
  handed = 0;
  private readonly jobs: Array<Promise<Int16Array>> = [];
  private waiters: Array<() => void> = [];
  private startedMs = 0;
  private readonly complete: Promise<void>;
  private resolveComplete!: () => void;

  constructor(
    private readonly run: SpeechHost,
    private readonly sentences: readonly string[],
  ) {
    this.complete = new Promise((resolve) => (this.resolveComplete = resolve));
    if (sentences.length === 0) this.resolveComplete();
  }

  /** The text stream has completed the next sentence. */
  hand(): void {
    const { ctx } = this.run;
    const i = this.handed++;
    const job = ctx.tts.synthesize(this.sentences[i]);
    // A failure surfaces where the job is awaited; until then it must not count as unhandled.
    job.catch(() => undefined);
    this.jobs.push(job);
    for (const w of this.waiters.splice(0)) w();
    if (i === 0) {
      this.startedMs = ctx.clock.now();
      this.run.send({ type: 'bot-tts-started' });
      void this.playAll().catch((err: unknown) => this.run.speechFailed(err));
    }
  }

  /** Releases a play loop waiting for sentences that will never come (the reply was aborted). */
  cancel(): void {
    for (const w of this.waiters.splice(0)) w();
  }

  async finished(signal: AbortSignal): Promise<void> {
    await abortable(this.complete, signal);
  }

  private async job(i: number): Promise<Int16Array | null> {
    while (this.jobs.length <= i) {
      if (this.run.aborted) return null;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
    return this.run.aborted ? null : this.jobs[i];
  }

  private async playAll(): Promise<void> {
    const { ctx, plan } = this.run;
    if (plan.burst) return this.burst();
    for (let i = 0; i < this.sentences.length; i++) {
      let pcm = await this.job(i);
      if (pcm === null || this.run.aborted) return;
      if (i === 0) {
        pcm = trimLeadIn(pcm, ctx.speaker.sampleRate, ctx.ttsLeadInMs);
        this.run.send({
          type: 'metrics',
          data: {
            ttfb: [{ processor: TTS_PROCESSOR, model: ctx.tts.name, value: secs(ctx.clock.now() - this.startedMs) }],
          },
        });
      }
      const last = i === this.sentences.length - 1;
      let segment: SpokenSegment | null = null;
      ctx.speaker.play({
        pcm,
        onStart: ({ outStart }) => {
          segment = this.run.segmentStarting(this.sentences[i], pcm, outStart);
        },
        onFrame: (frame, offset) => {
          if (segment) this.run.audio.frameSent(segment, frame, offset);
        },
        onDone: (frame) => {
          if (!last) return;
          // The reply is complete when its last frame has finished playing.
          const endMs = frame.sentMs + (frame.samples * 1000) / ctx.speaker.sampleRate;
          void sleep(Math.max(0, endMs - ctx.clock.now())).then(() => {
            if (this.run.aborted) return;
            this.run.speechCompleted();
            this.resolveComplete();
          });
        },
      });
      if (!last && ctx.sentenceGapMs > 0) this.gap();
    }
  }

  /** The pause after a sentence: silent frames, accounted for like the sentence's own. */
  private gap(): void {
    const { ctx } = this.run;
    const pcm = new Int16Array(Math.round((ctx.sentenceGapMs * ctx.speaker.sampleRate) / 1000));
    let segment: SpokenSegment | null = null;
    ctx.speaker.play({
      pcm,
      onStart: ({ outStart }) => {
        segment = this.run.audio.segmentStarting(pcm, outStart);
      },
      onFrame: (frame, offset) => {
        if (segment) this.run.audio.frameSent(segment, frame, offset);
      },
    });
  }

  /** `audio-burst`: the reply's audio looped to a minute, sent at once. */
  private async burst(): Promise<void> {
    const { ctx } = this.run;
    const parts: Int16Array[] = [];
    for (let i = 0; i < this.sentences.length; i++) {
      const pcm = await this.job(i);
      if (pcm === null) return;
      parts.push(pcm);
    }
    const total = parts.reduce((n, p) => n + p.length, 0);
    const length = Math.round((AUDIO_BURST_MS * ctx.speaker.sampleRate) / 1000);
    const pcm = new Int16Array(length);
    for (let at = 0, k = 0; at < length && total > 0; k++) {
      const part = parts[k % parts.length].subarray(0, length - at);
      pcm.set(part, at);
      at += part.length;
    }
    let segment: SpokenSegment | null = null;
    ctx.truth.write({
      event: 'fault',
      conn: ctx.conn,
      fault: 'audio-burst',
      action: `sent ${AUDIO_BURST_MS} ms of audio at once`,
    });
    ctx.speaker.burst({
      pcm,
      onStart: ({ outStart }) => {
        segment = this.run.segmentStarting(this.sentences.join(' '), pcm, outStart);
      },
      onFrame: (frame, offset) => {
        if (segment) this.run.audio.frameSent(segment, frame, offset);
      },
    });
    this.run.speechCompleted();
    this.resolveComplete();
  }
}
