import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { CallRecorder, concatPcm, decodeWav, Pacer, rms, silence, sineWave } from '../../../../src/audio/index.js';
import { CODEC_NAMES, connect, type ClientConnection } from '../../../../src/protocol/index.js';
import { startServer } from '../../../../src/protocol/loopback.testutil.js';
import { readFile } from 'node:fs/promises';
import { Microphone } from '../../../../src/session/media/mic.js';
import { ScenarioFiles } from '../../../../src/session/media/scenario.testutil.js';

/** earshot's microphone on a real socket, received by a real server peer, on both codecs. */
const RATE = 16000;
const files = new ScenarioFiles();
const pacer = new Pacer();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => {
  pacer.close();
  files.cleanup();
});

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe.each(CODEC_NAMES)('microphone over %s', (codec) => {
  it('streams 20 ms frames continuously from start, silence between utterances, the utterance exactly as given', async () => {
    const server = await startServer(codec);
    cleanups.push(() => server.server.close());
    const conn: ClientConnection = await connect(server.server.url(), { codec });
    cleanups.push(() => conn.close());
    const peer = (await server.nextPeer()).connection;
    const t0 = performance.now();
    const recordingPath = files.path(`mic-${codec}.wav`);
    const recorder = await CallRecorder.create({ path: recordingPath, sampleRate: RATE, originMs: 0 });
    const abort = new AbortController();
    const mic = new Microphone({ pacer, sampleRate: RATE, t0Ms: t0, recorder, label: 'test', signal: abort.signal });
    mic.start(conn);
    await sleep(200);

    const tone = sineWave(440, 300, RATE, -12);
    const spoken = await mic.say(tone, 'tone', abort.signal);
    // Due times sit on the pacer's grid, and the first frame went out at (or just after) its due time.
    const slots = (spoken.firstFrameDueMs - pacer.originMs) / 20;
    expect(Math.abs(slots - Math.round(slots))).toBeLessThan(1e-6);
    expect(performance.now() - spoken.firstFrameDueMs).toBeLessThan(40);
    const timing = await spoken.finished;
    expect(timing.state).toBe('completed');
    // Edges are due times, moved later by the lateness of the frame that carried them: a loaded
    // machine can send a frame late, and the bot cannot hear a sample before it is sent.
    const startLateMs = Math.max(0, timing.firstSentMs! - timing.firstFrameDueMs!);
    const endLateMs = Math.max(0, timing.lastSentMs! - timing.lastFrameDueMs!);
    expect(timing.utteranceStartMs).toBeCloseTo(spoken.firstFrameDueMs + startLateMs, 0);
    expect(timing.utteranceEndMs).toBeCloseTo(spoken.firstFrameDueMs + 300 + endLateMs, 0);
    await sleep(100);
    const stats = (await mic.stop())!;
    const recording = await recorder.close();
    await sleep(50); // loopback delivery of the last frame

    const frames: Array<{ at: number; pcm: Int16Array }> = [];
    for (const item of peer.drain()) if (item.kind === 'audio') frames.push({ at: item.at, pcm: item.pcm });
    expect(frames.length).toBe(stats.framesSent);
    expect(frames.every((f) => f.pcm.length === 320)).toBe(true);
    // Real time: ~30 frames over ~600 ms, not a burst.
    const spanMs = frames[frames.length - 1].at - frames[0].at;
    expect(spanMs).toBeGreaterThan((frames.length - 1) * 20 - 60);
    const all = concatPcm(frames.map((f) => f.pcm));
    // The tone starts at a frame boundary (a sine starts at 0, so look for the first frame with sound).
    const first = frames.findIndex((f) => f.pcm.some((x) => x !== 0)) * 320;
    expect(first).toBeGreaterThanOrEqual(320 * 8);
    expect(Array.from(all.subarray(first, first + tone.length))).toEqual(Array.from(tone));
    expect(rms(all, first + tone.length)).toBe(0);

    // The recording's left channel holds what was sent, when it was sent: a frame sent within the
    // recorder's 10 ms slack of the previous one's end continues it seamlessly, and a frame sent later
    // than that opens a gap, which shifts what follows by up to the stream's worst lateness.
    expect(recording.userAudioMs).toBeCloseTo(stats.framesSent * 20, 0);
    const wav = decodeWav(await readFile(recordingPath));
    const left = wav.channels[0];
    const sentSample = Math.round(((timing.firstSentMs! - t0) * RATE) / 1000);
    const heard = left.findIndex((x) => x !== 0);
    expect(Math.abs(heard - sentSample)).toBeLessThanOrEqual(RATE * (0.011 + (stats.lateness.maxMs ?? 0) / 1000));
    expect(wav.channels[1].every((x) => x === 0)).toBe(true);
  });

  it('an aborted say cancels the utterance and rejects', async () => {
    const server = await startServer(codec);
    cleanups.push(() => server.server.close());
    const conn = await connect(server.server.url(), { codec });
    cleanups.push(() => conn.close());
    const abort = new AbortController();
    const mic = new Microphone({
      pacer,
      sampleRate: RATE,
      t0Ms: 0,
      recorder: null,
      label: 'test',
      signal: new AbortController().signal,
    });
    mic.start(conn);
    abort.abort(new Error('stop'));
    await expect(mic.say(silence(100, RATE).fill(1000), 'x', abort.signal)).rejects.toThrow('stop');
    await mic.stop();
  });
});
