import { createResampler, type StreamResampler } from '../resample.js';
import type { ChunkTransform, ConditionContext, TelephonyCondition } from './types.js';

/**
 * A phone line: down to 8 kHz, band-limited to 300–3400 Hz (the G.712
 * channel), through G.711 µ-law and back up to the stream's rate. The bot
 * hears what a PSTN caller's voice sounds like after the gateway: narrow band
 * and 8-bit companding noise, at the rate it takes.
 */
export const TELEPHONE_RATE_HZ = 8000;
export const TELEPHONE_BAND_HZ = { low: 300, high: 3400 } as const;

export async function telephonyStage(config: TelephonyCondition, ctx: ConditionContext): Promise<ChunkTransform> {
  void config.codec; // µ-law is the only codec: the field is there so A-law can be a line more.
  const down = await createResampler(ctx.sampleRate, TELEPHONE_RATE_HZ);
  let up: StreamResampler;
  try {
    up = await createResampler(TELEPHONE_RATE_HZ, ctx.sampleRate);
  } catch (err) {
    down.close();
    throw err;
  }
  // Two second-order sections each side: a 4th-order Butterworth-like band edge.
  const filters = [
    highPass(TELEPHONE_BAND_HZ.low, TELEPHONE_RATE_HZ),
    highPass(TELEPHONE_BAND_HZ.low, TELEPHONE_RATE_HZ),
    lowPass(TELEPHONE_BAND_HZ.high, TELEPHONE_RATE_HZ),
    lowPass(TELEPHONE_BAND_HZ.high, TELEPHONE_RATE_HZ),
  ];
  const line = (narrow: Int16Array): Int16Array => {
    const out = new Int16Array(narrow.length);
    for (let i = 0; i < narrow.length; i++) {
      let x = narrow[i];
      for (const f of filters) x = f(x);
      out[i] = mulawDecode(mulawEncode(x));
    }
    return out;
  };
  return {
    name: 'telephony',
    process: (chunk) => up.process(line(down.process(chunk))),
    flush: () => {
      const tail = up.process(line(down.flush()));
      const rest = up.flush();
      const out = new Int16Array(tail.length + rest.length);
      out.set(tail);
      out.set(rest, tail.length);
      return out;
    },
    close: () => {
      down.close();
      up.close();
    },
  };
}

type Biquad = (x: number) => number;

/** RBJ cookbook biquad (Q = 1/√2), direct form I. */
function biquad(b0: number, b1: number, b2: number, a0: number, a1: number, a2: number): Biquad {
  let x1 = 0,
    x2 = 0,
    y1 = 0,
    y2 = 0;
  const [nb0, nb1, nb2, na1, na2] = [b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0];
  return (x) => {
    const y = nb0 * x + nb1 * x1 + nb2 * x2 - na1 * y1 - na2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    return y;
  };
}

function lowPass(cutoffHz: number, sampleRate: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / sampleRate;
  const alpha = Math.sin(w) / (2 * Math.SQRT1_2);
  const c = Math.cos(w);
  return biquad((1 - c) / 2, 1 - c, (1 - c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

function highPass(cutoffHz: number, sampleRate: number): Biquad {
  const w = (2 * Math.PI * cutoffHz) / sampleRate;
  const alpha = Math.sin(w) / (2 * Math.SQRT1_2);
  const c = Math.cos(w);
  return biquad((1 + c) / 2, -(1 + c), (1 + c) / 2, 1 + alpha, -2 * c, 1 - alpha);
}

const BIAS = 0x84;
const CLIP = 32635;

/** G.711 µ-law: one 16-bit sample to its 8-bit code (sign, 3-bit segment, 4-bit mantissa, inverted). */
export function mulawEncode(sample: number): number {
  let x = Math.round(sample);
  const sign = x < 0 ? 0x80 : 0;
  if (x < 0) x = -x;
  if (x > CLIP) x = CLIP;
  x += BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (x & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (x >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

/** G.711 µ-law: an 8-bit code back to a 16-bit sample. */
export function mulawDecode(code: number): number {
  const u = ~code & 0xff;
  const exponent = (u >> 4) & 0x07;
  const magnitude = (((u & 0x0f) << 3) + BIAS) << exponent;
  return u & 0x80 ? BIAS - magnitude : magnitude - BIAS;
}
