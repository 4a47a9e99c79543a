import { randomFillSync } from 'node:crypto';
import { writeSync } from 'node:fs';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';

/**
 * A client-to-server WebSocket frame (RFC 6455 §5.2), final and masked with
 * `mask`: text for a string, binary for bytes. One buffer, so one write.
 */
export function clientFrame(payload: string | Uint8Array, mask: Uint8Array): Buffer {
  const text = typeof payload === 'string';
  const length = text ? Buffer.byteLength(payload, 'utf8') : payload.byteLength;
  const head = length < 126 ? 6 : length < 65536 ? 8 : 14;
  const out = Buffer.allocUnsafe(head + length);
  out[0] = 0x80 | (text ? 0x1 : 0x2);
  if (length < 126) out[1] = 0x80 | length;
  else if (length < 65536) {
    out[1] = 0x80 | 126;
    out.writeUInt16BE(length, 2);
  } else {
    out[1] = 0x80 | 127;
    out.writeUInt32BE(Math.floor(length / 2 ** 32), 2);
    out.writeUInt32BE(length >>> 0, 6);
  }
  out.set(mask.subarray(0, 4), head - 4);
  if (text) out.write(payload, head, 'utf8');
  else out.set(payload, head);
  const m0 = mask[0];
  const m1 = mask[1];
  const m2 = mask[2];
  const m3 = mask[3];
  let i = head;
  const end = head + length;
  for (; i + 3 < end; i += 4) {
    out[i] ^= m0;
    out[i + 1] ^= m1;
    out[i + 2] ^= m2;
    out[i + 3] ^= m3;
  }
  for (let k = 0; i < end; i++, k++) out[i] ^= mask[k];
  return out;
}

/** What the direct path needs of the `ws` client above the socket. */
export interface FrameChannel {
  readonly readyState: number;
  /** Bytes `send` queued that are not yet in the kernel (ws: the socket's queue plus its sender's). */
  readonly bufferedAmount: number;
}

/** Why a socket has no direct path, for the bench and the tests. */
export type DirectUnavailable = 'tls' | 'no_descriptor';

const MASK_POOL_BYTES = 8192;
const OPEN = 1;

/**
 * Writes paced audio frames straight to the socket's descriptor, one
 * `write(2)` per frame, instead of through `ws.send` and the socket's stream.
 *
 * Why: the pacer thread's own cost for one stream is mostly the path of a
 * frame, not the frame. `ws` builds a header and the masked payload as two
 * buffers, corks the socket, and Node's stream machinery queues, writes them
 * with `writev` and schedules callbacks: measured with `perf` on the pacer
 * thread, about 40 % of its CPU for one stream went under `ws.send` (the
 * system call itself about half of that). Here a frame is framed and masked
 * into one buffer and written at once.
 *
 * Safe only while nothing else is queued on the socket: `ws` may have frames
 * (control messages, a frame an earlier full buffer held back) waiting in its
 * sender or the stream, and a direct write would pass them. So `send` writes
 * directly only while `bufferedAmount` is 0; otherwise, or when the kernel's
 * buffer is full (EAGAIN), it returns false and the caller sends through
 * `ws`, behind whatever waits. A partial write hands its rest to the socket's
 * own queue, so everything after it queues behind it. Any other error turns
 * the path off for the socket: `ws` then meets the same error and reports it
 * the usual way. TLS sockets (wss://) have no direct path: their bytes are
 * encrypted in this process.
 */
export class DirectSender {
  private readonly masks = Buffer.allocUnsafe(MASK_POOL_BYTES);
  private maskAt = MASK_POOL_BYTES;
  private off = false;
  /** Frames written directly, and frames left to `ws`. */
  direct = 0;
  fallback = 0;

  private constructor(
    private readonly channel: FrameChannel,
    private readonly socket: Socket,
    private readonly fd: number,
  ) {}

  /** A direct path for `socket` under `channel`, or why there is none. */
  static open(channel: FrameChannel, socket: Socket): DirectSender | DirectUnavailable {
    if (socket instanceof TLSSocket) return 'tls';
    const fd = descriptorOf(socket);
    return fd === null ? 'no_descriptor' : new DirectSender(channel, socket, fd);
  }

  /** Writes `payload` as one frame now; false: the caller sends it through `ws` instead. */
  send(payload: string | Uint8Array): boolean {
    if (this.off || this.channel.readyState !== OPEN || this.channel.bufferedAmount !== 0 || this.socket.destroyed) {
      this.fallback++;
      return false;
    }
    const frame = clientFrame(payload, this.nextMask());
    let written: number;
    try {
      written = writeSync(this.fd, frame);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') this.off = true;
      this.fallback++;
      return false;
    }
    // The rest of a partial write goes first in the socket's queue: what comes after waits for it.
    if (written < frame.length) this.socket.write(frame.subarray(written));
    this.direct++;
    return true;
  }

  /** RFC 6455 §5.3: a fresh, unpredictable key per frame, drawn from a pool refilled 2,048 frames at a time. */
  private nextMask(): Uint8Array {
    if (this.maskAt + 4 > MASK_POOL_BYTES) {
      randomFillSync(this.masks);
      this.maskAt = 0;
    }
    const mask = this.masks.subarray(this.maskAt, this.maskAt + 4);
    this.maskAt += 4;
    return mask;
  }
}

/**
 * The socket's file descriptor. Node gives no public way to it; its libuv
 * stream handle shows it as `fd` on Unix (-1 on Windows, where this path is
 * simply not taken).
 */
function descriptorOf(socket: Socket): number | null {
  if (!(socket instanceof Socket)) return null;
  const handle = (socket as unknown as { _handle?: { fd?: unknown } | null })._handle;
  const fd = handle?.fd;
  return typeof fd === 'number' && Number.isInteger(fd) && fd >= 0 ? fd : null;
}
