import type { RefSpec, Spec, StringSpec } from './spec.js';
import {
  CONCEAL_KINDS,
  DEFAULT_DTMF_TONES,
  DEFAULT_LOSS_BURST_MS,
  DTMF_MODES,
  TELEPHONY_CODEC_NAMES,
} from './condition-types.js';

/**
 * The field tables of earshot's channel conditions (`conditions:`) and
 * in-band DTMF (`dtmf_mode:`, `dtmf_tones:`), shared by the scenario (and a
 * file's defaults) and the turn. Kept apart from fields.ts's helpers so the
 * normalizer (conditions.ts) can import the tables without a cycle.
 */
const s = (description: string, extra: Partial<StringSpec> = {}): StringSpec => ({
  kind: 'string',
  description,
  ...extra,
});

export const CONDITIONS_SPEC: RefSpec = {
  kind: 'ref',
  name: 'conditions',
  spec: {
    kind: 'object',
    description:
      "earshot extension: what happens to the caller's audio on its way to the bot (user.modality: audio); " +
      'applied to each utterance before it is paced, so the recording holds what the bot received. ' +
      "A turn's conditions replace the scenario's per condition.",
    fields: {
      noise: {
        kind: 'object',
        description: "Additive background noise at an SNR against the caller's active speech level.",
        required: ['type', 'snr_db'],
        fields: {
          type: s(
            'white, pink, babble (several bundled Flite voices at once) or a WAV path ' +
              '(relative to the scenario file), looped.',
            { nonEmpty: true },
          ),
          snr_db: { kind: 'number', unit: 'dB', description: 'Active speech level minus the noise RMS level.' },
        },
      },
      telephony: {
        kind: 'object',
        description: 'A phone line: 8 kHz, band-limited to 300-3400 Hz, through the codec and back.',
        fields: { codec: s('G.711 µ-law.', { enum: TELEPHONY_CODEC_NAMES, default: 'mulaw' }) },
      },
      loss: {
        kind: 'object',
        description: 'Packet loss in 20 ms packets, in bursts.',
        required: ['rate'],
        fields: {
          rate: { kind: 'number', min: 0, max: 1, description: 'Long-run share of packets lost.' },
          burst_ms: {
            kind: 'number',
            exclusiveMin: 0,
            unit: 'ms',
            default: DEFAULT_LOSS_BURST_MS,
            description: 'Length of each loss burst (whole 20 ms packets).',
          },
          conceal: s('What plays for a lost packet: zero (silence) or repeat (the last packet received).', {
            enum: CONCEAL_KINDS,
            default: 'zero',
          }),
        },
      },
      gain: {
        kind: 'object',
        description: 'Microphone gain, then hard clipping.',
        required: ['gain_db'],
        fields: {
          gain_db: { kind: 'number', unit: 'dB', description: 'Gain applied to the voice.' },
          clip_dbfs: {
            kind: 'number',
            max: 0,
            unit: 'dBFS',
            default: 0,
            description: 'Clipping level after the gain.',
          },
        },
      },
      speaking_rate: {
        kind: 'object',
        description: 'A faster or slower talker, pitch kept (WSOLA time-stretch).',
        required: ['factor'],
        fields: {
          factor: { kind: 'number', exclusiveMin: 0, max: 4, description: '1.25: a quarter faster; 0.8: slower.' },
        },
      },
      seed: {
        kind: 'integer',
        min: 0,
        description: 'Seed of every random choice (noise, lost packets); --seed overrides it; default 1.',
      },
    },
  },
};

export const DTMF_MODE_SPEC: Spec = s(
  'earshot extension: how dtmf: turns reach the bot: rtvi (a send-dtmf message, the default) ' +
    'or inband (Q.23 tones in the caller audio; user.modality: audio).',
  {
    enum: DTMF_MODES,
  },
);

export const DTMF_TONES_SPEC: RefSpec = {
  kind: 'ref',
  name: 'dtmf_tones',
  spec: {
    kind: 'object',
    description: 'earshot extension: the in-band DTMF tones (dtmf_mode: inband).',
    fields: {
      tone_ms: {
        kind: 'number',
        min: 40,
        unit: 'ms',
        default: DEFAULT_DTMF_TONES.tone_ms,
        description: 'Duration of each tone (Q.24 receivers need 40 ms).',
      },
      gap_ms: {
        kind: 'number',
        min: 40,
        unit: 'ms',
        default: DEFAULT_DTMF_TONES.gap_ms,
        description: 'Silence after each tone.',
      },
      level_dbfs: {
        kind: 'number',
        max: -3,
        unit: 'dBFS',
        default: DEFAULT_DTMF_TONES.level_dbfs,
        description: 'Peak level of each of the two sines.',
      },
    },
  },
};

/** earshot extension: the turn-taking probe of a mid-utterance pause (Full-Duplex-Bench's pause handling). */
export const PROBE_FIELDS = {
  pause_ms: {
    kind: 'integer',
    min: 1,
    unit: 'ms',
    description:
      'earshot extension: the caller stops mid-sentence for this long and goes on (user: text, spoken); ' +
      'where: pause_after.',
  },
  pause_after: s(
    'earshot extension: the words of user: after which the pause falls (default: after the middle word).',
    { nonEmpty: true },
  ),
  backchannel: {
    kind: 'object',
    description:
      'earshot extension: a short murmur the caller plays while the bot answers this turn, ' +
      "after_ms after the bot's audio starts (Full-Duplex-Bench v1.5's backchannel).",
    fields: {
      text: s('What the caller murmurs (synthesized like user:).', { nonEmpty: true, default: 'right' }),
      after_ms: {
        kind: 'integer',
        min: 0,
        unit: 'ms',
        default: 1000,
        description: "Delay after the bot's audio onset in this turn.",
      },
    },
  },
  yielded: {
    kind: 'boolean',
    description:
      'earshot extension, with backchannel: whether the bot may stop talking for the murmur ' +
      '(false: it must keep the floor; fails with backchannel_yield).',
  },
  takeover: {
    kind: 'boolean',
    description:
      'earshot extension, with pause_ms: whether the bot may take the turn in the pause ' +
      '(false: it must not start speaking before the caller finishes; fails with takeover).',
  },
} satisfies Record<string, Spec>;

/** The fields these blocks add to a scenario (and a file's defaults) and to a turn. */
export const CONDITION_FIELDS = {
  conditions: CONDITIONS_SPEC,
  dtmf_mode: DTMF_MODE_SPEC,
  dtmf_tones: DTMF_TONES_SPEC,
} satisfies Record<string, Spec>;
