import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { RecorderError } from './errors.js';
import { audibleBounds } from './level.js';
import { concatPcm, float32ToInt16, rms, silence, sineWave } from './pcm.js';
import { Pacer } from './pacer.js';
import { CallRecorder } from './recorder.js';
import { resample } from './resample.js';
import { ManualTimerDriver } from '../core/timers.js';
import { decodeWav } from './wav.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-rec-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function channels(path: string): { rate: number; left: Int16Array; right: Int16Array } {
  const wav = decodeWav(readFileSync(path), path);
  expect(wav.channels.length).toBe(2);
  return { rate: wav.sampleRate, left: float32ToInt16(wav.channels[0]), right: float32ToInt16(wav.channels[1]) };
}

describe('call recorder', () => {
  it('writes user frames as sent (left) and bot audio where placed (right) on one timeline, overlap kept', async () => {
    const clock = new ManualClock(1000);
    const timers = new ManualTimerDriver(clock);
    const pacer = new Pacer({ clock, timers });
    const path = join(dir, 'call.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 16000, originMs: 1000 });
    const mic = pacer.createStream({ sampleRate: 16000, sink: (f) => rec.addUser(f.samples, f.sampleRate, f.sentMs) });
    // The user speaks 0.5–1.5 s; the bot talks 1.2–2.2 s (a barge-in the other way round): both audible in 1.2–1.5 s.
    const userTone = sineWave(300, 1000, 16000, -12);
    mic.enqueue(userTone, { notBeforeMs: 1500 });
    const botTone = sineWave(800, 1000, 16000, -12);
    for (let k = 0; k < 50; k++) rec.addBot(botTone.subarray(k * 320, (k + 1) * 320), 16000, 2200 + k * 20 + (k % 3));
    timers.advanceTo(4000);
    pacer.close();
    const info = await rec.close();
    expect(info).toMatchObject({ path, sampleRate: 16000, truncated: false, note: null });
    expect(info.durationMs).toBeCloseTo(3000 + 20, -1);
    const { rate, left, right } = channels(path);
    expect(rate).toBe(16000);
    expect(audibleBounds(left, rate)).toEqual({ first: 8000 + 1, end: expect.closeTo(24000, -1) });
    const bot = audibleBounds(right, rate)!;
    expect(bot.first).toBe(19200 + 1);
    expect(Math.abs(bot.end - 35200)).toBeLessThanOrEqual(2);
    // Overlap: both channels carry sound in 1.2–1.5 s, and the jittered bot chunks play seamlessly.
    expect(rms(left, 20000, 23000)).toBeGreaterThan(2000);
    expect(rms(right, 20000, 23000)).toBeGreaterThan(2000);
    expect(Array.from(right.subarray(19200, 35200))).toEqual(Array.from(botTone));
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
  });

  it('resamples each channel to the recording rate and keeps positions', async () => {
    const path = join(dir, 'rates.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 24000, originMs: 0 });
    const user = concatPcm([silence(300, 16000), sineWave(400, 500, 16000, -12)]);
    for (let at = 0, t = 0; at < user.length; at += 320, t += 20) rec.addUser(user.subarray(at, at + 320), 16000, t);
    const bot = concatPcm([silence(100, 48000), sineWave(700, 400, 48000, -12)]);
    for (let at = 0, t = 500; at < bot.length; at += 960, t += 20) rec.addBot(bot.subarray(at, at + 960), 48000, t);
    await rec.close();
    const { rate, left, right } = channels(path);
    expect(rate).toBe(24000);
    expect(Math.abs(audibleBounds(left, rate)!.first - 7200)).toBeLessThanOrEqual(3);
    expect(Math.abs(audibleBounds(right, rate)!.first - 14400)).toBeLessThanOrEqual(3);
    expect(left.length).toBe(right.length);
  });

  it('fills gaps with silence and plays a burst back to back, never overlapping one channel with itself', async () => {
    const path = join(dir, 'gaps.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 8000, originMs: 0 });
    const a = sineWave(500, 200, 8000, -12);
    rec.addBot(a, 8000, 0);
    rec.addBot(a, 8000, 1000); // after a pause
    rec.addBot(a, 8000, 1000); // a second chunk in the same instant: it follows the first
    await rec.close();
    const { right } = channels(path);
    expect(right.length).toBe(8000 * 1.4);
    expect(rms(right, 1700, 7900)).toBe(0);
    expect(Array.from(right.subarray(8000, 9600))).toEqual(Array.from(a));
    expect(Array.from(right.subarray(9600, 11200))).toEqual(Array.from(a));
  });

  it('caps memory and length for long calls, saying so', async () => {
    const path = join(dir, 'capped.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 8000, originMs: 0, maxDurationMs: 1000 });
    for (let t = 0; t < 3000; t += 20) rec.addUser(sineWave(300, 20, 8000, -20), 8000, t);
    const info = await rec.close();
    expect(info.truncated).toBe(true);
    expect(info.note).toMatch(/capped at 1000 ms/);
    expect(channels(path).left.length).toBe(8000);
  });

  it('drops audio from before the origin, and discards cleanly', async () => {
    const path = join(dir, 'discard.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 8000, originMs: 500 });
    rec.addUser(sineWave(300, 1000, 8000), 8000, 0);
    await rec.discard();
    expect(existsSync(path)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.startsWith('.'))).toEqual([]);
    const path2 = join(dir, 'before.wav');
    const rec2 = await CallRecorder.create({ path: path2, sampleRate: 8000, originMs: 500 });
    rec2.addUser(sineWave(300, 1000, 8000), 8000, 0);
    expect((await rec2.close()).durationMs).toBe(500);
  });

  it('names the path when the recording cannot be written', async () => {
    await expect(
      CallRecorder.create({ path: join(dir, 'no/such/dir/x.wav'), sampleRate: 16000, originMs: 0 }),
    ).rejects.toThrow(RecorderError);
    await expect(
      CallRecorder.create({ path: join(dir, 'no/such/dir/x.wav'), sampleRate: 16000, originMs: 0 }),
    ).rejects.toThrow(/no\/such\/dir\/x\.wav/);
  });

  it('keeps timing when channels use a resampler-unfriendly pair (24k bot into a 16k recording)', async () => {
    const path = join(dir, 'bot24.wav');
    const rec = await CallRecorder.create({ path, sampleRate: 16000, originMs: 0 });
    const bot24 = await resample(concatPcm([silence(250, 16000), sineWave(600, 300, 16000, -12)]), 16000, 24000);
    for (let at = 0, t = 100; at < bot24.length; at += 480, t += 20) rec.addBot(bot24.subarray(at, at + 480), 24000, t);
    await rec.close();
    expect(Math.abs(audibleBounds(channels(path).right, 16000)!.first - (1600 + 4000))).toBeLessThanOrEqual(3);
  });
});
