/**
 * The scenario's `conditions:` block, normalized (earshot extension): what
 * happens to the caller's voice on its way to the bot. The audio layer
 * (src/audio/conditions) takes the same shape; the session hands it over.
 */
export const NOISE_KINDS = ['white', 'pink', 'babble'] as const;
export const CONCEAL_KINDS = ['zero', 'repeat'] as const;
export const TELEPHONY_CODEC_NAMES = ['mulaw'] as const;
export const DTMF_MODES = ['rtvi', 'inband'] as const;
export type DtmfMode = (typeof DTMF_MODES)[number];

export interface ScenarioConditions {
  noise?: { type: (typeof NOISE_KINDS)[number] | 'wav'; snr_db: number; path?: string };
  telephony?: { codec: (typeof TELEPHONY_CODEC_NAMES)[number] };
  loss?: { rate: number; burst_ms: number; conceal: (typeof CONCEAL_KINDS)[number] };
  gain?: { gain_db: number; clip_dbfs: number };
  speaking_rate?: { factor: number };
  seed?: number;
}

/** In-band DTMF tones (ITU-T Q.23 pairs): how long each sounds, the silence after it, each sine's peak level. */
export interface DtmfTones {
  tone_ms: number;
  gap_ms: number;
  level_dbfs: number;
}

export const DEFAULT_DTMF_TONES: Readonly<DtmfTones> = Object.freeze({ tone_ms: 100, gap_ms: 60, level_dbfs: -10 });
export const DEFAULT_LOSS_BURST_MS = 20;
