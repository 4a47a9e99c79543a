import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SpeechConfigError, SpeechProviderError } from '../../../src/speech/errors.js';
import { sincResample } from '../../../src/audio/index.js';
import { FLITE_VOICES, FliteTts } from '../../../src/speech/tts/flite.js';

const TEXT = 'Please transfer me to the billing department.';
let tts: FliteTts;

beforeEach(() => {
  tts = new FliteTts({ resample: sincResample });
});
afterEach(async () => {
  await tts.close();
});

const seconds = (r: { pcm: Int16Array; sampleRate: number }): number => r.pcm.length / r.sampleRate;
const peak = (pcm: Int16Array): number => pcm.reduce((m, v) => Math.max(m, Math.abs(v)), 0);

describe('FliteTts', () => {
  it('speaks every voice at the rate asked for', async () => {
    for (const voice of FLITE_VOICES) {
      const r = await tts.synthesize(TEXT, { voice, sampleRate: 16000 });
      expect(r.sampleRate).toBe(16000);
      expect(seconds(r)).toBeGreaterThan(1.5);
      expect(seconds(r)).toBeLessThan(5);
      expect(peak(r.pcm)).toBeGreaterThan(3000);
    }
  });

  it('resamples from each voice native rate: kal is 8 kHz, slt 16 kHz', async () => {
    const identity = async (pcm: Int16Array): Promise<Int16Array> => pcm;
    const raw = new FliteTts({ resample: identity });
    try {
      const kal8 = await raw.synthesize(TEXT, { voice: 'kal', sampleRate: 8000 });
      const kal16 = await tts.synthesize(TEXT, { voice: 'kal', sampleRate: 16000 });
      expect(Math.abs(kal16.pcm.length - 2 * kal8.pcm.length)).toBeLessThanOrEqual(4);
      const slt16 = await raw.synthesize(TEXT, { voice: 'slt', sampleRate: 16000 });
      const slt24 = await tts.synthesize(TEXT, { voice: 'slt', sampleRate: 24000 });
      expect(Math.abs(slt24.pcm.length - 1.5 * slt16.pcm.length)).toBeLessThanOrEqual(4);
    } finally {
      await raw.close();
    }
  });

  it('is deterministic, also when calls overlap', async () => {
    const texts = ['Yes.', 'No, I did not ask for that.', TEXT, 'Goodbye and have a nice day.'];
    const together = await Promise.all(texts.map((t) => tts.synthesize(t, { sampleRate: 16000 })));
    for (const [i, t] of texts.entries()) {
      const alone = await tts.synthesize(t, { sampleRate: 16000 });
      expect(together[i].pcm).toEqual(alone.pcm);
    }
    expect(new Set(together.map((r) => r.pcm.length)).size).toBe(4);
  });

  it('uses the default voice slt unless told otherwise', async () => {
    const byDefault = await tts.synthesize(TEXT, { sampleRate: 16000 });
    expect(byDefault.pcm).toEqual((await tts.synthesize(TEXT, { voice: 'slt', sampleRate: 16000 })).pcm);
    expect(byDefault.pcm).not.toEqual((await tts.synthesize(TEXT, { voice: 'rms', sampleRate: 16000 })).pcm);
    const rms = new FliteTts({ voice: 'rms', resample: sincResample });
    try {
      expect(rms.defaultVoice).toBe('rms');
    } finally {
      await rms.close();
    }
  });

  it('refuses unknown voices and rates, naming what exists', async () => {
    await expect(tts.synthesize(TEXT, { voice: 'bogus', sampleRate: 16000 })).rejects.toThrow(
      new SpeechConfigError('flite', 'voice', "unknown voice 'bogus' (known: slt, rms, awb, kal, kal16)"),
    );
    expect(() => new FliteTts({ voice: 'x', resample: sincResample })).toThrow(SpeechConfigError);
    await expect(tts.synthesize(TEXT, { sampleRate: 16000.5 })).rejects.toThrow(
      'flite: sampleRate: expected an integer rate in Hz, got 16000.5',
    );
  });

  it('rejects at once with the signal reason when aborted', async () => {
    const before = new AbortController();
    before.abort(new Error('stop'));
    await expect(tts.synthesize(TEXT, { sampleRate: 16000, signal: before.signal })).rejects.toThrow('stop');
    const during = new AbortController();
    const call = tts.synthesize(TEXT.repeat(8), { sampleRate: 16000, signal: during.signal });
    setTimeout(() => during.abort(new Error('barge-in')), 5);
    await expect(call).rejects.toThrow('barge-in');
    expect((await tts.synthesize('Still working.', { sampleRate: 16000 })).pcm.length).toBeGreaterThan(0);
  });

  it('restarts a synthesizer process that died and retries the sentence it was on', async () => {
    await tts.synthesize('Warm up.', { sampleRate: 16000 });
    const first = tts.processId!;
    const call = tts.synthesize(TEXT, { sampleRate: 16000 });
    process.kill(first, 'SIGKILL');
    expect(seconds(await call)).toBeGreaterThan(1.5);
    expect(tts.processId).not.toBe(first);
  });

  it('keeps node:wasi warnings out of the application', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error): void => {
      warnings.push(w);
    };
    process.on('warning', onWarning);
    try {
      await tts.synthesize(TEXT, { sampleRate: 16000 });
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.map((w) => w.message)).toEqual([]);
  });

  it('refuses calls after close, and close can be called twice', async () => {
    await tts.synthesize('Hello.', { sampleRate: 16000 });
    await tts.close();
    await tts.close();
    await expect(tts.synthesize(TEXT, { sampleRate: 16000 })).rejects.toThrow(
      new SpeechProviderError('flite', 'provider closed'),
    );
  });
});
