/**
 * RTVI messages as JSON text, and the RTVI audio messages as samples. Shared by
 * both codecs: `pipecat-eval` sends this text as a frame, `protobuf` wraps it
 * in a MessageFrame.
 */
import type { AudioItem, InboundItem } from './codec.js';
import type { ClientInbound, ServerInbound } from './parse.js';
import { audioFormatProblem, encodeBase64, pcmFromBase64, pcmToBytes } from './pcm.js';
import { RTVI_LABEL } from './rtvi.js';
import { type ProtocolViolation, violation } from './violation.js';

/** `{label, type, id?, data?}` in that order; fields that are undefined are left out. */
export function rtviJson(message: { type: string; id?: string; data?: unknown }): string {
  const wire: Record<string, unknown> = { label: RTVI_LABEL, type: message.type };
  if (message.id !== undefined) wire.id = message.id;
  if (message.data !== undefined) wire.data = message.data;
  return JSON.stringify(wire);
}

function audioOrViolation(
  pcm: Int16Array | string,
  sampleRate: number,
  numChannels: number,
  raw: unknown,
  path: string,
): AudioItem | { kind: 'invalid'; violation: ProtocolViolation } {
  if (typeof pcm === 'string') return { kind: 'invalid', violation: violation('bad_audio', pcm, raw) };
  const format = audioFormatProblem(sampleRate, numChannels, path);
  if (format) return { kind: 'invalid', violation: violation('bad_audio', format, raw) };
  if (pcm.length % numChannels !== 0) {
    const reason = `${pcm.length} samples do not divide into ${numChannels} channels`;
    return { kind: 'invalid', violation: violation('bad_audio', reason, raw) };
  }
  return { kind: 'audio', pcm, sampleRate, numChannels };
}

/**
 * Client role: `eval-bot-audio` (the eval transport's captured bot audio)
 * becomes an audio item, so bot audio looks the same on both codecs.
 */
export function botAudioFromMessage(message: ServerInbound, raw: unknown): InboundItem<ServerInbound> {
  if (message.type !== 'eval-bot-audio') return { kind: 'rtvi', message };
  return audioOrViolation(
    pcmFromBase64(message.data.audio, 'eval-bot-audio: data.audio'),
    message.data.sampleRate,
    1,
    raw,
    'eval-bot-audio:',
  );
}

/** Server role: `raw-audio` / `raw-audio-batch` become one audio item (a batch is concatenated). */
export function micAudioFromMessage(message: ClientInbound, raw: unknown): InboundItem<ClientInbound> {
  if (message.type === 'raw-audio') {
    const { base64Audio, sampleRate, numChannels } = message.data;
    return audioOrViolation(
      pcmFromBase64(base64Audio, 'raw-audio: data.base64Audio'),
      sampleRate,
      numChannels,
      raw,
      'raw-audio:',
    );
  }
  if (message.type === 'raw-audio-batch') {
    const { base64AudioBatch, sampleRate, numChannels } = message.data;
    const parts: Int16Array[] = [];
    for (let i = 0; i < base64AudioBatch.length; i++) {
      const part = pcmFromBase64(base64AudioBatch[i], `raw-audio-batch: data.base64AudioBatch[${i}]`);
      if (typeof part === 'string') return audioOrViolation(part, sampleRate, numChannels, raw, 'raw-audio-batch:');
      parts.push(part);
    }
    const pcm = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
    let offset = 0;
    for (const p of parts) {
      pcm.set(p, offset);
      offset += p.length;
    }
    return audioOrViolation(pcm, sampleRate, numChannels, raw, 'raw-audio-batch:');
  }
  return { kind: 'rtvi', message };
}

export function base64Pcm(pcm: Int16Array): string {
  return encodeBase64(pcmToBytes(pcm));
}
