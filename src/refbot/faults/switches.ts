/**
 * Fault switches: known misbehaviour the reference bot can be told to show, so
 * earshot's handling of broken bots (docs/architecture.md §10, docs/security.md
 * §1) is tested against a real process on a real socket. Every fault is
 * deterministic: the same conversation produces the same bytes at the same points.
 *
 * - `refuse`: answers every WebSocket upgrade with HTTP 503 and closes the socket: no connection ever opens
 * - `no-ready`: accepts the connection, reads everything, never sends `bot-ready` (nor anything else); `eval-cancel`
 *   still stops it
 * - `crash-after-turn=N`: answers N user turns; on turn N+1 it sends `bot-llm-started` and one `bot-llm-text`, then
 *   dies: every socket dropped without a close frame (1006), process exit code 70
 * - `hang-after-turn=N`: answers N user turns; from turn N+1 on it sends nothing at all and ignores everything
 *   (`eval-cancel` too), keeping the socket open
 * - `garbage`: after `bot-ready`, every reply (greeting included) is replaced by 3 non-JSON text frames and 3 random
 *   binary frames (what precedes a reply, e.g. `user-llm-text`, is sent as usual)
 * - `malformed-rtvi`: every reply is replaced by valid JSON of the wrong shapes and types (see MALFORMED_RTVI),
 *   likewise
 * - `huge-frame=BYTES`: right after `bot-ready`, one frame of exactly BYTES bytes (a valid `server-message`), then
 *   normal behaviour
 * - `flood=MSGS_PER_S`: from `bot-ready` on, a steady storm of valid, irrelevant RTVI messages (`bot-audio-level`,
 *   `server-message`) at that rate, besides normal behaviour
 * - `slow=MS`: every reply (greeting included) starts MS later: the pause before `bot-llm-started`
 * - `audio-burst`: the audio of every reply is 60 s long and sent at once, unpaced (always put on the wire, whatever
 *   the flags)
 * - `disconnect-mid-audio`: the first reply to a user turn closes the socket (1011) halfway: after 1 s of audio (or
 *   half of it, when shorter), or halfway through its text when it is not spoken
 *
 * "A user turn" is one answered input: a `send-text` that runs immediately, a
 * flushed DTMF entry, or an utterance whose transcription is not empty.
 */
import { UsageError } from '../../core/errors.js';
import type { ServerMessageMessage } from '../../protocol/index.js';
import { seededRandom } from '../../core/random.js';

export interface Faults {
  refuse?: boolean;
  noReady?: boolean;
  crashAfterTurn?: number;
  hangAfterTurn?: number;
  garbage?: boolean;
  malformedRtvi?: boolean;
  hugeFrameBytes?: number;
  floodPerSecond?: number;
  slowMs?: number;
  audioBurst?: boolean;
  disconnectMidAudio?: boolean;
}

export const FAULT_NAMES = [
  'refuse',
  'no-ready',
  'crash-after-turn',
  'hang-after-turn',
  'garbage',
  'malformed-rtvi',
  'huge-frame',
  'flood',
  'slow',
  'audio-burst',
  'disconnect-mid-audio',
] as const;
export type FaultName = (typeof FAULT_NAMES)[number];

/** A `--fault` value the bot cannot use; names the switch and what was expected. */
export class FaultSpecError extends UsageError {
  readonly spec: string;
  constructor(spec: string, detail: string) {
    super(`--fault ${spec}: ${detail}`);
    this.name = 'FaultSpecError';
    this.spec = spec;
  }
}

/** The process exit code of a crash fault (EX_SOFTWARE), distinct from usage (2) and plain errors (1). */
export const CRASH_EXIT_CODE = 70;
/** A minute of audio for `audio-burst`. */
export const AUDIO_BURST_MS = 60_000;
const MAX_HUGE_FRAME_BYTES = 1 << 30;
const MAX_FLOOD_PER_SECOND = 1_000_000;

type ArgKind = 'none' | 'count' | 'positive';
const ARGS: Record<FaultName, ArgKind> = {
  refuse: 'none',
  'no-ready': 'none',
  'crash-after-turn': 'count',
  'hang-after-turn': 'count',
  garbage: 'none',
  'malformed-rtvi': 'none',
  'huge-frame': 'positive',
  flood: 'positive',
  slow: 'positive',
  'audio-burst': 'none',
  'disconnect-mid-audio': 'none',
};

/** `NAME[=ARG]` strings (the repeatable `--fault` flag) → Faults; a FaultSpecError for anything else. */
export function parseFaults(specs: readonly string[]): Faults {
  const faults: Faults = {};
  for (const spec of specs) {
    const eq = spec.indexOf('=');
    const name = (eq < 0 ? spec : spec.slice(0, eq)).trim();
    const arg = eq < 0 ? undefined : spec.slice(eq + 1).trim();
    if (!(FAULT_NAMES as readonly string[]).includes(name)) {
      throw new FaultSpecError(spec, `unknown fault "${name}" (known: ${FAULT_NAMES.join(', ')})`);
    }
    const fault = name as FaultName;
    const value = readArg(spec, fault, arg);
    switch (fault) {
      case 'refuse':
        faults.refuse = true;
        break;
      case 'no-ready':
        faults.noReady = true;
        break;
      case 'crash-after-turn':
        faults.crashAfterTurn = value;
        break;
      case 'hang-after-turn':
        faults.hangAfterTurn = value;
        break;
      case 'garbage':
        faults.garbage = true;
        break;
      case 'malformed-rtvi':
        faults.malformedRtvi = true;
        break;
      case 'huge-frame':
        if (value! > MAX_HUGE_FRAME_BYTES) throw new FaultSpecError(spec, `at most ${MAX_HUGE_FRAME_BYTES} bytes`);
        faults.hugeFrameBytes = value;
        break;
      case 'flood':
        if (value! > MAX_FLOOD_PER_SECOND)
          throw new FaultSpecError(spec, `at most ${MAX_FLOOD_PER_SECOND} messages per second`);
        faults.floodPerSecond = value;
        break;
      case 'slow':
        faults.slowMs = value;
        break;
      case 'audio-burst':
        faults.audioBurst = true;
        break;
      case 'disconnect-mid-audio':
        faults.disconnectMidAudio = true;
        break;
    }
  }
  return faults;
}

function readArg(spec: string, fault: FaultName, arg: string | undefined): number | undefined {
  const kind = ARGS[fault];
  if (kind === 'none') {
    if (arg !== undefined) throw new FaultSpecError(spec, `${fault} takes no argument`);
    return undefined;
  }
  const what = kind === 'count' ? 'an integer >= 0' : 'a positive integer';
  if (arg === undefined || arg === '') throw new FaultSpecError(spec, `${fault} needs =N (${what})`);
  const n = Number(arg);
  if (!Number.isInteger(n) || n < 0 || (kind === 'positive' && n === 0))
    throw new FaultSpecError(spec, `expected ${what}, got "${arg}"`);
  return n;
}

/** The switches as `--fault` strings again (for logs and the truth log). */
export function describeFaults(faults: Faults): string[] {
  const out: string[] = [];
  if (faults.refuse) out.push('refuse');
  if (faults.noReady) out.push('no-ready');
  if (faults.crashAfterTurn !== undefined) out.push(`crash-after-turn=${faults.crashAfterTurn}`);
  if (faults.hangAfterTurn !== undefined) out.push(`hang-after-turn=${faults.hangAfterTurn}`);
  if (faults.garbage) out.push('garbage');
  if (faults.malformedRtvi) out.push('malformed-rtvi');
  if (faults.hugeFrameBytes !== undefined) out.push(`huge-frame=${faults.hugeFrameBytes}`);
  if (faults.floodPerSecond !== undefined) out.push(`flood=${faults.floodPerSecond}`);
  if (faults.slowMs !== undefined) out.push(`slow=${faults.slowMs}`);
  if (faults.audioBurst) out.push('audio-burst');
  if (faults.disconnectMidAudio) out.push('disconnect-mid-audio');
  return out;
}

/**
 * Valid JSON, wrong RTVI: a wrong label, a non-string type, missing or
 * mistyped `data`, the right type with the wrong field types, and JSON that is
 * not an object at all. Sent in this order, in place of a reply.
 */
export const MALFORMED_RTVI: readonly string[] = [
  JSON.stringify({ label: 'rtvi-ai', type: 'bot-llm-text', data: { text: 42 } }),
  JSON.stringify({ label: 'rtvi-ai', type: 'bot-llm-text' }),
  JSON.stringify({ label: 'not-rtvi', type: 'bot-llm-started' }),
  JSON.stringify({ label: 'rtvi-ai', type: 7, data: {} }),
  JSON.stringify({ label: 'rtvi-ai', type: 'user-transcription', data: { text: 'hello', final: 'yes' } }),
  JSON.stringify({
    label: 'rtvi-ai',
    type: 'llm-function-call-in-progress',
    data: { tool_call_id: 12, arguments: 'city' },
  }),
  JSON.stringify({ label: 'rtvi-ai', type: 'bot-ready', data: 'ready' }),
  JSON.stringify({ label: 'rtvi-ai', type: 'metrics', data: [1, 2, 3] }),
  JSON.stringify([1, 2, 3]),
  JSON.stringify('bot-llm-stopped'),
  'null',
];

/** Text frames that are not JSON at all. */
const GARBAGE_TEXT: readonly string[] = [
  '}{ this is not json',
  '\u0000\u0001\u0002 garbage \ufffd',
  '{"label": "rtvi-ai", "type": "bot-llm-te',
];

/** The frames of one `garbage` reply: 3 non-JSON text frames, then 3 binary frames of 16–256 seeded random bytes. */
export function garbageFrames(seed: number): Array<string | Uint8Array> {
  const random = seededRandom(seed);
  const frames: Array<string | Uint8Array> = [...GARBAGE_TEXT];
  for (let i = 0; i < 3; i++) {
    const bytes = new Uint8Array(16 + Math.floor(random() * 241));
    for (let j = 0; j < bytes.length; j++) bytes[j] = Math.floor(random() * 256);
    frames.push(bytes);
  }
  return frames;
}

/**
 * The `server-message` of `huge-frame`, padded so that the frame `encode`
 * makes of it is exactly `bytes` long (or, where no pad length hits it, the
 * smallest frame longer than `bytes`). Codec-independent: the JSON text frame
 * of pipecat-eval and the protobuf MessageFrame differ only in overhead.
 */
export function hugeMessage(bytes: number, encode: (message: ServerMessageMessage) => number): ServerMessageMessage {
  const make = (pad: number): ServerMessageMessage => ({
    type: 'server-message',
    data: { fault: 'huge-frame', pad: 'x'.repeat(pad) },
  });
  let pad = Math.max(0, bytes - encode(make(0)));
  // Length prefixes grow at varint boundaries; a few corrections settle it.
  for (let i = 0; i < 4; i++) {
    const size = encode(make(pad));
    if (size === bytes || pad === 0) break;
    pad = Math.max(0, pad + (bytes - size));
  }
  return make(pad);
}
