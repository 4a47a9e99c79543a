import { dirname } from 'node:path';
import { monotonicClock, type Clock } from '../../core/clock.js';
import { Pacer, SileroVad } from '../../audio/index.js';
import { ThreadPacer } from '../../pacing/index.js';
import {
  createStt,
  createTts,
  defaultTtsProvider,
  ModelStore,
  resolveSphinx,
  type SttProvider,
  type SttSpec,
  type TtsProvider,
  type TtsSpec,
} from '../../speech/index.js';
import { UsageError } from '../../core/errors.js';
import { formatDiagnostic, unrunnableFactories, type ConditionOverrides, type Runnable } from '../../scenario/index.js';
import { CallerChannel } from './channel.js';
import { modeOf } from '../scenario-needs.js';
import type { MediaRequest, SessionMedia } from '../media.js';
import { AudioMedia } from './audio-media.js';
import {
  checkTranscriptionPlan,
  DEFAULT_BOT_INPUT_RATE,
  parseSttOverride,
  parseTtsOverride,
  specKey,
  transcriptionPlan,
  userSpeechPlan,
} from './speech-specs.js';
import { DEFAULT_DISAGREEMENT_WER } from '../../results/index.js';

/**
 * The audio engine of a run: the pieces every session of the process shares —
 * the one pacer (scheduler) all microphones tick on, the Silero VAD model,
 * TTS and STT providers (one per distinct spec) — and the factory that builds
 * each scenario run's `SessionMedia` from them. Create one per run (`earshot
 * run`, `earshot suite`, `earshot demo`), pass `engine.media` as the session's
 * media factory, and `close()` it at the end.
 *
 * Nothing loads until an audio scenario needs it: a text-only run never
 * starts ONNX Runtime, Flite or PocketSphinx.
 */
export interface AudioEngineOptions {
  /** `--tts NAME[:voice]`: replaces every scenario's `user.speech` service. */
  tts?: string;
  /** `--stt NAME[:model]`: replaces every scenario's `judge.transcription` service. */
  stt?: string;
  /**
   * `--stt-check NAME[:model]`: a second transcriber checks the first (replaces a scenario's second
   * `judge.transcription`).
   */
  sttCheck?: string;
  /**
   * `--stt-disagreement X`: the word error rate between the two transcripts above which they disagree (default: the
   * scenario's, else 0.3).
   */
  sttDisagreement?: number;
  /** Write the stereo recording (default true; `--no-record`). */
  record?: boolean;
  /** TTS utterance cache folder (`--cache-dir`); default speech's. */
  cacheDir?: string;
  /** Synthesize every utterance afresh (`--no-cache`). */
  noCache?: boolean;
  /** Load `factory:` providers (`--allow-code`). */
  allowCode?: boolean;
  /**
   * The shared scheduler; default one the engine creates (and closes): a
   * `ThreadPacer` on the real clock (it starts its thread on first use), an
   * in-thread `Pacer` on an injected clock (manual-time tests).
   */
  pacer?: Pacer | ThreadPacer;
  clock?: Clock;
  /** Bot audio taken in per turn (default 10 minutes). */
  maxTurnAudioMs?: number;
  modelStore?: ModelStore;
  /** `--condition key.path=value`: channel conditions for every scenario, field by field over its own. */
  conditions?: ConditionOverrides;
  /** `--seed`: the seed of every condition's random choices (replaces the scenarios'). */
  seed?: number;
}

export class AudioEngine {
  readonly pacer: Pacer | ThreadPacer;
  private readonly ownsPacer: boolean;
  private readonly ttsOverride?: TtsSpec;
  private readonly sttOverride?: SttSpec;
  private readonly sttCheckOverride?: SttSpec;
  private vadLoad: Promise<SileroVad> | null = null;
  private readonly tts = new Map<string, Promise<TtsProvider>>();
  private readonly stt = new Map<string, Promise<SttProvider>>();
  private store: ModelStore | null;
  private closed = false;

  /** Throws a UsageError for an unknown `--tts` / `--stt` provider. */
  constructor(private readonly options: AudioEngineOptions = {}) {
    if (options.tts !== undefined) this.ttsOverride = parseTtsOverride(options.tts);
    if (options.stt !== undefined) this.sttOverride = parseSttOverride(options.stt);
    if (options.sttCheck !== undefined) this.sttCheckOverride = parseSttOverride(options.sttCheck, '--stt-check');
    this.ownsPacer = !options.pacer;
    this.pacer =
      options.pacer ??
      (options.clock && options.clock !== monotonicClock ? new Pacer({ clock: options.clock }) : new ThreadPacer());
    this.store = options.modelStore ?? null;
  }

  /** Whether runs record by default. */
  get records(): boolean {
    return this.options.record !== false;
  }

  /** The session's media factory (`SessionOptions.media`). */
  readonly media = (scenario: Runnable, request: MediaRequest): SessionMedia | null => {
    const mode = modeOf(scenario);
    if (!mode.userAudio && !mode.botAudio) return null;
    // A simulated caller hears the bot through the transcription of its speech, and a GAIA turn is judged on it.
    const wantsResponse =
      scenario.kind === 'simulation' ||
      scenario.gaia !== undefined ||
      scenario.turns.some((t) => t.expect.some((e) => e.event === 'response'));
    // A Python `factory:` (Pipecat's) for a service this run needs and no flag replaces: refused, located.
    const needed = [
      mode.userAudio && !this.ttsOverride && 'user.speech',
      mode.botAudio && wantsResponse && !this.sttOverride && 'judge.transcription',
      mode.botAudio && wantsResponse && !this.sttCheckOverride && 'judge.transcription[1]',
    ];
    const [python] = unrunnableFactories(
      scenario,
      ['judge.eval', 'simulator', 'user.speech', 'judge.transcription', 'judge.transcription[1]'].filter(
        (b) => !needed.includes(b),
      ),
    );
    if (python) throw new UsageError(formatDiagnostic(python));
    const speech = userSpeechPlan(scenario, this.ttsOverride);
    const transcription = transcriptionPlan(scenario, this.sttOverride);
    const check = checkTranscriptionPlan(scenario, this.sttCheckOverride);
    // `factory:` paths are relative to the scenario file, as the loader resolved them (scenario.code_hooks).
    const baseDir = dirname(scenario.file);
    const spokenBy = speech.spec
      ? `${speech.spec.factory ?? speech.spec.provider}${speech.spec.voice ? `:${speech.spec.voice}` : ''}`
      : 'default TTS';
    const sendRate = request.botInputRate ?? DEFAULT_BOT_INPUT_RATE;
    const channel = mode.userAudio
      ? new CallerChannel({
          scenario,
          sampleRate: sendRate,
          ...(this.options.conditions ? { overrides: this.options.conditions } : {}),
          ...(this.options.seed !== undefined ? { seed: this.options.seed } : {}),
          // Babble is made of Flite's bundled voices, whatever speaks the caller.
          babbleTts: () => this.ttsFor({ provider: 'flite' }, baseDir),
        })
      : undefined;
    const heardBy =
      `${transcription.spec.factory ?? transcription.spec.provider}` +
      `${transcription.spec.model ? `:${transcription.spec.model}` : ''}`;
    return new AudioMedia({
      scenario,
      pacer: this.pacer,
      userAudio: mode.userAudio,
      botAudio: mode.botAudio,
      sampleRate: speech.sampleRate,
      sendRate: request.botInputRate ?? DEFAULT_BOT_INPUT_RATE,
      cutAt: request.speakingReports === false ? 'audio' : 'reports',
      tts: mode.userAudio ? () => this.ttsFor(speech.spec, baseDir) : null,
      stt: mode.botAudio && wantsResponse ? () => this.sttFor(transcription.spec, baseDir) : null,
      checkStt: mode.botAudio && wantsResponse && check ? () => this.sttFor(check, baseDir) : null,
      disagreementWer:
        this.options.sttDisagreement ?? scenario.judge.transcription_disagreement ?? DEFAULT_DISAGREEMENT_WER,
      ...(request.recordingPath ? { snippetPath: request.recordingPath } : {}),
      language: transcription.spec.language,
      vad: () => this.vad(),
      ...(this.records && request.recordingPath ? { recordingPath: request.recordingPath } : {}),
      maxTurnAudioMs: this.options.maxTurnAudioMs,
      ...(channel ? { channel } : {}),
      describe: [
        mode.userAudio
          ? `user speech ${spokenBy} (${speech.source}) at ${speech.sampleRate} Hz, sent at ` +
            `${request.botInputRate ?? DEFAULT_BOT_INPUT_RATE} Hz`
          : 'user types',
        mode.botAudio
          ? wantsResponse
            ? `bot transcribed by ${heardBy} (${transcription.source})` +
              `${check ? `, checked by ${check.factory ?? check.provider}${check.model ? `:${check.model}` : ''}` : ''}`
            : 'bot audio captured (no response asserted, not transcribed)'
          : 'bot silent',
        this.records && request.recordingPath ? `recording ${request.recordingPath}` : 'no recording',
        ...(channel?.describe() ? [channel.describe()] : []),
      ].join('; '),
    });
  };

  /** Releases the pacer (when the engine made it), the VAD and every provider. Idempotent. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsPacer) this.pacer.close();
    const closing: Promise<unknown>[] = [];
    for (const p of [...this.tts.values(), ...this.stt.values()])
      closing.push(
        p.then(
          (x) => x.close(),
          () => undefined,
        ),
      );
    if (this.vadLoad)
      closing.push(
        this.vadLoad.then(
          (v) => v.close(),
          () => undefined,
        ),
      );
    await Promise.all(closing);
  }

  private modelStore(): ModelStore {
    this.store ??= ModelStore.fromEnv();
    return this.store;
  }

  private vad(): Promise<SileroVad> {
    this.vadLoad ??= SileroVad.load();
    return this.vadLoad;
  }

  private ttsFor(spec: TtsSpec | null, baseDir: string): Promise<TtsProvider> {
    const resolved = spec ?? { provider: defaultTtsProvider(this.modelStore()) };
    const key = specKey(resolved, baseDir);
    let p = this.tts.get(key);
    if (!p) {
      p = createTts(resolved, {
        allowCode: this.options.allowCode,
        baseDir,
        modelStore: this.modelStore(),
        cacheDir: this.options.cacheDir,
        noCache: this.options.noCache,
      });
      this.tts.set(key, p);
    }
    return p;
  }

  private sttFor(spec: SttSpec, baseDir: string): Promise<SttProvider> {
    const key = specKey(spec, baseDir);
    let p = this.stt.get(key);
    if (!p) {
      p = createStt(spec, { allowCode: this.options.allowCode, baseDir, modelStore: this.modelStore() });
      this.stt.set(key, p);
    }
    return p;
  }
}

/**
 * Says whether PocketSphinx (the offline recognizer the bundled audio
 * scenarios and the reference bot use) is installed; throws the speech
 * layer's DependencyMissingError, which names the apt packages, when not.
 */
export function checkSphinxInstalled(): void {
  resolveSphinx();
}
