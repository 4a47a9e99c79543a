import { describe, expect, it } from 'vitest';
import type { InboundItem } from './codec.js';
import { evalClientCodec, evalServerCodec } from './eval-codec.js';
import { audioFormatProblem, MAX_WIRE_CHANNELS, MAX_WIRE_SAMPLE_RATE, MIN_WIRE_SAMPLE_RATE } from './pcm.js';
import { protobufClientCodec, protobufServerCodec } from './protobuf-codec.js';

/**
 * A peer's sample rate and channel count become buffer sizes and resampling
 * ratios downstream, so audio claiming a format earshot cannot handle is a
 * protocol violation at the wire, on both codecs and in both directions.
 */
function kindOf<M>(item: InboundItem<M>): string {
  return item.kind === 'invalid' ? `invalid ${item.violation.code}: ${item.violation.reason}` : item.kind;
}

describe('audio formats on the wire', () => {
  it('accepts 1 kHz to 192 kHz and 1 to 32 channels; names the field and the bound otherwise', () => {
    expect(audioFormatProblem(16000, 1, 'x:')).toBeNull();
    expect(audioFormatProblem(MIN_WIRE_SAMPLE_RATE, 1, 'x:')).toBeNull();
    expect(audioFormatProblem(MAX_WIRE_SAMPLE_RATE, MAX_WIRE_CHANNELS, 'x:')).toBeNull();
    expect(audioFormatProblem(7, 1, 'eval-bot-audio:')).toBe(
      'eval-bot-audio: sample rate 7: expected an integer from 1000 to 192000 Hz',
    );
    expect(audioFormatProblem(192_001, 1, 'x:')).toMatch(/sample rate 192001/);
    expect(audioFormatProblem(16000, 33, 'x:')).toBe('x: channel count 33: expected 1 to 32');
    expect(audioFormatProblem(16000, 0, 'x:')).toMatch(/channel count 0/);
  });

  it('pipecat-eval: eval-bot-audio at 7 Hz is a bad_audio violation, not audio', () => {
    const frame = evalServerCodec().encode({ kind: 'audio', pcm: Int16Array.from([1, 2, 3, 4]), sampleRate: 7 });
    expect(kindOf(evalClientCodec().decode(frame!))).toBe(
      'invalid bad_audio: eval-bot-audio: sample rate 7: expected an integer from 1000 to 192000 Hz',
    );
    const good = evalServerCodec().encode({ kind: 'audio', pcm: Int16Array.from([1, 2]), sampleRate: 24000 });
    expect(kindOf(evalClientCodec().decode(good!))).toBe('audio');
  });

  it('pipecat-eval: a client’s raw-audio with 2^31 Hz or 1000 channels is refused by the bot side too', () => {
    const client = evalClientCodec();
    const fast = client.encode({ kind: 'audio', pcm: Int16Array.from([1, 2]), sampleRate: 2 ** 31 - 1 });
    expect(kindOf(evalServerCodec().decode(fast!))).toMatch(/^invalid bad_audio: raw-audio: sample rate 2147483647/);
    const wide = client.encode({ kind: 'audio', pcm: new Int16Array(1000), sampleRate: 16000, numChannels: 1000 });
    expect(kindOf(evalServerCodec().decode(wide!))).toBe(
      'invalid bad_audio: raw-audio: channel count 1000: expected 1 to 32',
    );
  });

  it('protobuf: an AudioRawFrame at 7 Hz is a bad_audio violation, not audio', () => {
    const frame = protobufServerCodec().encode({ kind: 'audio', pcm: Int16Array.from([1, 2]), sampleRate: 7 });
    expect(kindOf(protobufClientCodec().decode(frame!))).toBe(
      'invalid bad_audio: AudioRawFrame: sample rate 7: expected an integer from 1000 to 192000 Hz',
    );
    const good = protobufServerCodec().encode({ kind: 'audio', pcm: Int16Array.from([1, 2]), sampleRate: 16000 });
    expect(kindOf(protobufClientCodec().decode(good!))).toBe('audio');
  });
});
