import type WebSocket from 'ws';
import type { WirePayload } from './codec.js';

/**
 * What a `WireConnection` needs of its socket: the part of `ws`'s WebSocket it
 * uses. A `ws` socket is one; so is a proxy for a socket that lives on another
 * thread (the pacer thread owns the sockets of audio sessions, so that frames
 * leave on time while this thread is busy). Such a proxy passes each inbound
 * frame's arrival time as `arrivedAtMs`, stamped where the frame was read.
 */
export interface SocketLike {
  readonly readyState: number;
  readonly bufferedAmount: number;
  send(data: WirePayload, options: { binary: boolean }, callback: (err?: Error) => void): void;
  close(code?: number, reason?: string): void;
  terminate(): void;
  on(event: 'message', listener: (data: WebSocket.RawData, isBinary: boolean, arrivedAtMs?: number) => void): this;
  on(event: 'error', listener: (err: Error) => void): this;
  once(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  once(event: 'open', listener: () => void): this;
  off(event: 'close', listener: (code: number, reason: Buffer) => void): this;
  off(event: 'error', listener: (err: Error) => void): this;
}

export interface SocketOpenOptions {
  maxPayload: number;
  headers?: Record<string, string>;
}

/** Opens a socket to `url` (the default makes a `ws` WebSocket); it emits 'open' or 'error' then 'close'. */
export type SocketOpener = (url: string, options: SocketOpenOptions) => SocketLike;
