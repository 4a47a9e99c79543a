/**
 * Pacer benchmark (issues 5, 16): N concurrent 20 ms virtual microphones on one
 * shared pacer, real clock, real timers, for S seconds per configuration.
 *
 *   npx tsx bench/pacer.ts                       # the pacer thread: 1, 20 and 100 streams, 60 s each
 *   npx tsx bench/pacer.ts --pacer main          # the in-thread pacer (PreciseTimerDriver polling), as before
 *   npx tsx bench/pacer.ts --seconds 10 --streams 100 --json out.json
 *   npx tsx bench/pacer.ts --nice=-10          # raise this process's priority first (needs the right to)
 *
 * Each stream speaks 2 s of audio every 5 s (silence in between, as a caller
 * does), and each frame is made into what the pipecat-eval codec sends:
 * little-endian bytes, base64, a JSON `raw-audio` message (not sent anywhere:
 * the pacer, not the socket, is under test). `--sink prepared` (the default)
 * encodes through the stream's `encode` hook, ahead of the deadline, as the
 * session does; `--sink inline` encodes inside the sink, on the deadline;
 * `--sink noop` encodes nothing.
 *
 * `--pacer thread` (the default, what real runs use) paces on the pacer
 * thread (src/pacing/): each stream is a real WebSocket connection opened on
 * that thread to a plain `ws` server in this process that discards what it
 * reads, and frames are encoded there (pipecat-eval) and written to the
 * socket (`--send direct`, the default: straight to the socket's descriptor,
 * src/pacing/direct-send.ts; `--send ws`: every frame through `ws.send`, as
 * before, for comparison); `--sink` does not apply. CPU is this process's, every thread: the
 * pacer thread, this thread's bookkeeping of the frames reported back, and the
 * receiving server's socket reads (so the figure is an upper bound).
 *
 * Reported per configuration: lateness of every frame (sent − due: p50, p99,
 * max), drift (the last frame's due time against the ideal start + n × 20 ms,
 * its send time against the same, and frame slots counted against elapsed wall
 * time), CPU per stream-second (process.cpuUsage), peak RSS, and the timer
 * driver's polling lead.
 */
import { writeFileSync } from 'node:fs';
import { cpus, getPriority, loadavg, setPriority } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { monotonicClock } from '../src/core/clock.js';
import { PreciseTimerDriver } from '../src/core/timers.js';
import {
  Pacer,
  int16ToBytes,
  sineWave,
  type FrameContent,
  type MicStream,
  type PacedFrame,
} from '../src/audio/index.js';
import { cpuStallUs } from './machine.js';
import { runThread } from './pacer-thread.js';

export interface Row {
  streams: number;
  seconds: number;
  frames: number;
  speech_frames: number;
  skipped_silence_frames: number;
  lateness_p50_ms: number;
  lateness_p99_ms: number;
  lateness_max_ms: number;
  drift_due_max_ms: number;
  drift_sent_last_ms: number;
  slot_error_max: number;
  cpu_pct_core_per_stream: number;
  cpu_pct_core_total: number;
  rss_peak_mb: number;
  event_loop_delay_p99_ms: number;
  tick_late_p99_ms: number;
  tick_work_p50_ms: number;
  tick_work_p99_ms: number;
  spin_ms: number;
  wake_used_p99_ms: number;
  wake_used_max_ms: number;
  /** Whole-run maximum lateness, warm-up included (the p50/p99/max above are after it). */
  warmup_lateness_max_ms: number;
  /** The pacer thread alone, % of a core, all streams (Linux scheduler time); null for the in-thread pacer. */
  pacer_thread_cpu_pct: number | null;
  pacer_thread_cpu_pct_per_stream: number | null;
  /** How often the pacer thread went to sleep (voluntary context switches): each sleep and wake costs CPU. */
  pacer_thread_sleeps_per_s: number | null;
  /** The main thread: the bench's receiving server and the frame reports' bookkeeping; null for the in-thread pacer. */
  main_thread_cpu_pct: number | null;
  /** Share of the run during which some runnable task on the machine waited for a CPU (Linux PSI); null elsewhere. */
  cpu_pressure_pct: number | null;
}

const USAGE =
  'usage: bench/pacer.ts [--seconds N] [--streams 1,20,100] [--pacer thread|main] [--warmup S] [--sink prepared|inline|noop] [--send direct|ws] [--nice=N] [--json FILE]';

function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        seconds: { type: 'string', default: '60' },
        streams: { type: 'string', default: '1,20,100' },
        json: { type: 'string' },
        sink: { type: 'string', default: 'prepared' },
        nice: { type: 'string' },
        pacer: { type: 'string', default: 'thread' },
        warmup: { type: 'string', default: '3' },
        send: { type: 'string', default: 'direct' },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}
const { values } = parseCommandLine();

const seconds = Number(values.seconds);
const warmupS = Number(values.warmup);
const configs = String(values.streams).split(',').map(Number);
if (
  !(seconds > 0) ||
  !(warmupS >= 0) ||
  configs.some((n) => !(Number.isInteger(n) && n > 0)) ||
  !['prepared', 'inline', 'noop'].includes(String(values.sink)) ||
  !['thread', 'main'].includes(String(values.pacer)) ||
  !['direct', 'ws'].includes(String(values.send))
) {
  console.error(USAGE);
  process.exit(2);
}

if (values.nice !== undefined) {
  try {
    setPriority(Number(values.nice));
  } catch (err) {
    console.error(`cannot set priority ${values.nice}: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(2);
  }
}

const SPEECH = sineWave(220, 2000, 16000, -12);

function rawAudioMessage(frame: FrameContent): string {
  return JSON.stringify({
    label: 'rtvi-ai',
    type: 'raw-audio',
    data: { base64Audio: int16ToBytes(frame.samples).toString('base64'), sampleRate: frame.sampleRate, numChannels: 1 },
  });
}

/** Stands in for `ws.send`: touches the payload so the work cannot be optimised away. */
let _bytesOut = 0;

async function run(n: number): Promise<Row> {
  const clock = monotonicClock;
  const timers = new PreciseTimerDriver({ clock });
  const pacer = new Pacer({ clock, timers });
  const mode = values.sink;
  const lastFrames: (PacedFrame<string> | null)[] = new Array(n).fill(null);
  const streams: MicStream<string>[] = [];
  for (let i = 0; i < n; i++) {
    const sink = (f: PacedFrame<string>): void => {
      lastFrames[i] = f;
      _bytesOut += mode === 'inline' ? rawAudioMessage(f).length : f.payload.length;
    };
    const encode = mode === 'prepared' ? rawAudioMessage : () => '';
    streams.push(pacer.createStream({ sampleRate: 16000, sink, encode, label: `s${i}`, recordFrames: 0 }));
  }
  // Staggered speech: each stream talks 2 s in every 5 s, offset so talkers overlap like a real load.
  const talk = setInterval(() => {
    const slot = Math.floor((clock.now() - streams[0].startMs) / 1000);
    for (let i = 0; i < n; i++) if ((slot + i) % 5 === 0) streams[i].enqueue(SPEECH);
  }, 1000);
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  let rssPeak = process.memoryUsage().rss;
  const rssTimer = setInterval(() => (rssPeak = Math.max(rssPeak, process.memoryUsage().rss)), 500);
  const cpu0 = process.cpuUsage();
  const stall0 = cpuStallUs();
  const t0 = clock.now();
  await new Promise((r) => setTimeout(r, seconds * 1000));
  const elapsedMs = clock.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const stall1 = cpuStallUs();
  clearInterval(talk);
  clearInterval(rssTimer);
  loop.disable();
  const endMs = clock.now();
  const perStream = streams.map((s) => s.stats());
  pacer.close();
  const stats = pacer.stats();
  let driftDue = 0;
  let driftSent = 0;
  let slotErr = 0;
  perStream.forEach((st, i) => {
    // The ideal timeline is computed here, independently of the pacer: start + n × 20 ms.
    const f = lastFrames[i];
    if (f) {
      const ideal = st.startMs + f.index * 20;
      driftDue = Math.max(driftDue, Math.abs(f.dueMs - ideal));
      driftSent = Math.max(driftSent, f.sentMs - ideal);
    }
    const expectedSlots = Math.floor((endMs - st.startMs) / 20) + 1;
    slotErr = Math.max(slotErr, Math.abs(st.frameSlots - expectedSlots));
  });
  const cpuMs = (cpu.user + cpu.system) / 1000;
  return {
    streams: n,
    seconds: round(elapsedMs / 1000, 1),
    frames: stats.frameLateness.count,
    speech_frames: perStream.reduce((a, s) => a + s.speechFrames, 0),
    skipped_silence_frames: perStream.reduce((a, s) => a + s.skippedSilenceFrames, 0),
    lateness_p50_ms: round(stats.frameLateness.p50Ms ?? NaN, 3),
    lateness_p99_ms: round(stats.frameLateness.p99Ms ?? NaN, 3),
    lateness_max_ms: round(stats.frameLateness.maxMs ?? NaN, 3),
    drift_due_max_ms: driftDue,
    drift_sent_last_ms: round(driftSent, 3),
    slot_error_max: slotErr,
    cpu_pct_core_per_stream: round((100 * cpuMs) / elapsedMs / n, 3),
    cpu_pct_core_total: round((100 * cpuMs) / elapsedMs, 2),
    rss_peak_mb: round(rssPeak / 1048576, 1),
    event_loop_delay_p99_ms: round(loop.percentile(99) / 1e6, 3),
    tick_late_p99_ms: round(stats.tickLateness.p99Ms ?? NaN, 3),
    tick_work_p50_ms: round(stats.tickWork.p50Ms ?? NaN, 3),
    tick_work_p99_ms: round(stats.tickWork.p99Ms ?? NaN, 3),
    spin_ms: round(timers.leadMs, 2),
    wake_used_p99_ms: round(timers.wakeStats().p99Ms ?? NaN, 3),
    wake_used_max_ms: round(timers.wakeStats().maxMs ?? NaN, 3),
    warmup_lateness_max_ms: round(stats.frameLateness.maxMs ?? NaN, 3),
    pacer_thread_cpu_pct: null,
    pacer_thread_cpu_pct_per_stream: null,
    pacer_thread_sleeps_per_s: null,
    main_thread_cpu_pct: null,
    cpu_pressure_pct: stall0 === null || stall1 === null ? null : round((stall1 - stall0) / 10 / elapsedMs, 1),
  };
}

function round(x: number, digits: number): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

const rows: Row[] = [];
for (const n of configs) {
  rows.push(
    values.pacer === 'thread' ? await runThread(n, seconds, SPEECH, warmupS, values.send === 'direct') : await run(n),
  );
  const r = rows[rows.length - 1];
  console.error(`  ${n} streams done: p99 ${r.lateness_p99_ms} ms, max ${r.lateness_max_ms} ms`);
}

const machine = `${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), node ${process.version}, nice ${getPriority()}, load avg ${loadavg()
  .map((x) => x.toFixed(2))
  .join(' ')}`;
console.log(
  `pacer benchmark — ${seconds} s per configuration, ${values.pacer === 'thread' ? `pacer thread, real sockets, send=${values.send}` : `in-thread pacer, sink=${values.sink}`}; ${machine}`,
);
const cols: [keyof Row, string][] = [
  ['streams', 'streams'],
  ['frames', 'frames'],
  ['lateness_p50_ms', 'p50 ms'],
  ['lateness_p99_ms', 'p99 ms'],
  ['lateness_max_ms', 'max ms'],
  ['drift_due_max_ms', 'drift due'],
  ['slot_error_max', 'slot err'],
  ['skipped_silence_frames', 'skipped'],
  ['cpu_pct_core_per_stream', 'process %/stream'],
  ['cpu_pct_core_total', 'process cpu %'],
  ['rss_peak_mb', 'rss MB'],
  ['event_loop_delay_p99_ms', 'loop p99 ms'],
  ['tick_late_p99_ms', 'tick late p99'],
  ['tick_work_p50_ms', 'tick work p50'],
  ['tick_work_p99_ms', 'tick work p99'],
  ['spin_ms', 'lead ms'],
  ['wake_used_p99_ms', 'wake p99'],
  ['wake_used_max_ms', 'wake max'],
  ['pacer_thread_cpu_pct', 'thread cpu %'],
  ['pacer_thread_cpu_pct_per_stream', 'thread %/stream'],
  ['pacer_thread_sleeps_per_s', 'thread sleeps/s'],
  ['main_thread_cpu_pct', 'main cpu %'],
  ['warmup_lateness_max_ms', 'max incl warmup'],
  ['cpu_pressure_pct', 'cpu psi %'],
];
const width = cols.map(([k, h]) => Math.max(h.length, ...rows.map((r) => String(r[k]).length)));
console.log(cols.map(([, h], i) => h.padStart(width[i])).join('  '));
for (const r of rows) console.log(cols.map(([k], i) => String(r[k]).padStart(width[i])).join('  '));
if (values.json) {
  writeFileSync(
    values.json,
    `${JSON.stringify({ seconds, warmup_s: values.pacer === 'thread' ? warmupS : 0, pacer: values.pacer, sink: values.sink, send: values.pacer === 'thread' ? values.send : null, machine, rows }, null, 2)}\n`,
  );
  console.log(`wrote ${values.json}`);
}
