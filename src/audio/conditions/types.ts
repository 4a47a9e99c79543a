/**
 * Channel conditions: what happens to the caller's voice between the mouth
 * and the bot (a noisy room, a phone line, a lossy network). The shapes
 * mirror the scenario's `conditions:` block; the scenario layer validates and
 * normalizes it and hands over this structure.
 */

export const NOISE_TYPES = ['white', 'pink', 'babble', 'wav'] as const;
export type NoiseType = (typeof NOISE_TYPES)[number];

export interface NoiseCondition {
  type: NoiseType;
  /** Active speech level of the caller minus the noise's RMS level, in dB. */
  snr_db: number;
  /** The noise recording, for `type: wav` (absolute path). */
  path?: string;
}

export const TELEPHONY_CODECS = ['mulaw'] as const;
export type TelephonyCodec = (typeof TELEPHONY_CODECS)[number];

export interface TelephonyCondition {
  /** G.711 µ-law at 8 kHz, after a 300–3400 Hz band-limit. */
  codec: TelephonyCodec;
}

export const CONCEALMENTS = ['zero', 'repeat'] as const;
export type Concealment = (typeof CONCEALMENTS)[number];

export interface LossCondition {
  /** Share of 20 ms packets lost, 0..1 (long-run). */
  rate: number;
  /** Mean length of a loss burst; rounded to whole packets, at least one. */
  burst_ms: number;
  /** What the receiver plays for a lost packet: silence, or the last packet it got. */
  conceal: Concealment;
}

export interface GainCondition {
  /** Gain applied to the voice (a hot or a distant microphone). */
  gain_db: number;
  /** Hard clipping level after the gain (0: full scale). */
  clip_dbfs: number;
}

export interface SpeakingRateCondition {
  /** Tempo factor: 1.25 speaks a quarter faster, pitch kept. */
  factor: number;
}

export interface ChannelConditions {
  noise?: NoiseCondition;
  telephony?: TelephonyCondition;
  loss?: LossCondition;
  gain?: GainCondition;
  speaking_rate?: SpeakingRateCondition;
  /** Seed of every random choice (noise samples, lost packets, babble offsets). */
  seed?: number;
}

/** The transforms in the order they are applied: voice, room, line, network. */
export const CONDITION_ORDER = ['speaking_rate', 'gain', 'noise', 'telephony', 'loss'] as const;
export type ConditionName = (typeof CONDITION_ORDER)[number];

/**
 * One stage of the chain: chunks in, chunks out, state carried between
 * chunks. A stage may hold samples back (a resampler's look-ahead, a
 * time-stretch's window) and gives them up on `flush`; over a whole stream the
 * output length is the stage's own (equal to the input for every stage but
 * speaking rate).
 */
export interface ChunkTransform {
  readonly name: ConditionName;
  process(chunk: Int16Array): Int16Array;
  flush(): Int16Array;
  /** Frees what the stage holds (a WASM resampler). Safe to call twice. */
  close(): void;
}

export interface ConditionContext {
  sampleRate: number;
  /** The stage's own seeded generator (uniform in [0, 1)). */
  random: () => number;
  /**
   * Active level of the voice entering the stage (dBFS; see activeLevelDbfs),
   * null for silence: what `snr_db` is relative to.
   */
  speechLevelDbfs: number | null;
  /** Speech of several voices talking at once, at `sampleRate`: the babble noise source. */
  babble?: () => Promise<Int16Array>;
}

export type ConditionFactory<K extends ConditionName> = (
  config: NonNullable<ChannelConditions[K]>,
  ctx: ConditionContext,
) => Promise<ChunkTransform>;
