import { createHash } from 'node:crypto';
import { errorMessage } from '../../core/errors.js';
import { audibleBounds, CallRecorder, type Pacer, type SileroVad } from '../../audio/index.js';
import type { AudioItem, ClientConnection, SocketOpener } from '../../protocol/index.js';
import { ThreadPacer } from '../../pacing/index.js';
import type { Runnable } from '../../scenario/index.js';
import type { SttProvider, TtsProvider } from '../../speech/index.js';
import type { MediaArtifacts, MediaContext, SessionMedia, UserUtterance } from '../media.js';
import { BotCapture } from './capture.js';
import { Hearing } from './hearing.js';
import { Microphone } from './mic.js';
import { loadTurnAudio, spokenTurns, type TurnAudio } from './user-audio.js';
import { loadSpokenAudio } from './probe-audio.js';
import { BACKCHANNEL_STREAM, type CallerChannel } from './channel.js';
import { SpeechProviderLog } from './speech-providers.js';

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
  /** The caller's line: channel conditions and in-band DTMF (absent: the clean studio voice). */
  channel?: CallerChannel;
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
  private readonly providers = new SpeechProviderLog();
  /** SHA-256 of each degraded utterance, for the result (replays compare them). */
  private readonly degraded: Record<string, string> = {};

  constructor(private readonly deps: AudioMediaDeps) {}

  async prepare(ctx: MediaContext): Promise<void> {
    this.ctx = ctx;
    const d = this.deps;
    ctx.trace(`media: ${d.describe}`);
    if (d.userAudio && d.sampleRate !== d.sendRate) {
      ctx.trace(
        `media: warning: the scenario speaks at ${d.sampleRate} Hz and the bot takes ${d.sendRate} Hz ` +
          `(--bot-input-rate): the caller's audio is resampled to ${d.sendRate} Hz`,
      );
    }
    if (d.userAudio && d.tts) {
      const make = d.tts;
      const tts = memo(async () => {
        const provider = await make();
        this.providers.spoken(provider);
        return provider;
      });
      this.tts = tts;
      const started = ctx.clock.now();
      let totalMs = 0;
      // A simulation's turns are made up during the call, and synthesized as they come (speak).
      const turns = d.scenario.kind === 'script' ? d.scenario.turns : [];
      for (const index of spokenTurns(turns)) {
        const audio = await this.onTheLine(
          await loadSpokenAudio(turns[index], index, {
            tts,
            sampleRate: d.sampleRate,
            sendRate: d.sendRate,
            signal: ctx.signal,
          }),
          index,
        );
        this.spoken.set(index, audio);
        totalMs += (audio.samples.length * 1000) / audio.sampleRate;
      }
      if (this.spoken.size)
        ctx.trace(
          `media: ${this.spoken.size} user turn(s) ready (${Math.round(totalMs)}ms of audio) in ` +
            `${Math.round(ctx.clock.now() - started)}ms`,
        );
    }
    const stt = d.botAudio && d.stt ? await d.stt() : null;
    if (stt) this.providers.heard(stt, ctx.trace);
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
        ...(stt
          ? {
              hearing: new Hearing({
                vad,
                check: checkStt,
                maxWer: d.disagreementWer,
                first: `${stt.name}:${stt.model}`,
                ...(d.snippetPath ? { recordingPath: d.snippetPath } : {}),
              }),
            }
          : {}),
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
      this.mic = new Microphone({
        pacer: d.pacer,
        sampleRate: d.sendRate,
        t0Ms: ctx.t0Ms,
        recorder: this.recorder,
        label: d.scenario.name,
        signal: ctx.signal,
      });
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
    if (!audio && utterance.dtmf !== undefined && this.deps.channel)
      audio = await this.onTheLine(this.dtmfAudio(utterance.dtmf, turnIndex), turnIndex);
    if (!audio && this.mic && this.tts)
      audio = await this.onTheLine(
        await loadTurnAudio(utterance, turnIndex, {
          tts: this.tts,
          sampleRate: this.deps.sampleRate,
          sendRate: this.deps.sendRate,
          signal,
        }),
        turnIndex,
      );
    if (!this.mic || !audio)
      throw new Error(
        `turn ${turnIndex} has no audio to speak (${utterance.audio ?? utterance.user ?? utterance.dtmf ?? 'nothing'})`,
      );
    this.spoken.delete(turnIndex);
    const spoken = await this.mic.say(audio.samples, `turn ${turnIndex}`, signal, audio.voiced);
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

  async murmur(text: string, turnIndex: number, signal: AbortSignal): Promise<number> {
    if (!this.mic || !this.tts)
      throw new Error(`turn ${turnIndex}: a backchannel needs the caller's microphone and voice`);
    const clean = await loadTurnAudio({ user: text }, turnIndex, {
      tts: this.tts,
      sampleRate: this.deps.sampleRate,
      sendRate: this.deps.sendRate,
      signal,
    });
    const audio = await this.onTheLine(clean, turnIndex, BACKCHANNEL_STREAM + turnIndex);
    return (await this.mic.say(audio.samples, `backchannel ${turnIndex}`, signal, audio.voiced)).firstFrameDueMs;
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
      ctx.trace(
        `mic: ${stats.framesSent} frames (${stats.speechFrames} speech), lateness p50 ${fmt(l.p50Ms)} p99 ` +
          `${fmt(l.p99Ms)} max ${fmt(l.maxMs)}ms, ${stats.skippedSilenceFrames} late silence frames skipped`,
      );
    }
    await Promise.all(this.speechDone);
    await this.capture?.finish();
    const artifacts: MediaArtifacts = { notes: this.notes };
    const speech = this.providers.result();
    if (speech) artifacts.speech = speech;
    const channel = this.deps.channel;
    const turns = this.deps.scenario.kind === 'script' ? this.deps.scenario.turns : [];
    const seed = channel?.seedFor(turns) ?? null;
    if (channel && seed !== null)
      artifacts.conditions = { seed, applied: channel.conditionsFor(undefined) ?? {}, audio_sha256: this.degraded };
    if (this.recorder) {
      if (ctx?.signal.aborted) await this.recorder.discard();
      else {
        try {
          const info = await this.recorder.close();
          artifacts.recording = info.path;
          artifacts.recordingStartedAtMs = 0;
          ctx?.trace(
            `recording: ${info.path} (${Math.round(info.durationMs)}ms; user ` +
              `${Math.round(info.userAudioMs)}ms, bot ${Math.round(info.botAudioMs)}ms)`,
          );
          if (info.note) this.notes.push({ turn_index: 0, note: info.note });
        } catch (err) {
          ctx?.trace(`recording: not written: ${errorMessage(err)}`);
        }
      }
    }
    return artifacts;
  }

  /**
   * The turn's audio as the bot receives it: through the channel conditions, the voiced span kept from the clean voice.
   */
  private async onTheLine(audio: TurnAudio, turnIndex: number, streamId = turnIndex): Promise<TurnAudio> {
    const channel = this.deps.channel;
    if (!channel) return audio;
    const turn = this.deps.scenario.kind === 'script' ? this.deps.scenario.turns[turnIndex] : undefined;
    const samples = await channel.degrade(audio.samples, turn, streamId);
    if (samples === audio.samples) return audio;
    this.degraded[streamId === turnIndex ? String(turnIndex) : `${turnIndex}.backchannel`] = createHash('sha256')
      .update(new Uint8Array(samples.buffer, samples.byteOffset, samples.byteLength))
      .digest('hex');
    const clean = audibleBounds(audio.samples, audio.sampleRate);
    // Speaking rate changes the length: the clean span scales with it.
    const k = samples.length / Math.max(1, audio.samples.length);
    const voiced = clean && {
      first: Math.round(clean.first * k),
      end: Math.min(samples.length, Math.round(clean.end * k)),
    };
    return { ...audio, samples, voiced };
  }

  private dtmfAudio(keys: string, turnIndex: number): TurnAudio {
    const turn = this.deps.scenario.kind === 'script' ? this.deps.scenario.turns[turnIndex] : undefined;
    const samples = this.deps.channel!.dtmfAudio({
      dtmf: keys,
      ...(turn?.dtmf_tones ? { dtmf_tones: turn.dtmf_tones } : {}),
    });
    return { samples, sampleRate: this.deps.sendRate, label: `dtmf ${keys}` };
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
