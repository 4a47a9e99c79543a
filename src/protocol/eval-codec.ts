/**
 * `pipecat-eval`: Pipecat's eval transport (`bot.py -t eval`). One RTVI JSON
 * message per text frame, both ways. Microphone audio goes up as `raw-audio`
 * messages; captured bot audio comes down as `eval-bot-audio` (only when the
 * connect URL asked for `capture_bot_audio=true`). There are no text,
 * transcription or interruption frames on this wire, and a binary frame is a
 * violation.
 */
import type { ClientCodec, InboundItem, OutboundItem, ServerCodec, WirePayload } from './codec.js';
import { base64Pcm, botAudioFromMessage, micAudioFromMessage, rtviJson } from './json-envelope.js';
import { type ClientInbound, parseClientMessage, parseServerMessage, type ServerInbound } from './parse.js';
import type { ClientMessage, ServerMessage } from './rtvi.js';
import { violation } from './violation.js';

function binaryViolation(frame: Uint8Array): { kind: 'invalid'; violation: ReturnType<typeof violation> } {
  return {
    kind: 'invalid',
    violation: violation(
      'wrong_frame_type',
      `binary frame (${frame.byteLength} bytes) on the pipecat-eval codec, which carries JSON text frames only`,
      frame,
    ),
  };
}

/** Harness side. `sendAudio` ids come from the codec's own counter (`mic-1`, `mic-2`, ...). */
export function evalClientCodec(): ClientCodec {
  let audioIds = 0;
  return {
    name: 'pipecat-eval',
    role: 'client',
    encode(item: OutboundItem<ClientMessage>): WirePayload | null {
      switch (item.kind) {
        case 'rtvi':
          return rtviJson(item.message);
        case 'audio':
          return rtviJson({
            type: 'raw-audio',
            id: `mic-${++audioIds}`,
            data: { base64Audio: base64Pcm(item.pcm), sampleRate: item.sampleRate, numChannels: item.numChannels ?? 1 },
          });
        default:
          return null;
      }
    },
    decode(frame: WirePayload): InboundItem<ServerInbound> {
      if (typeof frame !== 'string') return binaryViolation(frame);
      const parsed = parseServerMessage(frame);
      if (!parsed.ok) return { kind: 'invalid', violation: parsed.violation };
      return botAudioFromMessage(parsed.message, frame);
    },
  };
}

/** Reference-bot side. Bot audio is sent as `eval-bot-audio`, which carries no channel count: mono only. */
export function evalServerCodec(): ServerCodec {
  return {
    name: 'pipecat-eval',
    role: 'server',
    encode(item: OutboundItem<ServerMessage>): WirePayload | null {
      switch (item.kind) {
        case 'rtvi':
          return rtviJson(item.message);
        case 'audio':
          if ((item.numChannels ?? 1) !== 1) return null;
          return rtviJson({
            type: 'eval-bot-audio',
            data: { audio: base64Pcm(item.pcm), sampleRate: item.sampleRate },
          });
        default:
          return null;
      }
    },
    decode(frame: WirePayload): InboundItem<ClientInbound> {
      if (typeof frame !== 'string') return binaryViolation(frame);
      const parsed = parseClientMessage(frame);
      if (!parsed.ok) return { kind: 'invalid', violation: parsed.violation };
      return micAudioFromMessage(parsed.message, frame);
    },
  };
}
