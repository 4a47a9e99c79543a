import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { CallRecorder, concatPcm, decodeWav, sineWave } from '../../../src/audio/index.js';
import { ThreadPacer } from '../../../src/pacing/index.js';
import { CODEC_NAMES, connect } from '../../../src/protocol/index.js';
import { startServer } from '../../../src/protocol/loopback.testutil.js';
import { Microphone } from '../../../src/session/media/mic.js';
import { ScenarioFiles } from '../../../src/session/media/scenario.testutil.js';

/**
 * The pacer thread on a real socket to a real server peer: frames keep leaving
 * while this thread is stuck in a busy loop, because neither the pacing nor
 * the socket is on it.
 */
const RATE = 16000;
const files = new ScenarioFiles();
const pacer = new ThreadPacer();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});
afterAll(() => {
  pacer.close();
  files.cleanup();
});
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function blockFor(ms: number): { fromMs: number; toMs: number } {
  const fromMs = performance.now();
  while (performance.now() - fromMs < ms);
  return { fromMs, toMs: performance.now() };
}

describe.each(CODEC_NAMES)('pacer thread over %s', (codec) => {
  it('sends every frame on time while the main thread is blocked for 200 ms, the utterance intact and recorded', async () => {
    const server = await startServer(codec);
    cleanups.push(() => server.server.close());
    const conn = await connect(server.server.url(), { codec, openSocket: pacer.openSocket });
    cleanups.push(() => conn.close());
    await pacer.whenReady();
    const peer = (await server.nextPeer()).connection;
    const t0 = performance.now();
    const recordingPath = files.path(`thread-${codec}.wav`);
    const recorder = await CallRecorder.create({ path: recordingPath, sampleRate: RATE, originMs: 0 });
    const abort = new AbortController();
    const mic = new Microphone({ pacer, sampleRate: RATE, t0Ms: t0, recorder, label: 'thread', signal: abort.signal });
    mic.start(conn);
    await sleep(100);
    const tone = sineWave(440, 600, RATE, -12);
    const spoken = await mic.say(tone, 'tone', abort.signal);
    const grid = (spoken.firstFrameDueMs - pacer.originMs) / 20;
    expect(Math.abs(grid - Math.round(grid))).toBeLessThan(1e-6);
    // The tone is on the air; this thread now does nothing else for 200 ms.
    const block = blockFor(200);
    const timing = await spoken.finished;
    expect(timing.state).toBe('completed');
    await sleep(100);
    const stats = (await mic.stop())!;
    const recording = await recorder.close();
    await sleep(50);

    // The pacer thread's own log: every slot in order on the 20 ms grid, each sent or (late silence
    // only, which a loaded machine can cause) skipped; the speech frames back to back, none lost.
    const records = (
      mic as unknown as {
        stream: { frameRecords(): Array<{ index: number; dueMs: number; sentMs: number; speech: boolean }> };
      }
    ).stream.frameRecords();
    expect(records.length).toBe(stats.framesSent);
    expect(stats.frameSlots).toBe(stats.framesSent + stats.skippedSilenceFrames);
    records.forEach((r, i) => {
      if (i > 0) expect(r.index).toBeGreaterThan(records[i - 1].index);
      expect(r.dueMs).toBeCloseTo(stats.startMs + r.index * 20, 6);
      expect(r.sentMs).toBeGreaterThanOrEqual(r.dueMs);
    });
    const speech = records.filter((r) => r.speech);
    expect(speech.length).toBe(30);
    expect(speech[29].index - speech[0].index).toBe(29);
    // Frames due while this thread was blocked left while it was blocked: an in-thread pacer
    // would have sent them all at once after the loop (50 ms of slack for a loaded machine).
    const dueInBlock = records.filter((r) => r.dueMs > block.fromMs && r.dueMs < block.toMs - 50);
    expect(dueInBlock.length).toBeGreaterThanOrEqual(6);
    for (const r of dueInBlock) expect(r.sentMs).toBeLessThan(block.toMs);

    // The peer got exactly those frames, the tone intact between silence.
    const frames: Int16Array[] = [];
    for (const item of peer.drain()) if (item.kind === 'audio') frames.push(item.pcm);
    expect(frames.length).toBe(stats.framesSent);
    const all = concatPcm(frames);
    const first = frames.findIndex((f) => f.some((x) => x !== 0)) * 320;
    expect(first).toBeGreaterThan(0);
    expect(Array.from(all.subarray(first, first + tone.length))).toEqual(Array.from(tone));

    // The recording's user channel holds the same samples, rebuilt on this thread from the reports.
    expect(recording.userAudioMs).toBeCloseTo(stats.framesSent * 20, 0);
    const left = Array.from(decodeWav(await readFile(recordingPath)).channels[0], (x) => Math.round(x * 32768));
    const heard = left.findIndex((x) => x !== 0);
    const toneFrom = tone.findIndex((x) => x !== 0);
    // Within the first speech frame (the recorder may open a gap before a frame that left late).
    expect(left.slice(heard, heard + 300)).toEqual(Array.from(tone.subarray(toneFrom, toneFrom + 300)));
  });

  it('inbound frames reach this thread stamped with the time the pacer thread read them', async () => {
    const server = await startServer(codec);
    cleanups.push(() => server.server.close());
    const conn = await connect(server.server.url(), { codec, openSocket: pacer.openSocket });
    cleanups.push(() => conn.close());
    const peer = (await server.nextPeer()).connection;
    expect(peer.sendAudio(new Int16Array(320).fill(100), RATE)).toBe(true);
    const item = await conn.receive();
    expect(item?.kind).toBe('audio');
    expect(item!.at).toBeLessThanOrEqual(performance.now());
    expect(item!.at).toBeGreaterThan(conn.openedAt);
    const closed = conn.close(1000, 'done');
    expect((await closed).code).toBe(1000);
  });
});

describe('ThreadPacer', () => {
  it('refuses a connection that was not opened on its thread', async () => {
    const server = await startServer('pipecat-eval');
    cleanups.push(() => server.server.close());
    const conn = await connect(server.server.url(), { codec: 'pipecat-eval' });
    cleanups.push(() => conn.close());
    expect(() => pacer.openStream(conn, { sampleRate: RATE, label: 'x' })).toThrow(/openSocket/);
  });

  it('gives the frame lateness by window: the frames reported since the last window, then a fresh one', async () => {
    const server = await startServer('pipecat-eval');
    cleanups.push(() => server.server.close());
    const conn = await connect(server.server.url(), { codec: 'pipecat-eval', openSocket: pacer.openSocket });
    cleanups.push(() => conn.close());
    await pacer.whenReady();
    pacer.takeLatenessWindow();
    const before = pacer.stats().frameLateness.count;
    const abort = new AbortController();
    const mic = new Microphone({
      pacer,
      sampleRate: RATE,
      t0Ms: performance.now(),
      recorder: null,
      label: 'window',
      signal: abort.signal,
    });
    mic.start(conn);
    await sleep(300);
    const stats = (await mic.stop())!;
    const window = pacer.takeLatenessWindow();
    expect(stats.framesSent).toBeGreaterThan(5);
    expect(window.count).toBe(stats.framesSent);
    expect(pacer.stats().frameLateness.count).toBe(before + stats.framesSent);
    expect(window.maxMs).toBeLessThanOrEqual(pacer.stats().frameLateness.maxMs!);
    expect(pacer.takeLatenessWindow().count).toBe(0);
  });

  it('starts no thread until it is used', () => {
    expect(new ThreadPacer().started).toBe(false);
    expect(new ThreadPacer().osThreadId).toBeNull();
  });

  it('names its thread by kernel id where /proc has one: a task of this process, not the main thread', async () => {
    await pacer.whenReady();
    const tid = pacer.osThreadId;
    if (!existsSync('/proc/thread-self')) return expect(tid).toBeNull();
    expect(tid).not.toBe(process.pid);
    expect(readdirSync('/proc/self/task')).toContain(String(tid));
  });
});
