import { UsageError } from '../../core/errors.js';
import {
  parseSttSpec,
  parseTtsSpec,
  STT_PROVIDERS,
  TTS_PROVIDERS,
  type SttSpec,
  type TtsSpec,
} from '../../speech/index.js';
import { formatLocation, locationOf, type Runnable } from '../../scenario/index.js';

/**
 * Which voice speaks the user's turns and which recognizer transcribes the
 * bot, from the scenario's `user.speech` / `judge.transcription` blocks and
 * the command line's `--tts NAME[:voice]` / `--stt NAME[:model]`.
 *
 * An override replaces the service and everything specific to it (voice,
 * model, device, factory: kokoro's `af_heart` means nothing to Flite), and
 * keeps what belongs to the scenario: the user audio's `sample_rate`, and the
 * transcription's `language` and `padding_secs`. That is what lets Pipecat's
 * scenarios that ask for kokoro/moonshine run offline with flite/sphinx.
 */

/** Rate of the user's audio when the scenario sets none (what Pipecat's eval bots read). */
export const DEFAULT_USER_SAMPLE_RATE = 16000;
/**
 * Rate the caller's audio is sent at unless `--bot-input-rate` says otherwise: a Pipecat pipeline's default input rate,
 * and it does not resample.
 */
export const DEFAULT_BOT_INPUT_RATE = 16000;

/**
 * The located warning for a scenario whose speech rate differs from the rate
 * the bot takes (the audio is resampled), or null.
 */
export function sampleRateWarning(scenario: Runnable, botInputRate: number, cwd?: string): string | null {
  if (scenario.user.modality !== 'audio') return null;
  const rate = userSpeechPlan(scenario).sampleRate;
  if (rate === botInputRate) return null;
  const loc = locationOf(scenario, 'user.speech.sample_rate');
  return (
    `${formatLocation(loc, cwd)}: warning: user.speech.sample_rate: ${rate} Hz differs from the bot's input rate ` +
    `${botInputRate} Hz (--bot-input-rate); the caller's audio is resampled to ${botInputRate} Hz, since Pipecat ` +
    'does not resample its input'
  );
}

export interface UserSpeechPlan {
  /** null: the default provider (kokoro where its model is present, else flite). */
  spec: TtsSpec | null;
  sampleRate: number;
  /** What the plan came from, for the trace. */
  source: 'override' | 'scenario' | 'default';
}

export interface TranscriptionPlan {
  spec: SttSpec;
  source: 'override' | 'scenario';
}

/** Checks a `--tts` value up front (a typo is a usage error before any bot is contacted). */
export function parseTtsOverride(value: string): TtsSpec {
  const spec = parseTtsSpec(value);
  if (!Object.hasOwn(TTS_PROVIDERS, spec.provider)) {
    throw new UsageError(
      `--tts ${value}: unknown TTS '${spec.provider}' (known: ${Object.keys(TTS_PROVIDERS).join(', ')})`,
    );
  }
  return spec;
}

/** Checks an `--stt` (or `--stt-check`) value up front. */
export function parseSttOverride(value: string, flag = '--stt'): SttSpec {
  const spec = parseSttSpec(value);
  if (!Object.hasOwn(STT_PROVIDERS, spec.provider)) {
    throw new UsageError(
      `${flag} ${value}: unknown STT '${spec.provider}' (known: ${Object.keys(STT_PROVIDERS).join(', ')})`,
    );
  }
  return spec;
}

export function userSpeechPlan(scenario: Runnable, override?: TtsSpec): UserSpeechPlan {
  const speech = scenario.user.speech;
  const sampleRate = typeof speech?.sample_rate === 'number' ? speech.sample_rate : DEFAULT_USER_SAMPLE_RATE;
  if (override) return { spec: { ...override }, sampleRate, source: 'override' };
  if (speech && (speech.service !== undefined || speech.factory !== undefined)) {
    return { spec: parseTtsSpec(speech as Record<string, unknown>), sampleRate, source: 'scenario' };
  }
  return { spec: null, sampleRate, source: 'default' };
}

export function transcriptionPlan(scenario: Runnable, override?: SttSpec): TranscriptionPlan {
  const block = scenario.judge.transcription;
  if (override) {
    const spec: SttSpec = { provider: override.provider };
    if (override.model !== undefined) spec.model = override.model;
    if (block?.language !== undefined) spec.language = block.language;
    if (block?.padding_secs !== undefined) spec.padding_secs = block.padding_secs;
    return { spec, source: 'override' };
  }
  return { spec: parseSttSpec((block ?? {}) as Record<string, unknown>), source: 'scenario' };
}

/**
 * The second transcriber, which checks the first (`--stt-check`, else the
 * second `judge.transcription` entry); null when there is none. An override
 * keeps the scenario's language, as `--stt` does.
 */
export function checkTranscriptionPlan(scenario: Runnable, override?: SttSpec): SttSpec | null {
  const block = scenario.judge.transcription_check;
  if (override) {
    const spec: SttSpec = { provider: override.provider };
    if (override.model !== undefined) spec.model = override.model;
    const language = block?.language ?? scenario.judge.transcription?.language;
    if (language !== undefined) spec.language = language;
    return spec;
  }
  return block ? parseSttSpec(block as Record<string, unknown>) : null;
}

/** A stable key for sharing one provider between runs that ask for the same one. */
export function specKey(spec: TtsSpec | SttSpec | null, baseDir: string): string {
  return JSON.stringify([spec, spec && 'factory' in spec && spec.factory ? baseDir : '']);
}
