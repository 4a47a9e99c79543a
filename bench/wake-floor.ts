/**
 * What waking at 50 Hz costs on this machine, with no pacer at all (issue 16):
 * the floor under `bench/pacer.ts --streams 1`. A bare worker thread wakes for
 * a deadline every 20 ms for S seconds, in one of these ways, and optionally
 * writes one frame per wake to a receiver in this process:
 *
 *   --mode wait        Atomics.wait to the deadline, nothing else (one sleep per
 *                      frame; the thread's event loop never turns)
 *   --mode wait-turn   the same, then one turn of the event loop (setImmediate)
 *                      before the next wait: one sleep per frame for a thread
 *                      that must also run callbacks (the least a pacer thread
 *                      that sleeps once per frame would cost)
 *   --mode timer-wait  setTimeout to 2 ms before it, then Atomics.wait (what
 *                      the pacer thread's SleepingTimerDriver does: two sleeps)
 *   --mode timer       setTimeout alone (libuv's whole milliseconds)
 *   --mode native      no Node at all: bench/native/wake-write.c, compiled here
 *                      with `cc`, sleeps once per frame with clock_nanosleep
 *                      (--send none|net only; its TCP peer is another process)
 *   --send none|net|ws|fd  nothing; 900 bytes on a raw TCP socket (Nagle on, as
 *                      net.Socket starts); the pipecat-eval JSON message on a
 *                      `ws` WebSocket; the same message framed and written
 *                      straight to that socket's descriptor (what the pacer
 *                      thread does since src/pacing/direct-send.ts)
 *   --nice=N           the worker thread's own priority (below 0 needs the right to):
 *                      whether late wakes are other tasks holding the CPU
 *
 *   npx tsx bench/wake-floor.ts --mode timer-wait --send ws --seconds 15
 *
 * Reported: the worker thread's own CPU (the scheduler's nanosecond count,
 * /proc/thread-self/schedstat), its sleeps per wake, how late it woke (p50,
 * p99, max), and the whole process's CPU (the receiver included). Linux only.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createServer, type AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { createRequire } from 'node:module';
import { WebSocketServer } from 'ws';

const USAGE =
  'usage: bench/wake-floor.ts [--mode wait|wait-turn|timer-wait|timer|native] [--send none|net|ws|fd] [--seconds N] [--lead MS] [--nice=N]';
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
if (
  !Number.isInteger(nice) ||
  !['wait', 'wait-turn', 'timer-wait', 'timer', 'native'].includes(mode) ||
  !['none', 'net', 'ws', 'fd'].includes(send) ||
  !(seconds > 0) ||
  !(leadMs >= 0)
) {
  console.error(USAGE);
  process.exit(2);
}
if (mode === 'native') {
  if (send !== 'none' && send !== 'net') {
    console.error(`--mode native writes raw bytes only: --send none or net\n${USAGE}`);
    process.exit(2);
  }
  runNative();
}

/** Compiles bench/native/wake-write.c and prints its line, with the load beside it. */
function runNative(): never {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-wake-'));
  const binary = join(dir, 'wake-write');
  const source = fileURLToPath(new URL('./native/wake-write.c', import.meta.url));
  const cc = spawnSync('cc', ['-O2', '-o', binary, source], { encoding: 'utf8' });
  if (cc.error || cc.status !== 0) {
    console.error(
      `--mode native needs a C compiler as \`cc\` (Debian: apt-get install gcc): ${cc.error?.message ?? cc.stderr.trim()}`,
    );
    process.exit(1);
  }
  const run = spawnSync(binary, [send, String(Math.ceil(seconds))], { encoding: 'utf8' });
  rmSync(dir, { recursive: true, force: true });
  if (run.status !== 0) {
    console.error(`bench/native/wake-write.c failed: ${run.stderr.trim()}`);
    process.exit(1);
  }
  const line = JSON.parse(run.stdout) as Record<string, unknown>;
  console.log(
    JSON.stringify({ ...line, nice, load_avg_1m: Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]) }),
  );
  process.exit(0);
}

let port = 0;
if (send === 'net') {
  const server = createServer((c) => c.on('data', () => {}));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
  server.unref();
} else if (send === 'ws' || send === 'fd') {
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
  if (send === 'ws' || send === 'fd') {
    const WebSocket = require(wsPath);
    const s = new WebSocket('ws://127.0.0.1:' + port, { perMessageDeflate: false });
    const upgraded = new Promise((r) => s.once('upgrade', (res) => r(res.socket)));
    await new Promise((r) => s.once('open', r));
    if (send === 'ws') out = () => s.send(message());
    else {
      // As src/pacing/direct-send.ts: one masked text frame, one write(2) to the descriptor.
      const fd = (await upgraded)._handle.fd;
      const masks = Buffer.alloc(4096); let at = masks.length;
      out = () => {
        const body = Buffer.from(message(), 'utf8'); const n = body.length; const head = n < 126 ? 6 : 8;
        const f = Buffer.allocUnsafe(head + n);
        f[0] = 0x81; if (n < 126) f[1] = 0x80 | n; else { f[1] = 0x80 | 126; f.writeUInt16BE(n, 2); }
        if (at + 4 > masks.length) { require('node:crypto').randomFillSync(masks); at = 0; }
        masks.copy(f, head - 4, at, at + 4);
        for (let i = 0; i < n; i++) f[head + i] = body[i] ^ masks[at + (i & 3)];
        at += 4;
        require('node:fs').writeSync(fd, f);
      };
    }
  }
  const late = [];
  const t0 = performance.now() + 1000;
  const end = t0 + seconds * 1000;
  let k = 0, run0 = 0, sleeps0 = 0, pre0 = 0;
  const woke = (at) => { late.push(performance.now() - at); out(); if (k++ === 0) { run0 = runMs(); sleeps0 = sleeps(); pre0 = preempted(); } };
  const done = () => parentPort.postMessage({ late, runMs: runMs() - run0, sleeps: sleeps() - sleeps0, preempted: preempted() - pre0, wakes: k - 1, spanMs: performance.now() - t0 });
  if (mode === 'wait') { for (;;) { const at = t0 + k * 20; if (at > end) return done(); block(at); woke(at); } }
  if (mode === 'wait-turn') { const cycle = () => { const at = t0 + k * 20; if (at > end) return done(); block(at); woke(at); setImmediate(cycle); }; return cycle(); }
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
