import { samplesForMs } from '../pcm.js';
import type { ChunkTransform, ConditionContext, LossCondition } from './types.js';

/** The packet a loss model drops or keeps: 20 ms, as RTP carries telephone audio. */
export const PACKET_MS = 20;

/**
 * Packet loss in bursts: each packet that arrives starts a burst of
 * `burst_ms / 20` lost packets with probability q, where q is chosen so the
 * long-run share of lost packets is `rate` (a two-state model whose bad state
 * lasts a fixed burst). A lost packet plays as silence (`zero`) or as the
 * last packet that arrived (`repeat`, the simplest concealment). Packet
 * boundaries run on from chunk to chunk.
 */
export async function lossStage(config: LossCondition, ctx: ConditionContext): Promise<ChunkTransform> {
  const packet = samplesForMs(PACKET_MS, ctx.sampleRate);
  const burst = Math.max(1, Math.round(config.burst_ms / PACKET_MS));
  const r = Math.min(1, Math.max(0, config.rate));
  // Lost share = qL / (qL + 1 - q)  =>  q = r / (L(1 - r) + r).
  const q = r >= 1 ? 1 : r / (burst * (1 - r) + r);
  const last = new Int16Array(packet);
  let pos = 0;
  let lostLeft = 0;
  let lost = false;
  const process = (chunk: Int16Array): Int16Array => {
    const out = new Int16Array(chunk.length);
    for (let i = 0; i < chunk.length; i++, pos++) {
      const k = pos % packet;
      if (k === 0) {
        if (lostLeft > 0) {
          lost = true;
          lostLeft--;
        } else if (ctx.random() < q) {
          lost = true;
          lostLeft = burst - 1;
        } else lost = false;
      }
      if (lost) out[i] = config.conceal === 'repeat' ? last[k] : 0;
      else {
        out[i] = chunk[i];
        last[k] = chunk[i];
      }
    }
    return out;
  };
  return { name: 'loss', process, flush: () => new Int16Array(0), close: () => undefined };
}
