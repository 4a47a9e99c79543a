/**
 * bench/pacer.ts `--pacer thread`: N microphone streams on the pacer thread,
 * each on a real WebSocket (opened on that thread) to a `ws` server here that
 * discards what it reads.
 *
 * Measured after `warmupS` (JIT, the first sockets, the lead learning): frame
 * lateness over the frames due in the window, and CPU three ways: the pacer
 * thread alone (its kernel thread id, from the scheduler's nanosecond count),
 * this main thread (the frame reports' bookkeeping and the receiving server's
 * socket reads, which a real run's bot does in its own process), and the whole
 * process (both, V8's GC and compiler threads, and under tsx its loader
 * threads).
 */
import { WebSocketServer } from 'ws';
import { ThreadPacer, type RemoteStream } from '../src/pacing/index.js';
import { connect, type ClientConnection } from '../src/protocol/index.js';
import { DurationHistogram } from '../src/core/histogram.js';
import { cpuStallUs, threadCpuMs, threadSleeps } from './machine.js';
import type { Row } from './pacer.js';

const round = (x: number, digits: number): number => Math.round(x * 10 ** digits) / 10 ** digits;

export async function runThread(
  n: number,
  seconds: number,
  speech: Int16Array,
  warmupS: number,
  directSend = true,
): Promise<Row> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (s) => s.on('message', () => {}));
  const address = server.address();
  const url = `ws://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const pacer = new ThreadPacer({ directSend });
  await pacer.whenReady();
  const tid = pacer.osThreadId;
  const pacerThread = tid === null ? [] : [tid];
  const mainThread = [process.pid];
  // Frames due once the window opens (after the warm-up); the pacer's own histogram has every frame.
  let windowStartMs = Infinity;
  let windowEndMs = Infinity;
  const lateness = new DurationHistogram();
  const onFrame = (f: { dueMs: number; sentMs: number }): void => {
    if (f.dueMs >= windowStartMs && f.dueMs < windowEndMs) lateness.record(f.sentMs - f.dueMs);
  };
  const conns: ClientConnection[] = [];
  for (let i = 0; i < n; i++) conns.push(await connect(url, { codec: 'pipecat-eval', openSocket: pacer.openSocket }));
  const streams: RemoteStream[] = conns.map((c, i) =>
    pacer.openStream(c, { sampleRate: 16000, label: `s${i}`, recordFrames: 0, onFrame }),
  );
  // Staggered speech: each stream talks 2 s in every 5 s, as in the in-thread run.
  let slot = 0;
  const talk = setInterval(() => {
    slot++;
    for (let i = 0; i < n; i++) if ((slot + i) % 5 === 0) streams[i].enqueue(speech);
  }, 1000);
  let rssPeak = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 500);
  await new Promise((r) => setTimeout(r, warmupS * 1000));
  const cpu0 = process.cpuUsage();
  const own0 = threadCpuMs(pacerThread);
  const main0 = threadCpuMs(mainThread);
  const sleeps0 = threadSleeps(pacerThread);
  const stall0 = cpuStallUs();
  const t0 = performance.now();
  windowStartMs = t0;
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsedMs = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const own1 = threadCpuMs(pacerThread);
  const main1 = threadCpuMs(mainThread);
  const sleeps1 = threadSleeps(pacerThread);
  const stall1 = cpuStallUs();
  // Frames due in the window count; the reports of its last 100 ms arrive before the streams end.
  windowEndMs = t0 + elapsedMs;
  clearInterval(talk);
  clearInterval(rssTimer);
  for (const s of streams) s.stop();
  const ended = await Promise.all(streams.map((s) => s.ended));
  const endMs = performance.now();
  const stats = pacer.stats();
  await Promise.all(conns.map((c) => c.close()));
  pacer.close();
  await new Promise<void>((r) => server.close(() => r()));
  let slotErr = 0;
  // The nanosecond slack: lastDueMs is start + k × 20 in floating point, and (lastDue − start) / 20 may land a hair under k.
  for (const st of ended)
    slotErr = Math.max(
      slotErr,
      Math.abs(st.frameSlots - (Math.floor((Math.min(endMs, st.lastDueMs ?? endMs) - st.startMs) / 20 + 1e-6) + 1)),
    );
  const cpuMs = (cpu.user + cpu.system) / 1000;
  const win = lateness.summary();
  const pct = (a: number | null, b: number | null): number | null =>
    a === null || b === null ? null : round((100 * (b - a)) / elapsedMs, 3);
  const pacerPct = pct(own0, own1);
  return {
    streams: n,
    seconds: round(elapsedMs / 1000, 1),
    frames: lateness.count,
    speech_frames: ended.reduce((a, s) => a + s.speechFrames, 0),
    skipped_silence_frames: ended.reduce((a, s) => a + s.skippedSilenceFrames, 0),
    lateness_p50_ms: round(win.p50Ms ?? NaN, 3),
    lateness_p99_ms: round(win.p99Ms ?? NaN, 3),
    lateness_max_ms: round(win.maxMs ?? NaN, 3),
    warmup_lateness_max_ms: round(stats.frameLateness.maxMs ?? NaN, 3),
    // Due times are the pacer's grid by construction (start + index × 20 ms); the slot count is checked against the wall clock.
    drift_due_max_ms: 0,
    drift_sent_last_ms: NaN,
    slot_error_max: slotErr,
    cpu_pct_core_per_stream: round((100 * cpuMs) / elapsedMs / n, 3),
    cpu_pct_core_total: round((100 * cpuMs) / elapsedMs, 2),
    rss_peak_mb: round(rssPeak / 1048576, 1),
    // Not measured here: the main thread's loop no longer paces anything, and a 1 ms monitor would cost more CPU than the pacer.
    event_loop_delay_p99_ms: NaN,
    tick_late_p99_ms: NaN,
    tick_work_p50_ms: NaN,
    tick_work_p99_ms: NaN,
    spin_ms: NaN,
    wake_used_p99_ms: NaN,
    wake_used_max_ms: NaN,
    pacer_thread_cpu_pct: pacerPct,
    pacer_thread_cpu_pct_per_stream: pacerPct === null ? null : round(pacerPct / n, 3),
    pacer_thread_sleeps_per_s:
      sleeps0 === null || sleeps1 === null ? null : round(((sleeps1 - sleeps0) * 1000) / elapsedMs, 1),
    main_thread_cpu_pct: pct(main0, main1),
    cpu_pressure_pct: stall0 === null || stall1 === null ? null : round((stall1 - stall0) / 10 / elapsedMs, 1),
  };
}
