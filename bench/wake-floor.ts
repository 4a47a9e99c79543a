/**
 * What waking at 50 Hz costs on this machine, with no pacer at all (issue 16):
 * the floor under `bench/pacer.ts --streams 1`. A bare worker thread wakes for
 * a deadline every 20 ms for S seconds, in one of three ways, and optionally
 * writes one frame per wake to a receiver in this process:
 *
 *   --mode wait        Atomics.wait to the deadline, nothing else (one sleep per
 *                      frame; the thread's event loop never turns)
 *   --mode timer-wait  setTimeout to 2 ms before it, then Atomics.wait (what
 *                      the pacer thread's SleepingTimerDriver does: two sleeps)
 *   --mode timer       setTimeout alone (libuv's whole milliseconds)
 *   --send none|net|ws nothing; 900 bytes on a raw TCP socket; the pipecat-eval
 *                      JSON message on a `ws` WebSocket (what the pacer sends)
 *   --nice=N           the worker thread's own priority (below 0 needs the right to):
 *                      whether late wakes are other tasks holding the CPU
 *
 *   npx tsx bench/wake-floor.ts --mode timer-wait --send ws --seconds 15
 *
 * Reported: the worker thread's own CPU (the scheduler's nanosecond count,
 * /proc/thread-self/schedstat), its sleeps per wake, how late it woke (p50,
 * p99, max), and the whole process's CPU (the receiver included). Linux only.
 */
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { WebSocketServer } from 'ws';

const USAGE = 'usage: bench/wake-floor.ts [--mode wait|timer-wait|timer] [--send none|net|ws] [--seconds N] [--lead MS] [--nice=N]';
function parseCommandLine() {
  try {
    return parseArgs({
      options: {
        mode: { type: 'string', default: 'timer-wait' },
        send: { type: 'string', default: 'none' },
        seconds: { type: 'string', default: '15' },
        lead: { type: 'string', default: '2' },
        nice: { type: 'string', default: '0' },
      },
    });
  } catch (err) {
    console.error(`${err instanceof Error ? err.message : String(err)}\n${USAGE}`);
    process.exit(2);
  }
}
const { values } = parseCommandLine();
const mode = String(values.mode);
const send = String(values.send);
const seconds = Number(values.seconds);
const leadMs = Number(values.lead);
const nice = Number(values.nice);
if (!Number.isInteger(nice) || !['wait', 'timer-wait', 'timer'].includes(mode) || !['none', 'net', 'ws'].includes(send) || !(seconds > 0) || !(leadMs >= 0)) {
  console.error(USAGE);
  process.exit(2);
}

let port = 0;
if (send === 'net') {
  const server = createServer((c) => c.on('data', () => {}));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  server.unref();
} else if (send === 'ws') {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
  await new Promise<void>((r) => server.once('listening', () => r()));
  server.on('connection', (s) => s.on('message', () => {}));
  port = (server.address() as AddressInfo).port;
}

// Plain JavaScript, so the thread loads nothing but `ws` (no TypeScript loader thread beside it).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const net = require('node:net');
const { mode, send, port, seconds, leadMs, wsPath, nice } = workerData;
const tid = Number(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
if (nice !== 0) require('node:os').setPriority(tid, nice);
const runMs = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]) / 1e6;
const sleeps = () => Number(/^voluntary_ctxt_switches:\\s+(\\d+)/m.exec(readFileSync('/proc/thread-self/status', 'utf8'))[1]);
const preempted = () => Number(/^nonvoluntary_ctxt_switches:\\s+(\\d+)/m.exec(readFileSync('/proc/thread-self/status', 'utf8'))[1]);
const cell = new Int32Array(new SharedArrayBuffer(4));
const payload = Buffer.alloc(640, 7);
const message = () => JSON.stringify({ label: 'rtvi-ai', type: 'raw-audio', data: { base64Audio: payload.toString('base64'), sampleRate: 16000, numChannels: 1 } });
const block = (at) => { for (let i = 0; i < 64; i++) { const left = at - performance.now(); if (left <= 0) return; Atomics.wait(cell, 0, 0, left); } };
(async () => {
  let out = () => {};
  if (send === 'net') { const s = net.connect(port, '127.0.0.1'); await new Promise((r) => s.once('connect', r)); out = () => s.write(Buffer.alloc(900, 7)); }
  if (send === 'ws') { const WebSocket = require(wsPath); const s = new WebSocket('ws://127.0.0.1:' + port, { perMessageDeflate: false }); await new Promise((r) => s.once('open', r)); out = () => s.send(message()); }
  const late = [];
  const t0 = performance.now() + 1000;
  const end = t0 + seconds * 1000;
  let k = 0, run0 = 0, sleeps0 = 0, pre0 = 0;
  const woke = (at) => { late.push(performance.now() - at); out(); if (k++ === 0) { run0 = runMs(); sleeps0 = sleeps(); pre0 = preempted(); } };
  const done = () => parentPort.postMessage({ late, runMs: runMs() - run0, sleeps: sleeps() - sleeps0, preempted: preempted() - pre0, wakes: k - 1, spanMs: performance.now() - t0 });
  if (mode === 'wait') { for (;;) { const at = t0 + k * 20; if (at > end) return done(); block(at); woke(at); } }
  const step = () => {
    const at = t0 + k * 20;
    if (at > end) return done();
    const left = at - performance.now();
    if (mode === 'timer-wait' && left > leadMs + 1) return void setTimeout(step, left - leadMs);
    if (mode === 'timer' && left > 0) return void setTimeout(step, Math.max(1, Math.round(left)));
    block(at);
    woke(at);
    step();
  };
  step();
})();
`;

interface Result {
  late: number[];
  runMs: number;
  sleeps: number;
  preempted: number;
  wakes: number;
  spanMs: number;
}
const wsPath = createRequire(import.meta.url).resolve('ws');
const worker = new Worker(WORKER, { eval: true, workerData: { mode, send, port, seconds, leadMs, wsPath, nice } });
const cpu0 = process.cpuUsage();
const t0 = performance.now();
const r = await new Promise<Result>((resolve) => worker.once('message', resolve));
const cpu = process.cpuUsage(cpu0);
const processPct = (cpu.user + cpu.system) / 10 / (performance.now() - t0);
await worker.terminate();
// The first wake (the thread's first second is JIT and connecting) is not counted.
const late = r.late.slice(1).sort((a, b) => a - b);
const q = (p: number): string => (late[Math.min(late.length - 1, Math.floor(p * late.length))] ?? NaN).toFixed(3);
const threadPct = (100 * r.runMs) / r.spanMs;
console.log(
  JSON.stringify({
    mode,
    send,
    lead_ms: mode === 'timer-wait' ? leadMs : null,
    wakes: r.wakes,
    late_p50_ms: Number(q(0.5)),
    late_p99_ms: Number(q(0.99)),
    late_max_ms: Number(q(1)),
    late_over_1ms: late.filter((x) => x > 1).length,
    thread_cpu_pct: Number(threadPct.toFixed(2)),
    thread_sleeps_per_wake: Number((r.sleeps / r.wakes).toFixed(2)),
    thread_preempted: r.preempted,
    nice,
    thread_cpu_us_per_wake: Math.round((1000 * r.runMs) / r.wakes),
    process_cpu_pct: Number(processPct.toFixed(2)),
    load_avg_1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]),
  }),
);
process.exit(0);
