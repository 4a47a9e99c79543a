import { describe, expect, it } from 'vitest';
import { applyConditions } from './conditions/index.js';
import { dtmfTones } from './dtmf.js';
import { DtmfReceiver } from './dtmf-stream.js';
import { concatPcm, silence } from './pcm.js';

const RATE = 16000;
const hear = (pcm: Int16Array, chunk: number): string => {
  const rx = new DtmfReceiver({ sampleRate: RATE });
  const keys: string[] = [];
  for (let at = 0; at < pcm.length; at += chunk) keys.push(...rx.push(pcm.subarray(at, at + chunk)));
  return keys.join('');
};

describe('DtmfReceiver', () => {
  it('hears 123# in any chunking, each key once', () => {
    const tones = concatPcm([silence(37, RATE), dtmfTones('123#', { sampleRate: RATE }), silence(100, RATE)]);
    for (const chunk of [1, 160, 320, 333, tones.length]) expect(hear(tones, chunk)).toBe('123#');
  });

  it('hears a repeated key twice when a gap separates the tones', () => {
    expect(hear(dtmfTones('55', { sampleRate: RATE, toneMs: 80, gapMs: 60 }), 320)).toBe('55');
  });

  it('hears them through a µ-law phone line with 10 dB white noise', async () => {
    const tones = concatPcm([
      silence(200, RATE),
      dtmfTones('123#', { sampleRate: RATE, levelDbfs: -10 }),
      silence(200, RATE),
    ]);
    const line = await applyConditions(
      tones,
      { noise: { type: 'white', snr_db: 10 }, telephony: { codec: 'mulaw' }, seed: 3 },
      { sampleRate: RATE, streamId: 0 },
    );
    expect(hear(line, 320)).toBe('123#');
  });

  it('hears nothing in silence or in a tone too short', () => {
    expect(hear(silence(500, RATE), 320)).toBe('');
    expect(hear(dtmfTones('7', { sampleRate: RATE, toneMs: 20 }), 320)).toBe('');
  });
});
