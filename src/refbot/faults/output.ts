/**
 * The bytes of the output faults, put on a connection: garbage frames,
 * malformed RTVI, one huge frame, and the flood. On the protobuf wire the
 * malformed JSON travels inside MessageFrames (what a broken Pipecat bot's
 * serializer would send); garbage is raw, whatever the wire.
 */
import protobuf from 'protobufjs/light.js';
import type { Clock } from '../../core/clock.js';
import { type CodecName, PIPECAT_FRAMES_SCHEMA, type ServerConnection } from '../../protocol/index.js';
import { garbageFrames, hugeMessage, MALFORMED_RTVI } from './switches.js';

const FrameType = protobuf.Root.fromJSON(PIPECAT_FRAMES_SCHEMA).lookupType('pipecat.Frame');

/** A JSON text as the wire carries RTVI: a text frame, or a protobuf MessageFrame. */
function jsonFrame(codec: CodecName, json: string): string | Uint8Array {
  return codec === 'protobuf' ? FrameType.encode({ message: { data: json } }).finish() : json;
}

export function sendGarbage(connection: ServerConnection, seed: number): number {
  let n = 0;
  for (const frame of garbageFrames(seed)) if (connection.sendRaw(frame)) n++;
  return n;
}

export function sendMalformed(connection: ServerConnection, codec: CodecName): number {
  let n = 0;
  for (const json of MALFORMED_RTVI) if (connection.sendRaw(jsonFrame(codec, json))) n++;
  return n;
}

/** One frame of exactly `bytes` bytes (a valid `server-message`); returns its size. */
export function sendHugeFrame(connection: ServerConnection, bytes: number): number {
  const size = (message: Parameters<ServerConnection['send']>[0]): number => {
    const frame = connection.codec.encode({ kind: 'rtvi', message });
    return frame === null ? 0 : typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength;
  };
  const message = hugeMessage(bytes, size);
  const frame = connection.codec.encode({ kind: 'rtvi', message });
  if (frame === null || !connection.sendRaw(frame)) return 0;
  return typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength;
}

/**
 * `flood=N`: N messages a second, in bursts every 10 ms, alternating
 * `bot-audio-level` and `server-message` (valid RTVI no harness acts on).
 * A peer that stops reading does not grow the bot's memory: while more than
 * 8 MiB wait in the socket's buffer, bursts are skipped.
 */
export class Flood {
  private timer: NodeJS.Timeout | null = null;
  private sent = 0;
  private owed = 0;
  private lastMs: number;
  skipped = 0;

  constructor(
    private readonly connection: ServerConnection,
    private readonly perSecond: number,
    private readonly clock: Clock,
  ) {
    this.lastMs = clock.now();
    this.timer = setInterval(() => this.burst(), 10);
  }

  get count(): number {
    return this.sent;
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private burst(): void {
    if (!this.connection.isOpen) return this.stop();
    const now = this.clock.now();
    this.owed += ((now - this.lastMs) * this.perSecond) / 1000;
    this.lastMs = now;
    const n = Math.floor(this.owed);
    this.owed -= n;
    if (this.connection.bufferedAmount > 8 * 1024 * 1024) {
      this.skipped += n;
      return;
    }
    for (let i = 0; i < n; i++) {
      const seq = ++this.sent;
      this.connection.send(
        seq % 2
          ? { type: 'bot-audio-level', data: { value: (seq % 100) / 100 } }
          : { type: 'server-message', data: { flood: seq } },
      );
    }
  }
}
