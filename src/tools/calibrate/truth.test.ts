import { describe, expect, it } from 'vitest';
import { parseTruthLog, truthConnections, TruthLogError, type TruthLine } from './truth.js';

/** The bot's clock origin on the Unix-ms scale: its truth lines say `epoch_ms = ORIGIN + t_ms`. */
const ORIGIN = 1_764_540_000_000.25;

function line(event: string, t_ms: number, fields: Record<string, unknown> = {}): TruthLine {
  return { event, t_ms, epoch_ms: ORIGIN + t_ms, ...fields };
}

function jsonl(lines: TruthLine[]): string {
  return lines.map((l) => `${JSON.stringify(l)}\n`).join('');
}

describe('parseTruthLog', () => {
  it('reads one JSON object per line, skipping blank lines', () => {
    const text = `${jsonl([line('listening', 1, { url: 'ws://x' })])}\n${jsonl([line('connection_open', 5, { conn: 1 })])}`;
    expect(parseTruthLog(text, 'truth.jsonl').map((l) => l.event)).toEqual(['listening', 'connection_open']);
  });

  it('ignores a cut-off last line (a bot killed mid-write)', () => {
    const text = `${jsonl([line('connection_open', 5, { conn: 1 })])}{"event":"bot_rea`;
    expect(parseTruthLog(text, 'truth.jsonl')).toHaveLength(1);
  });

  it('names the file and line of a malformed line in the middle', () => {
    const text = `${jsonl([line('connection_open', 5, { conn: 1 })])}not json\n${jsonl([line('bot_ready', 9, { conn: 1 })])}`;
    expect(() => parseTruthLog(text, 'truth.jsonl')).toThrow(TruthLogError);
    expect(() => parseTruthLog(text, 'truth.jsonl')).toThrow('truth.jsonl:2: not a JSON object');
  });

  it('rejects a line without its times', () => {
    expect(() => parseTruthLog('{"event":"bot_ready","t_ms":3}\n', 'f')).toThrow(
      'f:1: a truth line needs `event`, `t_ms` and `epoch_ms`',
    );
  });
});

describe('truthConnections', () => {
  const log = [
    line('listening', 0),
    line('connection_open', 100, { conn: 1 }),
    line('bot_audio_started', 150, { conn: 1, reply: 1, turn: null, audible_ms: 148, voice_to_voice_ms: null }),
    line('user_speech_started', 2000, { conn: 1, turn: 1, voiced_start_ms: 1880.5, barge_in: false }),
    line('connection_open', 2100, { conn: 2 }),
    line('user_speech_stopped', 3000, { conn: 1, turn: 1, voiced_end_ms: 2400, received_ms: 2400 }),
    line('bot_audio_started', 4500, { conn: 1, reply: 2, turn: 1, audible_ms: 4490, voice_to_voice_ms: 2090 }),
    line('user_speech_started', 5600, { conn: 1, turn: 2, voiced_start_ms: 5500, barge_in: true }),
    line('bot_audio_stopped', 5610, {
      conn: 1,
      reply: 2,
      reason: 'barge_in',
      audible_end_ms: 5605,
      interruption_ms: 105,
    }),
    line('user_speech_stopped', 9000, { conn: 7, turn: 1, voiced_end_ms: 8000 }),
  ];

  it('groups lines by connection and maps bot times onto the Unix-ms scale', () => {
    const [c1, c2] = truthConnections(log);
    expect(c1.conn).toBe(1);
    expect(c1.openEpochMs).toBe(ORIGIN + 100);
    expect(c1.speechStarts).toEqual([
      { turn: 1, voicedEpochMs: ORIGIN + 1880.5, bargeIn: false, seq: 3 },
      { turn: 2, voicedEpochMs: ORIGIN + 5500, bargeIn: true, seq: 7 },
    ]);
    expect(c1.speechStops).toEqual([{ turn: 1, voicedEpochMs: ORIGIN + 2400, seq: 5 }]);
    expect(c1.stops).toEqual([
      {
        reply: 2,
        reason: 'barge_in',
        interruptionMs: 105,
        audibleEndEpochMs: ORIGIN + 5605,
        stoppedEpochMs: null,
        inPause: false,
        seq: 8,
      },
    ]);
    expect(c2).toMatchObject({ conn: 2, speechStops: [], replies: [] });
  });

  it('keeps only replies to speech (the greeting has no voice-to-voice)', () => {
    const [c1] = truthConnections(log);
    expect(c1.replies).toEqual([{ reply: 2, turn: 1, voiceToVoiceMs: 2090, audibleEpochMs: ORIGIN + 4490, seq: 6 }]);
  });

  it('leaves out lines of a connection that was never opened', () => {
    expect(truthConnections(log).map((c) => c.conn)).toEqual([1, 2]);
  });

  it('skips edges whose voiced time is unknown instead of trusting them', () => {
    const [c] = truthConnections([
      line('connection_open', 1, { conn: 1 }),
      line('user_speech_stopped', 50, { conn: 1, turn: 1, voiced_end_ms: null }),
    ]);
    expect(c.speechStops).toEqual([]);
  });
});
