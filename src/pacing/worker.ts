/**
 * The pacer thread (started by `ThreadPacer`): the in-thread `Pacer`, unchanged,
 * on a `SleepingTimerDriver`, with the sockets of the audio sessions.
 *
 * Why a frame cannot wait for the main thread: everything a frame needs is
 * here before it is due. The samples came over in one message when the
 * session queued the utterance (silence needs none), the codec is this
 * thread's own, and the WebSocket is opened and written here. On a deadline
 * this thread wakes from `Atomics.wait`, encodes nothing (the frame was
 * encoded in the lead), and writes the frame to the socket (straight to its
 * descriptor where it can, src/pacing/direct-send.ts): no step involves
 * the main thread, which only learns afterwards what left and when. So VAD,
 * STT, the judge or a report holding the main thread for 200 ms delays its
 * own bookkeeping, never a frame. Inbound frames are read here too and stamped
 * with their arrival time before they are passed on.
 */
import { readlinkSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import WebSocket from 'ws';
import { Pacer, type MicStream, type Utterance } from '../audio/index.js';
import { assertNever } from '../core/never.js';
import { SleepingTimerDriver } from '../core/sleep-timers.js';
import { getCodec, type WirePayload } from '../protocol/index.js';
import { DirectSender } from './direct-send.js';
import type { FromPacer, ToPacer } from './messages.js';

export interface PacerWorkerData {
  /** The main thread's `performance.timeOrigin`: times sent back are on its clock. */
  mainTimeOrigin: number;
  leadMs?: number;
  /** false: every frame through `ws.send` (for comparison); default: the direct path where the socket allows it. */
  directSend?: boolean;
}

const port = parentPort;
if (!port) throw new Error('src/pacing/worker.ts runs as a worker thread (ThreadPacer starts it)');
const data = workerData as PacerWorkerData;
const offsetMs = performance.timeOrigin - data.mainTimeOrigin;
const clock = { now: (): number => performance.now() + offsetMs };
const timers = new SleepingTimerDriver({ clock, ...(data.leadMs !== undefined ? { leadMs: data.leadMs } : {}) });
const pacer = new Pacer({ clock, timers });

const sockets = new Map<number, WebSocket>();
/** Each plain-TCP socket's direct path for audio frames (src/pacing/direct-send.ts). */
const direct = new Map<number, DirectSender>();
interface Line {
  stream: MicStream<WirePayload | null>;
  utts: Map<number, Utterance>;
  abort: AbortController;
}
const lines = new Map<number, Line>();
let batch: number[] = [];
let batchSinceMs = 0;
let flushQueued = false;
/**
 * Frame reports are batched over this long: the main thread needs them only
 * for its bookkeeping (the recording, stats), so fewer, larger messages wake
 * it less. Anything else posted flushes them first, so reports stay in order.
 */
const REPORT_EVERY_MS = 100;

function post(message: FromPacer, transfer: ArrayBuffer[] = []): void {
  if (batch.length > 0) flushFrames();
  port!.postMessage(message, transfer);
}

function flushFrames(): void {
  flushQueued = false;
  if (batch.length === 0) return;
  const frames = Float64Array.from(batch);
  batch = [];
  port!.postMessage({ t: 'frames', frames } satisfies FromPacer, [frames.buffer]);
}

/** Called in the tick for each frame sent: the flush runs right after the tick, once the batch is old enough. */
function report(...frame: number[]): void {
  const now = clock.now();
  if (batch.length === 0) batchSinceMs = now;
  batch.push(...frame);
  if (!flushQueued && now - batchSinceMs >= REPORT_EVERY_MS) {
    flushQueued = true;
    queueMicrotask(flushFrames);
  }
}

function open(m: Extract<ToPacer, { t: 'open' }>): void {
  let ws: WebSocket;
  try {
    ws = new WebSocket(m.url, { maxPayload: m.maxPayload, perMessageDeflate: false, headers: m.headers });
  } catch (err) {
    post({ t: 'error', sock: m.sock, message: err instanceof Error ? err.message : String(err) });
    post({ t: 'close', sock: m.sock, code: 1006, reason: '' });
    return;
  }
  sockets.set(m.sock, ws);
  // Emitted just before 'open', with the socket the handshake ran on.
  ws.once('upgrade', (res) => {
    const sender = DirectSender.open(ws, res.socket);
    if (typeof sender !== 'string' && data.directSend !== false) direct.set(m.sock, sender);
  });
  ws.once('open', () => post({ t: 'open', sock: m.sock }));
  ws.on('message', (raw, isBinary) => {
    const at = clock.now();
    const buf = Buffer.isBuffer(raw) ? raw : Array.isArray(raw) ? Buffer.concat(raw) : Buffer.from(raw);
    const bytes = new Uint8Array(buf.byteLength);
    bytes.set(buf);
    post({ t: 'message', sock: m.sock, data: bytes, isBinary, at }, [bytes.buffer]);
  });
  ws.on('error', (err) => {
    const code = (err as Error & { code?: unknown }).code;
    post({ t: 'error', sock: m.sock, message: err.message, ...(typeof code === 'string' ? { code } : {}) });
  });
  ws.once('close', (code, reason) => {
    sockets.delete(m.sock);
    direct.delete(m.sock);
    post({ t: 'close', sock: m.sock, code, reason: reason.toString('utf8') });
  });
}

function startStream(m: Extract<ToPacer, { t: 'stream' }>): void {
  const ws = sockets.get(m.sock);
  const fast = direct.get(m.sock);
  const codec = getCodec(m.codec).client();
  const abort = new AbortController();
  const stream = pacer.createStream<WirePayload | null>({
    sampleRate: m.sampleRate,
    label: m.label,
    signal: abort.signal,
    ...(m.recordFrames !== undefined ? { recordFrames: m.recordFrames } : {}),
    encode: (frame) => codec.encode({ kind: 'audio', pcm: frame.samples, sampleRate: frame.sampleRate }),
    sink: (frame) => {
      // A closed connection ends the session soon; until then frames are simply not sent.
      if (frame.payload !== null && ws && ws.readyState === WebSocket.OPEN && !fast?.send(frame.payload)) {
        ws.send(frame.payload, { binary: typeof frame.payload !== 'string' }, () => {});
      }
      report(
        m.stream,
        frame.index,
        frame.dueMs,
        frame.sentMs,
        frame.utteranceId === null ? 0 : uttOf(m.stream, frame.utteranceId),
      );
    },
  });
  lines.set(m.stream, { stream, utts: new Map(), abort });
  post({ t: 'started', stream: m.stream, startMs: stream.startMs });
  void stream.ended.then((stats) => {
    lines.delete(m.stream);
    uttIds.delete(m.stream);
    const recs = stream.frameRecords();
    const records = new Float64Array(recs.length * 4);
    recs.forEach((r, i) => {
      records.set([r.index, r.dueMs, r.sentMs, r.speech ? 1 : 0], i * 4);
    });
    post({ t: 'ended', stream: m.stream, stats, records }, [records.buffer]);
  });
}

/** The main thread's id for the worker's utterance (the stream numbers its own). */
const uttIds = new Map<number, Map<number, number>>();
function uttOf(stream: number, localId: number): number {
  return uttIds.get(stream)?.get(localId) ?? 0;
}

function enqueue(m: Extract<ToPacer, { t: 'enqueue' }>): void {
  const line = lines.get(m.stream);
  if (!line) return;
  const u = line.stream.enqueue(m.samples, {
    ...(m.label !== null ? { label: m.label } : {}),
    ...(m.notBeforeMs !== undefined ? { notBeforeMs: m.notBeforeMs } : {}),
    ...(m.voiced !== undefined ? { voiced: m.voiced } : {}),
  });
  let ids = uttIds.get(m.stream);
  if (!ids) {
    ids = new Map();
    uttIds.set(m.stream, ids);
  }
  ids.set(u.id, m.utt);
  line.utts.set(m.utt, u);
  const report = (phase: 'started' | 'finished') => (timing: ReturnType<Utterance['timing']>) =>
    post({ t: 'utt', stream: m.stream, utt: m.utt, phase, timing, end: line.stream.stats().end });
  void u.started.then(report('started'));
  void u.finished.then((t) => {
    line.utts.delete(m.utt);
    ids.delete(u.id);
    report('finished')(t);
  });
}

port.on('message', (m: ToPacer) => {
  switch (m.t) {
    case 'open':
      return open(m);
    case 'send': {
      const ws = sockets.get(m.sock);
      if (ws && ws.readyState === WebSocket.OPEN)
        ws.send(m.payload, { binary: typeof m.payload !== 'string' }, () => {});
      return;
    }
    case 'close': {
      const ws = sockets.get(m.sock);
      try {
        ws?.close(m.code, m.reason);
      } catch {
        ws?.terminate(); // an invalid code or reason: drop the link instead
      }
      return;
    }
    case 'terminate':
      return sockets.get(m.sock)?.terminate();
    case 'stream':
      return startStream(m);
    case 'enqueue':
      return enqueue(m);
    case 'cancel':
      return lines.get(m.stream)?.utts.get(m.utt)?.cancel();
    case 'stop': {
      const line = lines.get(m.stream);
      if (m.reason === 'aborted') line?.abort.abort();
      else line?.stream.stop();
      return;
    }
    default:
      assertNever(m, 'pacer thread message');
  }
});

/** This thread's kernel id: /proc/thread-self links to `<pid>/task/<tid>` on Linux. */
function kernelThreadId(): number | null {
  try {
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    return Number.isInteger(tid) ? tid : null;
  } catch {
    return null;
  }
}

post({ t: 'ready', originMs: pacer.originMs, frameMs: pacer.frameMs, tid: kernelThreadId() });
