import { clip16, dbfsToAmplitude } from '../pcm.js';
import type { ChunkTransform, ConditionContext, GainCondition } from './types.js';

/** A microphone too hot or too far: gain, then hard clipping at `clip_dbfs` (what an overdriven ADC does). */
export async function gainStage(config: GainCondition, _ctx: ConditionContext): Promise<ChunkTransform> {
  const k = 10 ** (config.gain_db / 20);
  const ceiling = Math.min(32767, dbfsToAmplitude(config.clip_dbfs));
  const process = (chunk: Int16Array): Int16Array => {
    const out = new Int16Array(chunk.length);
    for (let i = 0; i < chunk.length; i++) {
      const y = chunk[i] * k;
      out[i] = clip16(Math.round(y > ceiling ? ceiling : Math.max(y, -ceiling)));
    }
    return out;
  };
  return { name: 'gain', process, flush: () => new Int16Array(0), close: () => undefined };
}
