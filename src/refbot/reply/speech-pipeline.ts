/**
 * The spoken side of a reply: its sentences synthesized and queued on the
 * speaker as the text stream completes them (SpeechPipeline), and an account
 * of what audio went out when (ReplyAudio), which the truth log reports.
 */
import { abortable, sleep } from '../../core/abort.js';
import { audibleEnd, firstAudibleSample } from '../../audio/index.js';
import type { ServerMessage } from '../../protocol/index.js';
import { AUDIO_BURST_MS } from '../faults/switches.js';
import type { ReplyContext, ReplyPlan } from './reply-run.js';
import type { SentFrame } from './speaker.js';

export const TTS_PROCESSOR = 'FliteTTSService#0';

/** A sentence's audio as it goes out: when each of its frames was sent. */
export interface SpokenSegment {
  pcm: Int16Array;
  outStart: number;
  sentSamples: number;
  frameSentMs: number[];
}

/** Where a reply's audio ended: the last frame sent, and the last audible sample sent. */
export interface AudioEnd {
  outEnd: number;
  stoppedMs: number;
  outAudibleEnd: number | null;
  audibleEndMs: number | null;
}

export type StopReason = 'completed' | 'barge_in' | 'interrupted' | 'closed' | 'fault';

export function secs(ms: number): number {
  return Math.round(ms) / 1000;
}

/** What of one reply's audio has gone out: its first audible sample, where it ended. */
export class ReplyAudio {
  private readonly segments: SpokenSegment[] = [];
  private started = false;

  constructor(
    private readonly ctx: ReplyContext,
    private readonly plan: ReplyPlan,
  ) {}

  segmentStarting(pcm: Int16Array, outStart: number): SpokenSegment {
    const segment: SpokenSegment = { pcm, outStart, sentSamples: 0, frameSentMs: [] };
    this.segments.push(segment);
    return segment;
  }

  /** One frame of `segment` went out; logs the reply's first audible sample once it has. */
  frameSent(segment: SpokenSegment, frame: SentFrame, offset: number): void {
    segment.frameSentMs.push(frame.sentMs);
    segment.sentSamples = offset + frame.samples;
    const { ctx, plan } = this;
    if (!this.started) {
      const audible = this.firstAudible();
      if (audible) {
        this.started = true;
        const first = this.segments[0];
        ctx.truth.write({
          event: 'bot_audio_started',
          conn: ctx.conn,
          reply: plan.id,
          turn: plan.turn,
          out_sample_rate: ctx.speaker.sampleRate,
          out_first_sample: first.outStart,
          first_sent_ms: first.frameSentMs[0],
          out_first_audible_sample: audible.out,
          audible_ms: audible.atMs,
          voice_to_voice_ms: plan.userEndMs === null ? null : audible.atMs - plan.userEndMs,
          response_delay_ms: plan.responseDelayMs,
          on_wire: ctx.audioOnWire,
        });
      }
    }
    if (plan.disconnectMidway) {
      const sent = this.segments.reduce((n, s) => n + s.sentSamples, 0);
      if (sent >= Math.min(ctx.speaker.sampleRate, Math.floor(this.segments[0].pcm.length / 2))) ctx.onFault('disconnect');
    }
  }

  /** Where the audio ended, or null when none went out. */
  end(): AudioEnd | null {
    const rate = this.ctx.speaker.sampleRate;
    const sent = this.segments.filter((s) => s.frameSentMs.length > 0);
    const last = sent[sent.length - 1];
    if (!last) return null;
    const end: AudioEnd = { outEnd: last.outStart + last.sentSamples, stoppedMs: this.timeOfEnd(last, last.sentSamples), outAudibleEnd: null, audibleEndMs: null };
    for (let i = sent.length - 1; i >= 0; i--) {
      const e = audibleEnd(sent[i].pcm, rate, undefined, 0, sent[i].sentSamples);
      if (e > 0) {
        end.outAudibleEnd = sent[i].outStart + e;
        end.audibleEndMs = this.timeOfEnd(sent[i], e);
        break;
      }
    }
    return end;
  }

  /** The truth line for the end of this reply's audio; `userStartMs`/`detectedMs` for a barge-in. */
  writeStopped(reason: StopReason, end: AudioEnd, userStartMs: number | null = null, detectedMs: number | null = null): void {
    this.ctx.truth.write({
      event: 'bot_audio_stopped',
      conn: this.ctx.conn,
      reply: this.plan.id,
      reason,
      out_sample_rate: this.ctx.speaker.sampleRate,
      out_end_sample: end.outEnd,
      stopped_ms: end.stoppedMs,
      out_audible_end_sample: end.outAudibleEnd,
      audible_end_ms: end.audibleEndMs,
      interruption_ms: userStartMs !== null && end.audibleEndMs !== null ? end.audibleEndMs - userStartMs : null,
      stop_after_detect_ms: detectedMs === null ? null : end.stoppedMs - detectedMs,
    });
  }

  /** The first audible sample sent so far, and its send time. */
  private firstAudible(): { out: number; atMs: number } | null {
    for (const s of this.segments) {
      const i = firstAudibleSample(s.pcm, this.ctx.speaker.sampleRate, undefined, 0, s.sentSamples);
      if (i >= 0) return { out: s.outStart + i, atMs: this.timeOf(s, i) };
      if (s.sentSamples < s.pcm.length) return null;
    }
    return null;
  }

  /** Send time of sample `i` of a segment (its frame's send time plus its offset in the frame). */
  private timeOf(s: SpokenSegment, i: number): number {
    const frames = this.ctx.speaker.frameSamples;
    const j = Math.floor(i / frames);
    return s.frameSentMs[j] + ((i - j * frames) * 1000) / this.ctx.speaker.sampleRate;
  }

  /** The instant sample `end − 1` of a segment finished playing. */
  private timeOfEnd(s: SpokenSegment, end: number): number {
    const frames = this.ctx.speaker.frameSamples;
    const j = Math.floor((end - 1) / frames);
    return s.frameSentMs[j] + ((end - j * frames) * 1000) / this.ctx.speaker.sampleRate;
  }
}

/** What the speech pipeline needs from its reply. */
export interface SpeechHost {
  readonly aborted: boolean;
  readonly ctx: ReplyContext;
  readonly plan: ReplyPlan;
  readonly audio: ReplyAudio;
  send(message: ServerMessage): void;
  segmentStarting(text: string, pcm: Int16Array, outStart: number): SpokenSegment;
  speechCompleted(): void;
  speechFailed(err: unknown): void;
}

/**
 * Synthesis and playback of a reply's sentences: each is synthesized as soon
 * as the text stream completes it, and queued on the speaker as soon as it is
 * synthesized, so sentences play back to back.
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
      const pcm = await this.job(i);
      if (pcm === null || this.run.aborted) return;
      if (i === 0) this.run.send({ type: 'metrics', data: { ttfb: [{ processor: TTS_PROCESSOR, model: ctx.tts.name, value: secs(ctx.clock.now() - this.startedMs) }] } });
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
    }
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
    ctx.truth.write({ event: 'fault', conn: ctx.conn, fault: 'audio-burst', action: `sent ${AUDIO_BURST_MS} ms of audio at once` });
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
