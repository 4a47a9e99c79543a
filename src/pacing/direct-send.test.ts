import type { AddressInfo } from 'node:net';
import { Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { afterEach, describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { clientFrame, DirectSender } from './direct-send.js';

/** Reads one client frame back: FIN, opcode, mask bit, and the unmasked payload. */
function readFrame(frame: Buffer): { fin: boolean; opcode: number; masked: boolean; payload: Buffer } {
  let length = frame[1] & 0x7f;
  let at = 2;
  if (length === 126) {
    length = frame.readUInt16BE(2);
    at = 4;
  } else if (length === 127) {
    length = frame.readUInt32BE(2) * 2 ** 32 + frame.readUInt32BE(6);
    at = 10;
  }
  const mask = frame.subarray(at, at + 4);
  const payload = Buffer.from(frame.subarray(at + 4));
  for (let i = 0; i < payload.length; i++) payload[i] ^= mask[i % 4];
  expect(frame.length).toBe(at + 4 + length);
  return { fin: (frame[0] & 0x80) !== 0, opcode: frame[0] & 0x0f, masked: (frame[1] & 0x80) !== 0, payload };
}

describe('clientFrame', () => {
  const mask = Uint8Array.from([0x12, 0x34, 0x56, 0x78, 0x9a]);
  it.each([0, 1, 3, 125, 126, 1000, 65535, 65536, 70001])('frames %i bytes with the right length form, masked', (n) => {
    const text = 'é'.repeat(Math.floor(n / 2)) + 'x'.repeat(n % 2);
    const t = readFrame(clientFrame(text, mask));
    expect(t).toMatchObject({ fin: true, opcode: 1, masked: true });
    expect(t.payload.toString('utf8')).toBe(text);
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 7) & 0xff);
    const b = readFrame(clientFrame(bytes, mask));
    expect(b).toMatchObject({ fin: true, opcode: 2, masked: true });
    expect(Buffer.compare(b.payload, Buffer.from(bytes))).toBe(0);
  });

  it('writes the mask key into the frame and changes the bytes on the wire', () => {
    const frame = clientFrame('hello', mask);
    expect([...frame.subarray(2, 6)]).toEqual([0x12, 0x34, 0x56, 0x78]);
    expect(frame.subarray(6).toString('latin1')).not.toBe('hello');
  });
});

describe('DirectSender', () => {
  const closers: (() => void)[] = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });

  /** A `ws` server here and a `ws` client to it, with the socket the client's handshake ran on. */
  async function pair(): Promise<{
    client: WebSocket;
    socket: Socket;
    server: WebSocket;
    received: { data: Buffer; isBinary: boolean }[];
  }> {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    await new Promise<void>((r) => wss.once('listening', () => r()));
    const received: { data: Buffer; isBinary: boolean }[] = [];
    const accepted = new Promise<WebSocket>((resolve) =>
      wss.once('connection', (s) => {
        s.on('message', (data, isBinary) => received.push({ data: Buffer.from(data as Buffer), isBinary }));
        resolve(s);
      }),
    );
    const client = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`, { perMessageDeflate: false });
    const upgraded = new Promise<Socket>((resolve) => client.once('upgrade', (res) => resolve(res.socket)));
    await new Promise<void>((resolve, reject) => {
      client.once('open', () => resolve());
      client.once('error', reject);
    });
    closers.push(() => {
      client.terminate();
      wss.close();
    });
    return { client, socket: await upgraded, server: await accepted, received };
  }

  const until = async (what: () => boolean): Promise<void> => {
    for (let i = 0; i < 500 && !what(); i++) await new Promise((r) => setTimeout(r, 10));
  };

  it('sends frames the server reads as text and binary messages, in order with frames sent through ws', async () => {
    const { client, socket, received } = await pair();
    const direct = DirectSender.open(client, socket);
    if (typeof direct === 'string') throw new Error(`no direct path: ${direct}`);
    const sends: (string | Uint8Array)[] = ['one', Uint8Array.from([1, 2, 3]), 'x'.repeat(70_000)];
    expect(direct.send(sends[0])).toBe(true);
    client.send('through ws');
    for (const p of sends.slice(1)) if (!direct.send(p)) client.send(p);
    await until(() => received.length === 4);
    expect(received.map((m) => (m.isBinary ? [...m.data] : m.data.toString('utf8')))).toEqual([
      'one',
      'through ws',
      [1, 2, 3],
      'x'.repeat(70_000),
    ]);
    expect(direct.direct).toBeGreaterThanOrEqual(1);
  });

  it('keeps order and whole frames when the kernel buffer fills: partial writes and EAGAIN fall back behind what waits', async () => {
    const { client, socket, server, received } = await pair();
    const direct = DirectSender.open(client, socket);
    if (typeof direct === 'string') throw new Error(`no direct path: ${direct}`);
    // The server stops reading, so both kernel buffers fill.
    const serverSocket = (server as unknown as { _socket: Socket })._socket;
    serverSocket.pause();
    const count = 400;
    const body = 'y'.repeat(64 * 1024);
    for (let i = 0; i < count; i++) {
      const payload = `${i}:${body}`;
      if (!direct.send(payload)) client.send(payload);
    }
    expect(direct.fallback).toBeGreaterThan(0);
    expect(direct.direct).toBeGreaterThan(0);
    serverSocket.resume();
    await until(() => received.length === count);
    expect(received.length).toBe(count);
    received.forEach((m, i) => {
      expect(m.data.toString('utf8')).toBe(`${i}:${body}`);
    });
  });

  it('leaves a frame to ws while ws still has bytes queued', async () => {
    const { socket } = await pair();
    const direct = DirectSender.open({ readyState: 1, bufferedAmount: 10 }, socket);
    if (typeof direct === 'string') throw new Error(`no direct path: ${direct}`);
    expect(direct.send('later')).toBe(false);
    expect(direct.fallback).toBe(1);
    const closing = DirectSender.open({ readyState: 2, bufferedAmount: 0 }, socket);
    expect(typeof closing !== 'string' && closing.send('late')).toBe(false);
  });

  it('has no direct path on TLS or on a socket without a descriptor', () => {
    expect(DirectSender.open({ readyState: 1, bufferedAmount: 0 }, new TLSSocket(new Socket()))).toBe('tls');
    expect(DirectSender.open({ readyState: 1, bufferedAmount: 0 }, new Socket())).toBe('no_descriptor');
  });
});
