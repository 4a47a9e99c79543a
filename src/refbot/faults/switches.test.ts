import { describe, expect, it } from 'vitest';
import { getCodec, parseServerMessage, type ServerMessageMessage } from '../../protocol/index.js';
import { describeFaults, FaultSpecError, garbageFrames, hugeMessage, MALFORMED_RTVI, parseFaults } from './switches.js';

describe('parseFaults: the repeatable --fault NAME[=ARG] flag', () => {
  it('reads every switch, with its argument where it takes one', () => {
    const faults = parseFaults([
      'refuse',
      'no-ready',
      'crash-after-turn=2',
      'hang-after-turn=0',
      'garbage',
      'malformed-rtvi',
      'huge-frame=10485760',
      'flood=5000',
      'slow=1500',
      'audio-burst',
      'disconnect-mid-audio',
    ]);
    expect(faults).toEqual({
      refuse: true,
      noReady: true,
      crashAfterTurn: 2,
      hangAfterTurn: 0,
      garbage: true,
      malformedRtvi: true,
      hugeFrameBytes: 10485760,
      floodPerSecond: 5000,
      slowMs: 1500,
      audioBurst: true,
      disconnectMidAudio: true,
    });
  });

  it('round-trips through describeFaults', () => {
    const specs = ['crash-after-turn=1', 'flood=200', 'slow=30', 'garbage'];
    expect(parseFaults(describeFaults(parseFaults(specs)))).toEqual(parseFaults(specs));
  });

  it.each([
    ['explode', /unknown fault "explode" \(known: refuse, no-ready/],
    ['crash-after-turn', /needs =N \(an integer >= 0\)/],
    ['crash-after-turn=-1', /expected an integer >= 0, got "-1"/],
    ['slow=0', /expected a positive integer, got "0"/],
    ['flood=fast', /expected a positive integer, got "fast"/],
    ['refuse=1', /refuse takes no argument/],
    ['huge-frame=99999999999', /at most/],
  ])('rejects %s with a located usage error', (spec, message) => {
    let err: unknown;
    try {
      parseFaults([spec]);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(FaultSpecError);
    expect((err as FaultSpecError).message).toMatch(message);
    expect((err as FaultSpecError).message.startsWith(`--fault ${spec}:`)).toBe(true);
    expect((err as FaultSpecError).exitCode).toBe(2);
  });
});

describe('fault payloads are deterministic and really broken', () => {
  it('garbage: the same seed gives the same frames; none of them parses as RTVI', () => {
    const a = garbageFrames(1001);
    expect(garbageFrames(1001)).toEqual(a);
    expect(garbageFrames(1002)).not.toEqual(a);
    expect(a.filter((f) => typeof f === 'string')).toHaveLength(3);
    expect(a.filter((f) => f instanceof Uint8Array)).toHaveLength(3);
    for (const frame of a) expect(parseServerMessage(frame).ok).toBe(false);
  });

  it('malformed-rtvi: every message is valid JSON that the RTVI parser rejects', () => {
    for (const text of MALFORMED_RTVI) {
      expect(() => JSON.parse(text) as unknown).not.toThrow();
      expect(parseServerMessage(text).ok, text).toBe(false);
    }
  });

  it.each(['pipecat-eval', 'protobuf'] as const)(
    'huge-frame: the %s frame is exactly the size asked for, and valid',
    (codec) => {
      const server = getCodec(codec).server();
      const client = getCodec(codec).client();
      const size = (m: ServerMessageMessage): number => {
        const f = server.encode({ kind: 'rtvi', message: m })!;
        return typeof f === 'string' ? Buffer.byteLength(f) : f.byteLength;
      };
      for (const bytes of [200, 16_384, 1_000_003]) {
        const message = hugeMessage(bytes, size);
        const frame = server.encode({ kind: 'rtvi', message })!;
        expect(typeof frame === 'string' ? Buffer.byteLength(frame) : frame.byteLength).toBe(bytes);
        expect(client.decode(frame).kind).toBe('rtvi');
      }
    },
  );
});
