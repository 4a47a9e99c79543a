import { describe, expect, it } from 'vitest';
import { parseWav } from '../../audio/wav.js';
import { stereoWav } from '../../results/fixtures.testutil.js';
import { waveEnvelope } from './wav.js';

function unpack(b64: string): Int8Array {
  const buf = Buffer.from(b64, 'base64');
  return new Int8Array(buf.buffer, buf.byteOffset, buf.length);
}

describe('waveEnvelope', () => {
  it('keeps each channel apart and places loud and silent stretches in the right buckets', () => {
    const env = waveEnvelope(parseWav(stereoWav(2, 8000, [[0, 1]], [[1, 2]])), 100);
    expect(env).toMatchObject({ buckets: 100, duration_ms: 2000, sample_rate: 8000 });
    const [left, right] = env.channels.map(unpack);
    const loud = (ch: Int8Array, b: number): number => ch[b * 2 + 1] - ch[b * 2];
    expect(loud(left, 10)).toBeGreaterThan(85);
    expect(loud(left, 90)).toBe(0);
    expect(loud(right, 10)).toBe(0);
    expect(loud(right, 90)).toBeGreaterThan(115);
  });

  it('stays a few KB however long the recording is', () => {
    const env = waveEnvelope(parseWav(stereoWav(30, 8000, [[0, 30]], [[0, 30]])), 1000);
    expect(env.channels.join('').length).toBeLessThan(6000);
  });

  it('uses one bucket per frame for very short recordings', () => {
    expect(waveEnvelope(parseWav(stereoWav(0.001, 8000, [], [])), 1000).buckets).toBe(8);
  });
});
