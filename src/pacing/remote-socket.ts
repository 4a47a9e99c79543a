import { EventEmitter } from 'node:events';
import type { SocketLike } from '../protocol/index.js';
import type { FromPacer, ToPacer } from './messages.js';

/** `ws`'s readyState numbers, which `WireConnection` compares against. */
const CONNECTING = 0;
const OPEN = 1;
const CLOSING = 2;
const CLOSED = 3;

/**
 * This thread's handle on a WebSocket that lives on the pacer thread: what a
 * `WireConnection` needs of a socket, relayed both ways. Inbound frames carry
 * the time the pacer thread read them, so their stamps do not wait for this
 * thread either. `bufferedAmount` is not visible from here and reads 0.
 */
export class RemoteSocket extends EventEmitter implements SocketLike {
  readyState = CONNECTING;
  readonly bufferedAmount = 0;

  constructor(
    readonly id: number,
    private readonly post: (m: ToPacer) => void,
    private readonly onClosed: (s: RemoteSocket) => void,
  ) {
    super();
  }

  send(data: string | Uint8Array, _options: { binary: boolean }, callback: (err?: Error) => void): void {
    if (this.readyState !== OPEN) {
      callback(new Error('the socket is not open'));
      return;
    }
    this.post({ t: 'send', sock: this.id, payload: data });
    callback();
  }

  close(code?: number, reason?: string): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.post({
      t: 'close',
      sock: this.id,
      ...(code !== undefined ? { code } : {}),
      ...(reason !== undefined ? { reason } : {}),
    });
  }

  terminate(): void {
    if (this.readyState === CLOSED) return;
    this.readyState = CLOSING;
    this.post({ t: 'terminate', sock: this.id });
  }

  /** @internal A message from the pacer thread about this socket. */
  deliver(m: Extract<FromPacer, { t: 'open' | 'error' | 'message' | 'close' }>): void {
    switch (m.t) {
      case 'open':
        this.readyState = OPEN;
        this.emit('open');
        return;
      case 'message':
        this.emit('message', Buffer.from(m.data.buffer, m.data.byteOffset, m.data.byteLength), m.isBinary, m.at);
        return;
      case 'error':
        if (this.listenerCount('error') > 0)
          this.emit('error', Object.assign(new Error(m.message), m.code ? { code: m.code } : {}));
        return;
      case 'close':
        this.readyState = CLOSED;
        this.onClosed(this);
        this.emit('close', m.code, Buffer.from(m.reason, 'utf8'));
        return;
    }
  }

  /** @internal The pacer thread is gone: the link dropped. */
  drop(): void {
    if (this.readyState === CLOSED) return;
    this.deliver({ t: 'close', sock: this.id, code: 1006, reason: '' });
  }
}
