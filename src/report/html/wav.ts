import type { WavInfo } from '../../audio/wav.js';

/**
 * Min/max per bucket per channel, quantized to -127..127 and base64-packed as
 * interleaved (min, max) Int8 pairs: a few KB per recording however long it is,
 * so the report needs no audio decoding in the browser (which file:// forbids).
 */
export interface WaveEnvelope {
  buckets: number;
  duration_ms: number;
  sample_rate: number;
  /** One base64 string per channel (left = caller, right = bot in earshot recordings). */
  channels: string[];
}

export function waveEnvelope(wav: WavInfo, buckets = 1000): WaveEnvelope {
  const n = Math.max(1, Math.min(buckets, wav.frames));
  const channels: string[] = [];
  for (let c = 0; c < wav.channelCount; c++) {
    const packed = new Int8Array(n * 2);
    for (let b = 0; b < n; b++) {
      const from = Math.floor((b * wav.frames) / n);
      const to = Math.max(from + 1, Math.floor(((b + 1) * wav.frames) / n));
      let lo = 0;
      let hi = 0;
      for (let f = from; f < to && f < wav.frames; f++) {
        const s = wav.sample(f, c);
        if (s < lo) lo = s;
        if (s > hi) hi = s;
      }
      packed[b * 2] = quantize(lo);
      packed[b * 2 + 1] = quantize(hi);
    }
    channels.push(Buffer.from(packed.buffer).toString('base64'));
  }
  return { buckets: n, duration_ms: (wav.frames / wav.sampleRate) * 1000, sample_rate: wav.sampleRate, channels };
}

function quantize(x: number): number {
  return Math.max(-127, Math.min(127, Math.round(x * 127)));
}
