import { UsageError } from '../core/errors.js';
import { asRecord, type Normalizer } from './normalize.js';
import {
  CONCEAL_KINDS,
  DEFAULT_DTMF_TONES,
  DEFAULT_LOSS_BURST_MS,
  NOISE_KINDS,
  TELEPHONY_CODEC_NAMES,
  type DtmfMode,
  type DtmfTones,
  type ScenarioConditions,
} from './condition-types.js';

/**
 * earshot extension: channel conditions (`conditions:`) and in-band DTMF
 * (`dtmf_mode:`, `dtmf_tones:`), at file, scenario or turn level. The field
 * tables check types and ranges (located); this file gives them meaning and
 * parses the command line's `--condition key.path=value`.
 */

const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);

/** A `conditions:` block at `p` (a scenario's or a turn's), or undefined when absent. */
export function normalizeConditions(
  value: unknown,
  p: string,
  n: Normalizer,
  audio: boolean,
): ScenarioConditions | undefined {
  const raw = asRecord(value);
  if (!raw) return undefined;
  if (!audio) {
    n.error(p, "conditions degrade the caller's audio, which needs 'user.modality: audio' (a typed turn has no audio)");
    return undefined;
  }
  const out: ScenarioConditions = {};
  const noise = asRecord(raw.noise);
  if (noise && typeof noise.type === 'string' && typeof noise.snr_db === 'number') {
    const type = noise.type;
    if ((NOISE_KINDS as readonly string[]).includes(type))
      out.noise = { type: type as (typeof NOISE_KINDS)[number], snr_db: noise.snr_db };
    else if (/\.wav$/i.test(type)) {
      const file = n.localFile(`${p}.noise.type`, type, 'noise recording');
      if (file) out.noise = { type: 'wav', snr_db: noise.snr_db, path: file };
    } else
      n.error(
        `${p}.noise.type`,
        `unknown noise ${JSON.stringify(type)}: white, pink, babble or a .wav path`,
        'white, pink, babble or a .wav path',
      );
  }
  if (asRecord(raw.telephony)) out.telephony = { codec: 'mulaw' };
  const loss = asRecord(raw.loss);
  if (loss && typeof loss.rate === 'number') {
    out.loss = {
      rate: loss.rate,
      burst_ms: num(loss.burst_ms) ?? DEFAULT_LOSS_BURST_MS,
      conceal: loss.conceal === 'repeat' ? 'repeat' : 'zero',
    };
  }
  const gain = asRecord(raw.gain);
  if (gain && typeof gain.gain_db === 'number')
    out.gain = { gain_db: gain.gain_db, clip_dbfs: num(gain.clip_dbfs) ?? 0 };
  const rate = asRecord(raw.speaking_rate);
  if (rate && typeof rate.factor === 'number') out.speaking_rate = { factor: rate.factor };
  if (typeof raw.seed === 'number') out.seed = raw.seed;
  return out;
}

export function normalizeDtmfMode(value: unknown, p: string, n: Normalizer, audio: boolean): DtmfMode | undefined {
  if (value !== 'inband' && value !== 'rtvi') return undefined;
  if (value === 'inband' && !audio) {
    n.error(p, "in-band DTMF plays tones in the caller's audio, which needs 'user.modality: audio'");
    return undefined;
  }
  return value;
}

export function normalizeDtmfTones(value: unknown): DtmfTones | undefined {
  const raw = asRecord(value);
  if (!raw) return undefined;
  return {
    tone_ms: num(raw.tone_ms) ?? DEFAULT_DTMF_TONES.tone_ms,
    gap_ms: num(raw.gap_ms) ?? DEFAULT_DTMF_TONES.gap_ms,
    level_dbfs: num(raw.level_dbfs) ?? DEFAULT_DTMF_TONES.level_dbfs,
  };
}

/**
 * `--condition` keys, their kind and range: the command line's own check (a typo is a usage error before any bot
 * starts).
 */
const FLAG_KEYS: Record<
  string,
  | { kind: 'number'; min?: number; max?: number; above?: number }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'noise' }
> = {
  'noise.type': { kind: 'noise' },
  'noise.snr_db': { kind: 'number' },
  'telephony.codec': { kind: 'enum', values: TELEPHONY_CODEC_NAMES },
  'loss.rate': { kind: 'number', min: 0, max: 1 },
  'loss.burst_ms': { kind: 'number', above: 0 },
  'loss.conceal': { kind: 'enum', values: CONCEAL_KINDS },
  'gain.gain_db': { kind: 'number' },
  'gain.clip_dbfs': { kind: 'number', max: 0 },
  'speaking_rate.factor': { kind: 'number', above: 0, max: 4 },
};

/** What `--condition` flags set: per condition, the fields given (merged into the scenario's, field by field). */
export type ConditionOverrides = {
  [K in Exclude<keyof ScenarioConditions, 'seed' | 'noise'>]?: Partial<NonNullable<ScenarioConditions[K]>>;
} & {
  /** `type` as written: a kind, or a WAV path. */
  noise?: { type?: string; snr_db?: number };
};

/** Parses `--condition key.path=value` flags (repeatable); throws a UsageError naming the bad one. */
export function parseConditionFlags(flags: readonly string[]): ConditionOverrides {
  const out: Record<string, Record<string, unknown>> = {};
  for (const flag of flags) {
    const eq = flag.indexOf('=');
    const key = eq > 0 ? flag.slice(0, eq).trim() : '';
    const value = eq > 0 ? flag.slice(eq + 1).trim() : '';
    const spec = FLAG_KEYS[key];
    if (!spec)
      throw new UsageError(
        `--condition ${flag}: expected key.path=value with a key of ${Object.keys(FLAG_KEYS).join(', ')}`,
      );
    const [block, field] = key.split('.') as [string, string];
    let parsed: unknown = value;
    if (spec.kind === 'number') {
      const x = Number(value);
      const bad =
        value === '' ||
        !Number.isFinite(x) ||
        (spec.min !== undefined && x < spec.min) ||
        (spec.max !== undefined && x > spec.max) ||
        (spec.above !== undefined && x <= spec.above);
      if (bad) {
        const range = [
          spec.min !== undefined && `>= ${spec.min}`,
          spec.above !== undefined && `> ${spec.above}`,
          spec.max !== undefined && `<= ${spec.max}`,
        ]
          .filter(Boolean)
          .join(' and ');
        throw new UsageError(`--condition ${flag}: ${key} must be a number${range ? ` ${range}` : ''}`);
      }
      parsed = x;
    } else if (spec.kind === 'enum') {
      if (!spec.values.includes(value))
        throw new UsageError(`--condition ${flag}: ${key} must be one of ${spec.values.join(', ')}`);
    } else if (!(NOISE_KINDS as readonly string[]).includes(value) && !/\.wav$/i.test(value)) {
      throw new UsageError(`--condition ${flag}: noise.type must be white, pink, babble or a .wav path`);
    }
    out[block] ??= {};
    out[block][field] = parsed;
  }
  return out as ConditionOverrides;
}

/**
 * Defaults for a condition a flag switches on that the scenario does not have (`--condition noise.snr_db=10` on a quiet
 * scenario: white noise).
 */
const FLAG_DEFAULTS = {
  noise: { type: 'white', snr_db: 20 },
  telephony: { codec: 'mulaw' },
  loss: { rate: 0, burst_ms: DEFAULT_LOSS_BURST_MS, conceal: 'zero' },
  gain: { gain_db: 0, clip_dbfs: 0 },
  speaking_rate: { factor: 1 },
} as const;

/**
 * The command line's overrides over a scenario's (or turn's) conditions, field
 * by field; `--seed` replaces the seed. A noise type given as a path is read
 * relative to the working directory (`resolvePath`).
 */
export function applyConditionOverrides(
  base: ScenarioConditions | undefined,
  overrides: ConditionOverrides | undefined,
  seed: number | undefined,
  resolvePath: (p: string) => string = (p) => p,
): ScenarioConditions | undefined {
  if (!overrides && seed === undefined) return base;
  const out: ScenarioConditions = { ...(base ?? {}) };
  for (const [key, fields] of Object.entries(overrides ?? {}) as Array<
    [keyof typeof FLAG_DEFAULTS, Record<string, unknown>]
  >) {
    const merged: Record<string, unknown> = { ...FLAG_DEFAULTS[key], ...(out[key] ?? {}), ...fields };
    if (key === 'noise' && typeof fields.type === 'string') {
      if (/\.wav$/i.test(fields.type)) Object.assign(merged, { type: 'wav', path: resolvePath(fields.type) });
      else delete merged.path;
    }
    (out as Record<string, unknown>)[key] = merged;
  }
  if (seed !== undefined) out.seed = seed;
  return out;
}

/** `conditions:`, `dtmf_mode:` and `dtmf_tones:` of a scenario (`p` = '') or a turn, with what is set only. */
export function normalizeConditionFields(
  raw: Record<string, unknown>,
  p: string,
  n: Normalizer,
  user: { modality: string },
): { conditions?: ScenarioConditions; dtmf_mode?: DtmfMode; dtmf_tones?: DtmfTones } {
  const audio = user.modality === 'audio';
  const at = (k: string): string => (p ? `${p}.${k}` : k);
  const out: { conditions?: ScenarioConditions; dtmf_mode?: DtmfMode; dtmf_tones?: DtmfTones } = {};
  const conditions = normalizeConditions(raw.conditions, at('conditions'), n, audio);
  if (conditions) out.conditions = conditions;
  const mode = normalizeDtmfMode(raw.dtmf_mode, at('dtmf_mode'), n, audio);
  if (mode) out.dtmf_mode = mode;
  const tones = normalizeDtmfTones(raw.dtmf_tones);
  if (tones) out.dtmf_tones = tones;
  return out;
}
