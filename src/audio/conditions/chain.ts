import { concatPcm } from '../pcm.js';
import { seededRandom } from '../../core/random.js';
import { gainStage } from './gain.js';
import { activeLevelDbfs } from './level.js';
import { lossStage } from './loss.js';
import { noiseStage } from './noise.js';
import { speakingRateStage } from './rate.js';
import { telephonyStage } from './telephony.js';
import {
  CONDITION_ORDER,
  type ChannelConditions,
  type ChunkTransform,
  type ConditionFactory,
  type ConditionName,
} from './types.js';

/** The stages by name: a new condition is a file and a line here (and its place in CONDITION_ORDER). */
export const CONDITIONS: { readonly [K in ConditionName]: ConditionFactory<K> } = {
  speaking_rate: speakingRateStage,
  gain: gainStage,
  noise: noiseStage,
  telephony: telephonyStage,
  loss: lossStage,
};

/** The seed used when neither the scenario nor `--seed` sets one. */
export const DEFAULT_CONDITION_SEED = 1;

export interface ChainOptions {
  sampleRate: number;
  /**
   * The utterance being degraded (a turn index, a backchannel's): each gets its own random stream from the one seed.
   */
  streamId: number;
  /** Active level of the clean voice (activeLevelDbfs); null for silence. */
  speechLevelDbfs: number | null;
  babble?: () => Promise<Int16Array>;
}

/** The conditions' stages, in CONDITION_ORDER; empty when none is set. */
export async function buildChain(conditions: ChannelConditions, options: ChainOptions): Promise<ChunkTransform[]> {
  const seed = conditions.seed ?? DEFAULT_CONDITION_SEED;
  const stages: ChunkTransform[] = [];
  let level = options.speechLevelDbfs;
  try {
    for (const [i, name] of CONDITION_ORDER.entries()) {
      const config = conditions[name];
      if (config === undefined) continue;
      const ctx = {
        sampleRate: options.sampleRate,
        random: seededRandom(deriveSeed(seed, options.streamId, i)),
        speechLevelDbfs: level,
        ...(options.babble ? { babble: options.babble } : {}),
      };
      // Each entry of the table takes its own config; the cast names the pairing TypeScript cannot follow through the
      // loop.
      const factory = CONDITIONS[name] as ConditionFactory<ConditionName>;
      stages.push(await factory(config as never, ctx));
      // The noise is set against the voice as it reaches the room: after the gain (clipping aside).
      if (name === 'gain' && level !== null && conditions.gain) level += conditions.gain.gain_db;
    }
  } catch (err) {
    for (const s of stages) s.close();
    throw err;
  }
  return stages;
}

/** Pushes one chunk through every stage. */
export function processChunk(stages: readonly ChunkTransform[], chunk: Int16Array): Int16Array {
  let x = chunk;
  for (const s of stages) x = s.process(x);
  return x;
}

/** Ends the stream: each stage's held-back tail goes through the stages after it. */
export function flushChain(stages: readonly ChunkTransform[]): Int16Array {
  let tail: Int16Array = new Int16Array(0);
  for (const s of stages) {
    const head = tail.length ? s.process(tail) : new Int16Array(0);
    const rest = s.flush();
    tail = concatPcm([head, rest]);
  }
  return tail;
}

/** Whether any condition that changes the audio is set (a bare `seed:` changes nothing). */
export function hasConditions(conditions: ChannelConditions | undefined): boolean {
  return conditions !== undefined && CONDITION_ORDER.some((k) => conditions[k] !== undefined);
}

/**
 * The caller's utterance as the bot receives it: fed through the chain in
 * `chunkSamples` pieces (a 20 ms frame by default), exactly as a live stream
 * would be, so the whole-utterance and the streamed results are the same bytes.
 */
export async function applyConditions(
  pcm: Int16Array,
  conditions: ChannelConditions | undefined,
  options: Omit<ChainOptions, 'speechLevelDbfs'> & { chunkSamples?: number },
): Promise<Int16Array> {
  if (!conditions || !hasConditions(conditions)) return pcm;
  const stages = await buildChain(conditions, {
    ...options,
    speechLevelDbfs: activeLevelDbfs(pcm, options.sampleRate),
  });
  try {
    const step = Math.max(1, options.chunkSamples ?? Math.round(options.sampleRate / 50));
    const parts: Int16Array[] = [];
    for (let at = 0; at < pcm.length; at += step) parts.push(processChunk(stages, pcm.subarray(at, at + step)));
    parts.push(flushChain(stages));
    return concatPcm(parts);
  } finally {
    for (const s of stages) s.close();
  }
}

/**
 * Layers of conditions (file, scenario, turn, then the command line), the
 * later one winning per condition: a turn's `noise:` replaces the scenario's
 * noise whole and keeps its telephony. `null` for a condition switches it off.
 */
export function mergeConditions(
  ...layers: ReadonlyArray<ChannelConditions | undefined>
): ChannelConditions | undefined {
  let out: ChannelConditions | undefined;
  for (const layer of layers) {
    if (!layer) continue;
    out = { ...(out ?? {}), ...layer };
  }
  return out;
}

/**
 * A 32-bit seed for stream `streamId`, stage `stage` of run seed `seed` (an integer hash, so neighbouring ids are
 * unrelated).
 */
export function deriveSeed(seed: number, streamId: number, stage: number): number {
  let h = (seed ^ 0x9e3779b9) >>> 0;
  for (const v of [streamId, stage]) {
    h = Math.imul(h ^ (v >>> 0), 0x85ebca6b) >>> 0;
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35) >>> 0;
    h ^= h >>> 16;
  }
  return h >>> 0;
}
