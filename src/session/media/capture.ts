import { abortable } from '../../core/abort.js';
import { errorMessage } from '../../core/errors.js';
import {
  audibleBounds,
  concatPcm,
  downmix,
  OnsetDetector,
  type CallRecorder,
  type OnsetEvent,
  type SileroVad,
} from '../../audio/index.js';
import type { AudioItem } from '../../protocol/index.js';
import type { EarshotEvent } from '../../results/events.js';
import type { SttProvider, Transcription } from '../../speech/index.js';
import type { Hearing } from './hearing.js';

/**
 * What earshot hears of the bot: every chunk of bot audio goes to the onset
 * detector (→ `bot_audio_started` / `bot_audio_stopped` at the sample's time)
 * and to the recording's bot channel, placed where the detector put it on the
 * session's timeline; and, as Pipecat's harness does, the audio between the
 * bot's `bot-started-speaking` and `bot-stopped-speaking` reports is one
 * spoken segment, transcribed when it ends into a `response` event — with
 * `hearing` evidence when earshot cannot trust that transcript (an empty one
 * over speech, a second transcriber disagreeing: `hearing.ts`), emitted even
 * when its text is empty, so a check over it is inconclusive, not failed. A
 * bot without RTVI sends no such reports: its segments end where the detector
 * hears its audio stop (`cutAt: 'audio'`).
 *
 * Where each run of the bot's frames ends (no frame followed) is reported too
 * (`streamEnd`): a bot interrupted in a pause between sentences stops there,
 * with nothing audible to mark it.
 *
 * Memory is bounded: per turn at most `maxTurnAudioMs` of bot audio is taken
 * in (the rest is dropped with a note on the turn), the detector keeps a ring
 * of a few seconds, and the recording streams to disk.
 *
 * All times are ms since the session start.
 */
export interface BotCaptureOptions {
  vad: SileroVad;
  recorder: CallRecorder | null;
  /** Transcribes spoken segments into `response` events; null when the scenario asserts none. */
  stt: SttProvider | null;
  /** Whether each transcript can be trusted (a second transcriber, VAD over an empty one); absent: every one is. */
  hearing?: Hearing;
  language?: string;
  /** Bot audio accepted per turn (default 10 minutes). */
  maxTurnAudioMs?: number;
  emit: (event: EarshotEvent) => void;
  /** The end of a run of bot audio frames, ms since session start. */
  streamEnd?: (atMs: number) => void;
  /**
   * Where a spoken segment ends: at the bot's speaking reports (default), or where its audio stops (a bot without
   * RTVI).
   */
  cutAt?: 'reports' | 'audio';
  trace: (line: string) => void;
  note: (turnIndex: number, note: string) => void;
  nowMs: () => number;
}

export const DEFAULT_MAX_TURN_AUDIO_MS = 10 * 60_000;
/** A run of chunks the detector places back to back is over once nothing has come for this long. */
const IDLE_AFTER_MS = 200;
/**
 * A transcript waits at most this many ticks (~100 ms each) for the detector
 * to report its audio stopped: a bot that keeps sending sound after it said
 * it stopped speaking still gets its reply heard.
 */
const QUIET_WAIT_TICKS = 30;

export class BotCapture {
  private readonly detector: OnsetDetector;
  private readonly maxTurnMs: number;
  private turn = -1;
  private turnAudioMs = 0;
  private capped = false;
  private segment: Int16Array[] = [];
  private segmentSamples = 0;
  private segmentRate = 0;
  /** Where the segment's audio sits on the session clock, as the detector placed its chunks. */
  private segmentSpan = { startMs: NaN, endMs: NaN };
  /** Bumped by every drop: a transcription started before it is stale when it ends. */
  private generation = 0;
  /** Transcriptions queued or running; a drop aborts them (a stale reply's STT would only steal CPU). */
  private readonly pending = new Set<AbortController>();
  private placing: Promise<unknown> = Promise.resolve();
  private transcribing: Promise<unknown> = Promise.resolve();
  private lastChunkEndMs = -Infinity;
  /** The current run's end has been reported (or there is no run yet). */
  private streamEndReported = true;
  /** The bot's latest speaking report (null: it sends none). */
  private reported: 'started' | 'stopped' | null = null;
  private detectorFailed = false;
  private recorderFailed = false;
  private closed = false;
  /** Transcripts held until the detector reports the bot's audio stopped, with the ticks each has waited. */
  private quietWaiters: Array<{ release: () => void; ticks: number }> = [];

  constructor(private readonly opts: BotCaptureOptions) {
    this.detector = new OnsetDetector({ vad: opts.vad });
    this.maxTurnMs = opts.maxTurnAudioMs ?? DEFAULT_MAX_TURN_AUDIO_MS;
  }

  private get cutByAudio(): boolean {
    return this.opts.cutAt === 'audio';
  }

  beginTurn(index: number): void {
    this.turn = index;
    this.turnAudioMs = 0;
    this.capped = false;
  }

  push(item: AudioItem, atMs: number): void {
    if (this.closed || item.pcm.length === 0) return;
    const samples = item.numChannels > 1 ? downmix(item.pcm, item.numChannels) : item.pcm;
    const rate = item.sampleRate;
    const chunkMs = (samples.length * 1000) / rate;
    if (this.turnAudioMs + chunkMs > this.maxTurnMs) {
      if (!this.capped) {
        this.capped = true;
        const note =
          `bot audio capture capped at ${Math.round(this.maxTurnMs / 1000)} s in this turn; later audio was not ` +
          'kept (not analysed, recorded or transcribed)';
        this.opts.trace(`capture: ${note}`);
        this.opts.note(Math.max(0, this.turn), note);
      }
      return;
    }
    this.turnAudioMs += chunkMs;
    if (this.opts.stt) this.addToSegment(samples, rate);
    const span = this.segmentSpan;
    this.placing = this.placing.then(async () => {
      let startMs = atMs;
      if (!this.detectorFailed) {
        try {
          const placed = await this.detector.push(samples, rate, atMs);
          startMs = placed.startMs;
          // Placed after a gap: the previous run of frames ended where it did.
          if (placed.startMs > this.lastChunkEndMs + 0.5) this.reportStreamEnd();
          this.lastChunkEndMs = placed.endMs;
          this.streamEndReported = false;
          this.report(placed.events);
        } catch (err) {
          this.detectorFailed = true;
          this.releaseQuiet();
          this.opts.trace(`capture: onset detection stopped: ${errorMessage(err)}`);
        }
      }
      if (Number.isNaN(span.startMs)) span.startMs = startMs;
      span.endMs = startMs + chunkMs;
      try {
        this.opts.recorder?.addBot(samples, rate, startMs);
      } catch (err) {
        // The recording is a by-product: losing it must not take the session (or the process) down.
        if (!this.recorderFailed) this.opts.trace(`capture: recording stopped: ${errorMessage(err)}`);
        this.recorderFailed = true;
      }
    });
  }

  /** The bot's speaking reports: a segment starts afresh, or ends and is transcribed. */
  speaking(edge: 'started' | 'stopped'): void {
    this.reported = edge;
    if (this.opts.cutAt === 'audio') return;
    if (edge === 'started') {
      // A new reply: the one before it has ended, audible gap or not.
      this.releaseQuiet();
      this.clearSegment();
      return;
    }
    this.endSegment();
  }

  /** The segment so far is one spoken reply: transcribed into a `response`. */
  private endSegment(): void {
    const parts = this.segment;
    const rate = this.segmentRate;
    const span = this.segmentSpan;
    const placed = this.placing;
    this.clearSegment();
    if (!this.opts.stt || parts.length === 0) return;
    const pcm = concatPcm(parts);
    if (!audibleBounds(pcm, rate)) {
      this.opts.trace(
        `capture: spoken segment of ${Math.round((pcm.length * 1000) / rate)}ms is silent; nothing to transcribe`,
      );
      return;
    }
    const generation = this.generation;
    const turn = this.turn;
    const stt = this.opts.stt;
    const job = new AbortController();
    this.pending.add(job);
    this.transcribing = this.transcribing.then(async () => {
      try {
        job.signal.throwIfAborted();
        const hear = (p: SttProvider): Promise<Transcription> =>
          abortable(
            p.transcribe(pcm, rate, {
              signal: job.signal,
              ...(this.opts.language ? { language: this.opts.language } : {}),
            }),
            job.signal,
          );
        const checker = this.opts.hearing?.checking ?? null;
        const [out, checked] = await Promise.all([
          hear(stt),
          checker ? this.checkedBy(checker, hear, turn) : Promise.resolve(null),
        ]);
        const text = out.text.trim();
        this.opts.trace(
          `transcribed: ${Math.round(out.audioSeconds * 1000)}ms of bot audio in ` +
            `${Math.round(out.elapsedMs)}ms -> ${JSON.stringify(text)}`,
        );
        if (checked !== null) this.opts.trace(`transcribed (check, ${checker?.name}): ${JSON.stringify(checked)}`);
        if (generation !== this.generation) {
          this.opts.trace('transcribed: dropped (the bot was cut off or a new turn began while transcribing)');
          return;
        }
        await placed;
        // In order: a reply's transcript never comes before its audio's stop. The bot reports it
        // stopped speaking once it sent its last frame; the detector hears the silence after the
        // last audible sample only later, and a pooled recognizer can be done first.
        await this.untilQuiet();
        if (generation !== this.generation) {
          this.opts.trace('transcribed: dropped (the bot was cut off or a new turn began while transcribing)');
          return;
        }
        const hearing = await this.opts.hearing?.assess({
          pcm,
          rate,
          transcript: text,
          ...(checked !== null ? { checkTranscript: checked } : {}),
          startMs: span.startMs,
          endMs: span.endMs,
        });
        if (hearing)
          this.opts.trace(
            `hearing: ${hearing.doubt} (${hearing.speech_ms}ms of speech` +
              `${hearing.wer !== undefined ? `, WER ${hearing.wer}` : ''})`,
          );
        if (text || hearing)
          this.opts.emit({ name: 'response', at_ms: this.opts.nowMs(), text, ...(hearing ? { hearing } : {}) });
      } catch (err) {
        if (job.signal.aborted) {
          this.opts.trace(
            `transcribe: abandoned ${Math.round((pcm.length * 1000) / rate)}ms of bot audio (the bot was cut ` +
              'off or a new turn began)',
          );
          return;
        }
        const note = `transcription of the bot's speech failed: ${errorMessage(err)}`;
        this.opts.trace(`capture: ${note}`);
        this.opts.note(Math.max(0, turn), note);
      } finally {
        this.pending.delete(job);
      }
    });
  }

  /** Audio captured so far belongs to a reply that no longer counts. */
  drop(): void {
    this.generation++;
    this.releaseQuiet();
    this.clearSegment();
    for (const job of this.pending) job.abort();
    // A turn that sends right after the bot said it finished: the bot's next reply may start
    // within the detector's end-of-speech silence (a DTMF answer, a typed question), and must
    // not be merged into the audio before it. A bot still talking (a barge-in) keeps its burst.
    if (!this.cutByAudio && this.reported === 'stopped') this.endBurst();
  }

  /**
   * Lets the detector hear the silence after the bot's last chunk, so a stop
   * is reported even when the bot sends nothing more; call it every ~100 ms.
   */
  tick(): void {
    for (const w of this.quietWaiters) if (++w.ticks >= QUIET_WAIT_TICKS) w.release();
    if (this.closed || this.detectorFailed) return;
    if (!this.streamEndReported) {
      this.placing = this.placing.then(() => {
        if (this.opts.nowMs() - this.lastChunkEndMs >= IDLE_AFTER_MS) this.reportStreamEnd();
      });
    }
    if (!this.detector.speaking) return;
    const now = this.opts.nowMs();
    if (now - this.lastChunkEndMs < IDLE_AFTER_MS) return;
    this.placing = this.placing.then(async () => {
      try {
        this.report(await this.detector.idle(this.opts.nowMs()));
      } catch (err) {
        this.opts.trace(`capture: onset detection (idle) failed: ${errorMessage(err)}`);
      }
    });
  }

  private endBurst(): void {
    this.placing = this.placing.then(async () => {
      if (this.detectorFailed || !this.detector.speaking) return;
      try {
        this.report(await this.detector.finish());
      } catch (err) {
        this.opts.trace(`capture: onset detection (end of reply) failed: ${errorMessage(err)}`);
      }
    });
  }

  /** Reports a pending stop, waits for the placements in flight and abandons transcriptions still running. */
  async finish(): Promise<void> {
    this.closed = true;
    await this.placing;
    this.reportStreamEnd();
    if (!this.detectorFailed) {
      try {
        this.report(await this.detector.finish());
      } catch (err) {
        this.opts.trace(`capture: onset detection (finish) failed: ${errorMessage(err)}`);
      }
    }
    // The session is over: nothing can match a transcript any more, and a stuck recognizer must not hold it open.
    this.releaseQuiet();
    for (const job of this.pending) job.abort();
    await this.transcribing;
  }

  /** Resolves once the detector is not hearing the bot (at once when it is not, or cannot report a stop). */
  private untilQuiet(): Promise<void> {
    if (this.closed || this.detectorFailed || !this.detector.speaking) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        ticks: 0,
        release: () => {
          this.quietWaiters = this.quietWaiters.filter((w) => w !== waiter);
          resolve();
        },
      };
      this.quietWaiters.push(waiter);
    });
  }

  private releaseQuiet(): void {
    for (const w of [...this.quietWaiters]) w.release();
  }

  private report(events: OnsetEvent[]): void {
    for (const e of events) {
      this.opts.emit({ name: e.type, at_ms: e.atMs });
      if (e.type === 'bot_audio_stopped') this.releaseQuiet();
      // Without speaking reports, the detector's stop ends the spoken segment.
      if (this.opts.cutAt === 'audio' && e.type === 'bot_audio_stopped') this.endSegment();
    }
  }

  private reportStreamEnd(): void {
    if (this.streamEndReported || !Number.isFinite(this.lastChunkEndMs)) return;
    this.streamEndReported = true;
    this.opts.streamEnd?.(this.lastChunkEndMs);
  }

  private addToSegment(samples: Int16Array, rate: number): void {
    if (this.segmentRate !== rate && this.segmentSamples > 0) {
      // A rate change mid-reply: only the audio at the new rate is transcribed.
      this.clearSegment();
    }
    if (((this.segmentSamples + samples.length) * 1000) / rate > this.maxTurnMs) {
      // A bot that never reports speaking edges: keep the newest audio only.
      this.clearSegment();
    }
    this.segmentRate = rate;
    this.segment.push(samples);
    this.segmentSamples += samples.length;
  }

  /**
   * The check transcriber's text, or null (noted on the turn) when it failed: the first transcript then stands alone.
   */
  private async checkedBy(
    checker: SttProvider,
    hear: (p: SttProvider) => Promise<Transcription>,
    turn: number,
  ): Promise<string | null> {
    try {
      return (await hear(checker)).text.trim();
    } catch (err) {
      if (!(err instanceof Error && err.name === 'AbortError'))
        this.opts.note(Math.max(0, turn), `the check transcription failed: ${errorMessage(err)}`);
      return null;
    }
  }

  private clearSegment(): void {
    this.segment = [];
    this.segmentSamples = 0;
    this.segmentSpan = { startMs: NaN, endMs: NaN };
  }
}
