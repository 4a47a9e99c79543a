import { errorMessage } from '../../core/errors.js';
import { CallRecorder, type Pacer, type SileroVad } from '../../audio/index.js';
import type { AudioItem, ClientConnection, SocketOpener } from '../../protocol/index.js';
import { ThreadPacer } from '../../pacing/index.js';
import type { Runnable } from '../../scenario/index.js';
import type { SttProvider, TtsProvider } from '../../speech/index.js';
import type { UserUtterance } from '../driver.js';
import type { MediaArtifacts, MediaContext, SessionMedia } from '../media.js';
import { BotCapture } from './capture.js';
import { Hearing } from './hearing.js';
import { Microphone } from './mic.js';
import { loadTurnAudio, spokenTurns, type TurnAudio } from './user-audio.js';

/** What one run's media gets from the engine (shared, process-wide pieces are behind functions so they load lazily). */
export interface AudioMediaDeps {
  scenario: Runnable;
  pacer: Pacer | ThreadPacer;
  /** The user speaks (user modality audio). */
  userAudio: boolean;
  /** The bot speaks and is captured (judge modality audio). */
  botAudio: boolean;
  /** The rate the user's speech is synthesized at (the scenario's `sample_rate`). */
  sampleRate: number;
  /** The rate the caller's audio is sent at (the bot's input rate); the recording uses it too. */
  sendRate: number;
  /** Where a reply's spoken segment ends: at the bot's speaking reports, or (no RTVI) where its audio stops. */
  cutAt: 'reports' | 'audio';
  /** Null when no turn is spoken. */
  tts: (() => Promise<TtsProvider>) | null;
  /** Null when the scenario asserts no `response`. */
  stt: (() => Promise<SttProvider>) | null;
  /** The second transcriber that checks the first (`--stt-check`, a second `judge.transcription`); null: none. */
  checkStt?: (() => Promise<SttProvider>) | null;
  /** Word error rate between the two transcripts above which they disagree. */
  disagreementWer: number;
  /** Where the run's output goes (the recording's path, written or not): doubtful segments' WAVs go beside it. */
  snippetPath?: string;
  language?: string;
  vad: () => Promise<SileroVad>;
  /** Absent: no recording. */
  recordingPath?: string;
  maxTurnAudioMs?: number;
  describe: string;
}

const TICK_MS = 100;

/**
 * One scenario run's audio (the `SessionMedia` seam): the microphone, the bot
 * capture and the recording, wired to the session's clock and events.
 */
export class AudioMedia implements SessionMedia {
  private ctx: MediaContext | null = null;
  private tts: (() => Promise<TtsProvider>) | null = null;
  private readonly spoken = new Map<number, TurnAudio>();
  private mic: Microphone | null = null;
  private capture: BotCapture | null = null;
  private recorder: CallRecorder | null = null;
  private ticker: NodeJS.Timeout | null = null;
  private readonly notes: Array<{ turn_index: number; note: string }> = [];
  private readonly speechDone: Promise<void>[] = [];

  constructor(private readonly deps: AudioMediaDeps) {}

  async prepare(ctx: MediaContext): Promise<void> {
    this.ctx = ctx;
    const d = this.deps;
    ctx.trace(`media: ${d.describe}`);
    if (d.userAudio && d.sampleRate !== d.sendRate) {
      ctx.trace(`media: warning: the scenario speaks at ${d.sampleRate} Hz and the bot takes ${d.sendRate} Hz (--bot-input-rate): the caller's audio is resampled to ${d.sendRate} Hz`);
    }
    if (d.userAudio && d.tts) {
      const tts = (this.tts = memo(d.tts));
      const started = ctx.clock.now();
      let totalMs = 0;
      // A simulation's turns are made up during the call, and synthesized as they come (speak).
      const turns = d.scenario.kind === 'script' ? d.scenario.turns : [];
      for (const index of spokenTurns(turns)) {
        const audio = await loadTurnAudio(turns[index], index, { tts, sampleRate: d.sampleRate, sendRate: d.sendRate, signal: ctx.signal });
        this.spoken.set(index, audio);
        totalMs += (audio.samples.length * 1000) / audio.sampleRate;
      }
      if (this.spoken.size) ctx.trace(`media: ${this.spoken.size} user turn(s) ready (${Math.round(totalMs)}ms of audio) in ${Math.round(ctx.clock.now() - started)}ms`);
    }
    const stt = d.botAudio && d.stt ? await d.stt() : null;
    const checkStt = stt && d.checkStt ? await d.checkStt() : null;
    const vad = d.botAudio ? await d.vad() : null;
    if (d.recordingPath) {
      this.recorder = await CallRecorder.create({ path: d.recordingPath, sampleRate: d.sendRate, originMs: 0 });
    }
    if (vad) {
      this.capture = new BotCapture({
        vad,
        recorder: this.recorder,
        stt,
        ...(stt ? { hearing: new Hearing({ vad, check: checkStt, maxWer: d.disagreementWer, first: `${stt.name}:${stt.model}`, ...(d.snippetPath ? { recordingPath: d.snippetPath } : {}) }) } : {}),
        language: d.language,
        maxTurnAudioMs: d.maxTurnAudioMs,
        emit: ctx.emit,
        streamEnd: (at) => ctx.markBotStreamEnd(at),
        cutAt: d.cutAt,
        trace: ctx.trace,
        note: (turn_index, note) => this.notes.push({ turn_index, note }),
        nowMs: () => ctx.clock.now() - ctx.t0Ms,
      });
      this.ticker = setInterval(() => this.capture?.tick(), TICK_MS);
      this.ticker.unref();
    }
    if (d.userAudio) {
      this.mic = new Microphone({ pacer: d.pacer, sampleRate: d.sendRate, t0Ms: ctx.t0Ms, recorder: this.recorder, label: d.scenario.name, signal: ctx.signal });
    }
  }

  /** A microphone on the pacer thread needs its connection opened there. */
  get openSocket(): SocketOpener | undefined {
    const { pacer, userAudio } = this.deps;
    return userAudio && pacer instanceof ThreadPacer ? pacer.openSocket : undefined;
  }

  async start(connection: ClientConnection): Promise<void> {
    this.mic?.start(connection);
  }

  async speak(utterance: UserUtterance, turnIndex: number, signal: AbortSignal): Promise<number> {
    const ctx = this.required();
    // A scripted turn was made before the call; one a driver makes up during the call is made now.
    let audio = this.spoken.get(turnIndex);
    if (!audio && this.mic && this.tts) audio = await loadTurnAudio(utterance, turnIndex, { tts: this.tts, sampleRate: this.deps.sampleRate, sendRate: this.deps.sendRate, signal });
    if (!this.mic || !audio) throw new Error(`turn ${turnIndex} has no audio to speak (${utterance.audio ?? utterance.user ?? 'nothing'})`);
    this.spoken.delete(turnIndex);
    const spoken = await this.mic.say(audio.samples, `turn ${turnIndex}`, signal);
    this.speechDone.push(
      spoken.finished.then((t) => {
        if (t.utteranceStartMs === null || t.utteranceEndMs === null) {
          ctx.trace(`speech: turn ${turnIndex} ended (${t.state}) before any voiced sample was sent`);
          return;
        }
        const start = t.utteranceStartMs - ctx.t0Ms;
        const end = t.utteranceEndMs - ctx.t0Ms;
        ctx.trace(`speech: turn ${turnIndex} voiced ${start.toFixed(1)}..${end.toFixed(1)}ms (${t.state})`);
        ctx.markUserSpeech(start, end);
      }),
    );
    return spoken.firstFrameDueMs;
  }

  onBotAudio(item: AudioItem, atMs: number): void {
    this.capture?.push(item, atMs);
  }

  onSpeaking(edge: 'started' | 'stopped'): void {
    this.capture?.speaking(edge);
  }

  dropPending(): void {
    this.capture?.drop();
  }

  beginTurn(turnIndex: number): void {
    this.capture?.beginTurn(turnIndex);
  }

  async finish(): Promise<MediaArtifacts> {
    const ctx = this.ctx;
    if (this.ticker) clearInterval(this.ticker);
    const stats = await this.mic?.stop();
    if (stats && ctx) {
      const l = stats.lateness;
      ctx.trace(`mic: ${stats.framesSent} frames (${stats.speechFrames} speech), lateness p50 ${fmt(l.p50Ms)} p99 ${fmt(l.p99Ms)} max ${fmt(l.maxMs)}ms, ${stats.skippedSilenceFrames} late silence frames skipped`);
    }
    await Promise.all(this.speechDone);
    await this.capture?.finish();
    const artifacts: MediaArtifacts = { notes: this.notes };
    if (this.recorder) {
      if (ctx?.signal.aborted) await this.recorder.discard();
      else {
        try {
          const info = await this.recorder.close();
          artifacts.recording = info.path;
          artifacts.recordingStartedAtMs = 0;
          ctx?.trace(`recording: ${info.path} (${Math.round(info.durationMs)}ms; user ${Math.round(info.userAudioMs)}ms, bot ${Math.round(info.botAudioMs)}ms)`);
          if (info.note) this.notes.push({ turn_index: 0, note: info.note });
        } catch (err) {
          ctx?.trace(`recording: not written: ${errorMessage(err)}`);
        }
      }
    }
    return artifacts;
  }

  private required(): MediaContext {
    if (!this.ctx) throw new Error('media used before prepare()');
    return this.ctx;
  }
}

function memo<T>(fn: () => Promise<T>): () => Promise<T> {
  let p: Promise<T> | undefined;
  return () => (p ??= fn());
}

function fmt(x: number | null | undefined): string {
  return typeof x === 'number' ? x.toFixed(2) : '-';
}
