/**
 * `protobuf`: Pipecat's standard WebSocket transport with its protobuf frame
 * serializer (what `@pipecat-ai/websocket-transport` speaks). Binary frames of
 * `pipecat.Frame`; audio as `AudioRawFrame` (16-bit LE PCM bytes), RTVI JSON as
 * the `data` string of a `MessageFrame`. A text frame, or bytes that are not a
 * Frame with one member set, is a violation.
 *
 * The schema is Pipecat's `frames.proto`, declared here through protobufjs
 * reflection (no .proto file, no code generation).
 */
import { createRequire } from 'node:module';
import type { Type } from 'protobufjs/light.js';
import type { ClientCodec, InboundItem, OutboundItem, ServerCodec, WirePayload } from './codec.js';
import { rtviJson } from './json-envelope.js';
import { type ClientInbound, parseClientMessage, parseServerMessage, type ServerInbound } from './parse.js';
import { audioFormatProblem, pcmFromBytes, pcmToBytes } from './pcm.js';
import type { ParseResult } from './violation.js';
import { violation } from './violation.js';

const idName = { id: { type: 'uint64', id: 1 }, name: { type: 'string', id: 2 } };

/** Pipecat's `frames.proto` (package `pipecat`), field numbers included. */
export const PIPECAT_FRAMES_SCHEMA = {
  nested: {
    pipecat: {
      nested: {
        TextFrame: { fields: { ...idName, text: { type: 'string', id: 3 } } },
        AudioRawFrame: {
          oneofs: { _pts: { oneof: ['pts'] } },
          fields: {
            ...idName,
            audio: { type: 'bytes', id: 3 },
            sample_rate: { type: 'uint32', id: 4 },
            num_channels: { type: 'uint32', id: 5 },
            pts: { type: 'uint64', id: 6, options: { proto3_optional: true } },
          },
        },
        TranscriptionFrame: {
          fields: {
            ...idName,
            text: { type: 'string', id: 3 },
            user_id: { type: 'string', id: 4 },
            timestamp: { type: 'string', id: 5 },
          },
        },
        MessageFrame: { fields: { data: { type: 'string', id: 1 } } },
        InterruptionFrame: { fields: { ...idName } },
        Frame: {
          oneofs: { frame: { oneof: ['text', 'audio', 'transcription', 'message', 'interruption'] } },
          fields: {
            text: { type: 'TextFrame', id: 1 },
            audio: { type: 'AudioRawFrame', id: 2 },
            transcription: { type: 'TranscriptionFrame', id: 3 },
            message: { type: 'MessageFrame', id: 4 },
            interruption: { type: 'InterruptionFrame', id: 5 },
          },
        },
      },
    },
  },
};

// protobufjs is required on first use, not at import: every process that speaks only
// pipecat-eval (most reference bots a suite spawns) would otherwise pay for loading it.
const requireCjs = createRequire(import.meta.url);
let frameType: Type | null = null;
function pipecatFrame(): Type {
  if (frameType === null) {
    const protobuf = requireCjs('protobufjs/light.js') as typeof import('protobufjs/light.js');
    frameType = protobuf.Root.fromJSON(PIPECAT_FRAMES_SCHEMA).lookupType('pipecat.Frame');
  }
  return frameType;
}

/** The decoded shape (`toObject` with longs as numbers and the oneof's name in `frame`). */
interface FrameObject {
  frame?: 'text' | 'audio' | 'transcription' | 'message' | 'interruption';
  text?: { text?: string };
  audio?: { audio?: Uint8Array; sample_rate?: number; num_channels?: number; pts?: number };
  transcription?: { text?: string; user_id?: string; timestamp?: string };
  message?: { data?: string };
  interruption?: Record<string, never>;
}

/**
 * Proto3 writes no zero values, and neither does Pipecat (it sets only truthy
 * fields), so the encoder leaves them out too: the bytes match Pipecat's.
 */
function encodeFrame<M extends { type: string; id?: string; data?: unknown }>(item: OutboundItem<M>): Uint8Array {
  let body: Record<string, unknown>;
  switch (item.kind) {
    case 'rtvi':
      body = { message: { data: rtviJson(item.message) } };
      break;
    case 'audio': {
      const audio: Record<string, unknown> = { sample_rate: item.sampleRate, num_channels: item.numChannels ?? 1 };
      if (item.pcm.length > 0) audio.audio = pcmToBytes(item.pcm);
      if (item.pts !== undefined) audio.pts = item.pts;
      body = { audio };
      break;
    }
    case 'text':
      body = { text: item.text ? { text: item.text } : {} };
      break;
    case 'transcription': {
      const t: Record<string, string> = {};
      if (item.text) t.text = item.text;
      if (item.userId) t.user_id = item.userId;
      if (item.timestamp) t.timestamp = item.timestamp;
      body = { transcription: t };
      break;
    }
    case 'interruption':
      body = { interruption: {} };
      break;
  }
  return pipecatFrame().encode(body).finish();
}

function decodeFrame<M>(frame: WirePayload, parse: (json: string) => ParseResult<M>): InboundItem<M> {
  if (typeof frame === 'string') {
    const reason =
      `text frame (${frame.length} chars) ` +
      'on the protobuf codec, ' +
      'which carries binary pipecat.Frame messages only';
    return { kind: 'invalid', violation: violation('wrong_frame_type', reason, frame) };
  }
  let obj: FrameObject;
  try {
    const type = pipecatFrame();
    obj = type.toObject(type.decode(frame), { longs: Number, oneofs: true }) as FrameObject;
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return { kind: 'invalid', violation: violation('bad_protobuf', `not a pipecat.Frame: ${why}`, frame) };
  }
  switch (obj.frame) {
    case 'audio': {
      const a = obj.audio ?? {};
      const sampleRate = a.sample_rate ?? 0;
      const numChannels = a.num_channels || 1; // absent (0) on the wire means mono
      const pcm = pcmFromBytes(a.audio ?? new Uint8Array(0));
      const bad = (reason: string): InboundItem<M> => ({
        kind: 'invalid',
        violation: violation('bad_audio', reason, frame),
      });
      if (sampleRate <= 0) return bad('AudioRawFrame.sample_rate: missing');
      const format = audioFormatProblem(sampleRate, numChannels, 'AudioRawFrame:');
      if (format) return bad(format);
      if (!pcm) return bad(`AudioRawFrame.audio: ${a.audio?.byteLength} bytes is not a whole number of 16-bit samples`);
      if (pcm.length % numChannels !== 0)
        return bad(`AudioRawFrame: ${pcm.length} samples do not divide into ${numChannels} channels`);
      return a.pts === undefined
        ? { kind: 'audio', pcm, sampleRate, numChannels }
        : { kind: 'audio', pcm, sampleRate, numChannels, pts: a.pts };
    }
    case 'message': {
      const parsed = parse(obj.message?.data ?? '');
      return parsed.ok ? { kind: 'rtvi', message: parsed.message } : { kind: 'invalid', violation: parsed.violation };
    }
    case 'text':
      return { kind: 'text', text: obj.text?.text ?? '' };
    case 'transcription': {
      const t = obj.transcription ?? {};
      return { kind: 'transcription', text: t.text ?? '', userId: t.user_id ?? '', timestamp: t.timestamp ?? '' };
    }
    case 'interruption':
      return { kind: 'interruption' };
    default:
      return { kind: 'invalid', violation: violation('bad_protobuf', 'pipecat.Frame with no frame member set', frame) };
  }
}

export function protobufClientCodec(): ClientCodec {
  return {
    name: 'protobuf',
    role: 'client',
    encode: (item) => encodeFrame(item),
    decode: (frame): InboundItem<ServerInbound> => decodeFrame(frame, parseServerMessage),
  };
}

export function protobufServerCodec(): ServerCodec {
  return {
    name: 'protobuf',
    role: 'server',
    encode: (item) => encodeFrame(item),
    decode: (frame): InboundItem<ClientInbound> => decodeFrame(frame, parseClientMessage),
  };
}
