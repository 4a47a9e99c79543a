/**
 * A reply's audio as the truth log reports it (`bot_audio_started`,
 * `bot_audio_stopped`, `voice_to_voice_ms`): which sample went out when.
 */
import { audibleEnd, firstAudibleSample } from '../../audio/index.js';
import type { SentFrame } from './speaker.js';
import type { AudioEnd, ReplyContext, ReplyPlan, SpokenSegment, StopReason } from './types.js';

/** What of one reply's audio has gone out: its first audible sample, where it ended. */
export class SentAudio {
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
      if (sent >= Math.min(ctx.speaker.sampleRate, Math.floor(this.segments[0].pcm.length / 2)))
        ctx.onFault('disconnect');
    }
  }

  /** Where the audio ended, or null when none went out. */
  end(): AudioEnd | null {
    const rate = this.ctx.speaker.sampleRate;
    const sent = this.segments.filter((s) => s.frameSentMs.length > 0);
    const last = sent[sent.length - 1];
    if (!last) return null;
    const end: AudioEnd = {
      outEnd: last.outStart + last.sentSamples,
      stoppedMs: this.timeOfEnd(last, last.sentSamples),
      outAudibleEnd: null,
      audibleEndMs: null,
    };
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
  writeStopped(
    reason: StopReason,
    end: AudioEnd,
    userStartMs: number | null = null,
    detectedMs: number | null = null,
  ): void {
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
      interruption_ms: interruption(end, userStartMs),
      in_pause: userStartMs !== null && end.audibleEndMs !== null && end.audibleEndMs < userStartMs,
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

/**
 * End of the bot's audio − start of the user's interrupting speech: its last
 * audible sample, or, when the user began after it (in a pause between
 * sentences, the bot sending the pause's silence), the end of the last frame
 * sent: nothing audible marks that stop, the end of the stream does.
 */
function interruption(end: AudioEnd, userStartMs: number | null): number | null {
  if (userStartMs === null || end.audibleEndMs === null) return null;
  return (end.audibleEndMs >= userStartMs ? end.audibleEndMs : end.stoppedMs) - userStartMs;
}
