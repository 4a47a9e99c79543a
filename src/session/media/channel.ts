import {
  applyConditions,
  DEFAULT_CONDITION_SEED,
  dtmfTones,
  hasConditions,
  mergeConditions,
  mixPcm,
  silence,
  type ChannelConditions,
} from '../../audio/index.js';
import {
  applyConditionOverrides,
  DEFAULT_DTMF_TONES,
  type ConditionOverrides,
  type Runnable,
  type ScenarioConditions,
  type Turn,
} from '../../scenario/index.js';
import type { TtsProvider } from '../../speech/index.js';

/**
 * The caller's side of the line (earshot extension): which channel conditions
 * each utterance goes through (file/scenario, then the turn per condition,
 * then `--condition` field by field, `--seed` over the seed) and the in-band
 * DTMF tones. The audio is degraded before it is paced, so what the
 * microphone sends — and the recording keeps — is what the bot received.
 */
export interface CallerChannelOptions {
  scenario: Runnable;
  /** The rate the audio is sent at. */
  sampleRate: number;
  overrides?: ConditionOverrides;
  /** `--seed`: replaces every seed the scenario sets. */
  seed?: number;
  /** A TTS for the babble voices (Flite's bundled ones). */
  babbleTts?: () => Promise<TtsProvider>;
}

/** Stream ids of what is not a turn's own utterance, apart from turn indexes. */
export const BACKCHANNEL_STREAM = 1_000_000;

const BABBLE_VOICES = ['slt', 'rms', 'awb', 'kal'] as const;
const BABBLE_LINES = [
  'I was telling her about the weekend and she said we should go back there in the spring.',
  'No, the other one, the one with the blue door near the station, you know the place.',
  'Can you pass me the menu? I think they changed the lunch specials again this week.',
  'He called twice this morning and then again after the meeting, so I finally picked up.',
] as const;

export class CallerChannel {
  private babble: Promise<Int16Array> | null = null;

  constructor(private readonly opts: CallerChannelOptions) {}

  /** The conditions of turn `turnIndex` (undefined: the clean studio voice). */
  conditionsFor(turn: Pick<Turn, 'conditions'> | undefined): ChannelConditions | undefined {
    const { scenario, overrides, seed } = this.opts;
    const merged = mergeConditions(scenario.conditions, turn?.conditions) as ScenarioConditions | undefined;
    return applyConditionOverrides(merged, overrides, seed, (p) => p);
  }

  /** The seed the run's random choices come from (recorded in the result), null when no condition applies. */
  seedFor(turns: ReadonlyArray<Pick<Turn, 'conditions'>>): number | null {
    const all = [this.conditionsFor(undefined), ...turns.map((t) => this.conditionsFor(t))];
    const used = all.find((c) => hasConditions(c));
    return used ? (used.seed ?? DEFAULT_CONDITION_SEED) : null;
  }

  /** A one-line account of the scenario-wide conditions, for the trace. */
  describe(): string | null {
    const c = this.conditionsFor(undefined);
    if (!hasConditions(c)) return null;
    return `conditions ${JSON.stringify(c)}`;
  }

  /**
   * `samples` as the bot hears them on turn `turnIndex`'s line (`streamId` keeps each utterance's randomness its own).
   */
  async degrade(
    samples: Int16Array,
    turn: Pick<Turn, 'conditions'> | undefined,
    streamId: number,
  ): Promise<Int16Array> {
    const conditions = this.conditionsFor(turn);
    if (!hasConditions(conditions)) return samples;
    const needsBabble = conditions?.noise?.type === 'babble';
    return applyConditions(samples, conditions, {
      sampleRate: this.opts.sampleRate,
      streamId,
      ...(needsBabble ? { babble: () => this.babbleSource() } : {}),
    });
  }

  /** Whether turn `turn`'s keys go as tones in the audio. */
  inbandDtmf(turn: Pick<Turn, 'dtmf' | 'dtmf_mode'>): boolean {
    return turn.dtmf !== undefined && (turn.dtmf_mode ?? this.opts.scenario.dtmf_mode) === 'inband';
  }

  /** The keys' Q.23 tone pairs, with 100 ms of silence ahead so the first tone does not start on the frame edge. */
  dtmfAudio(turn: Pick<Turn, 'dtmf' | 'dtmf_tones'>): Int16Array {
    const tones = turn.dtmf_tones ?? this.opts.scenario.dtmf_tones ?? DEFAULT_DTMF_TONES;
    const pcm = dtmfTones(turn.dtmf ?? '', {
      sampleRate: this.opts.sampleRate,
      toneMs: tones.tone_ms,
      gapMs: tones.gap_ms,
      levelDbfs: tones.level_dbfs,
    });
    const lead = silence(100, this.opts.sampleRate);
    const out = new Int16Array(lead.length + pcm.length);
    out.set(pcm, lead.length);
    return out;
  }

  /** Four bundled Flite voices talking at once, each line starting at its own offset: a café's babble. */
  private babbleSource(): Promise<Int16Array> {
    this.babble ??= this.makeBabble();
    return this.babble;
  }

  private async makeBabble(): Promise<Int16Array> {
    const tts = this.opts.babbleTts;
    if (!tts) throw new Error('babble noise needs a TTS for its voices');
    const provider = await tts();
    const rate = this.opts.sampleRate;
    let mix: Int16Array = new Int16Array(0);
    for (const [i, voice] of BABBLE_VOICES.entries()) {
      const out = await provider.synthesize(BABBLE_LINES[i], { sampleRate: rate, voice });
      const offset = Math.round((i * 0.37 * rate) % Math.max(1, out.pcm.length));
      if (mix.length < out.pcm.length + offset) {
        const grown = new Int16Array(out.pcm.length + offset);
        grown.set(mix);
        mix = grown;
      }
      // Each voice at a quarter: four together stay clear of clipping.
      mix = mixPcm(
        mix,
        out.pcm.map((s) => s >> 2),
        offset,
      );
    }
    return mix;
  }
}
