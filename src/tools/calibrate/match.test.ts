import { describe, expect, it } from 'vitest';
import { matchRun, type ObservedRun, type ObservedTurnMetrics } from './match.js';
import { truthConnections, type TruthLine } from './truth.js';

/** The bot's clock origin on the Unix-ms scale, and earshot's session origin: 40 ms later. */
const BOT = 1_764_540_000_000;
const SESSION = BOT + 40;

function line(event: string, t_ms: number, fields: Record<string, unknown> = {}): TruthLine {
  return { event, t_ms, epoch_ms: BOT + t_ms, ...fields };
}

/** A bot-clock time as earshot's session clock sees the same instant. */
const onSession = (botMs: number): number => botMs - 40;

/** Connection 1: a question answered (bot voice-to-voice 2090 ms), then a barge-in over the answer (105 ms to stop). */
function oneConnection(conn = 1, shiftMs = 0): TruthLine[] {
  const t = (ms: number): number => ms + shiftMs;
  return [
    line('connection_open', t(100), { conn }),
    line('user_speech_started', t(1500), { conn, turn: 1, voiced_start_ms: t(1400), barge_in: false }),
    line('user_speech_stopped', t(3000), { conn, turn: 1, voiced_end_ms: t(2400) }),
    line('bot_audio_started', t(4500), { conn, reply: 2, turn: 1, audible_ms: t(4490), voice_to_voice_ms: 2090 }),
    line('user_speech_started', t(5600), { conn, turn: 2, voiced_start_ms: t(5500), barge_in: true }),
    line('bot_audio_stopped', t(5610), {
      conn,
      reply: 2,
      reason: 'barge_in',
      audible_end_ms: t(5605),
      interruption_ms: 105,
    }),
    line('user_speech_stopped', t(7000), { conn, turn: 2, voiced_end_ms: t(6500) }),
    line('bot_audio_started', t(8000), { conn, reply: 3, turn: 2, audible_ms: t(7900), voice_to_voice_ms: 1400 }),
  ];
}

function run(
  turns: Array<ObservedTurnMetrics | undefined>,
  window: [number, number] = [BOT, BOT + 20_000],
): ObservedRun {
  return {
    run: 1,
    sessionEpochMs: SESSION,
    fromEpochMs: window[0],
    toEpochMs: window[1],
    turns: turns.map((metrics, index) => ({ index, ...(metrics ? { metrics } : {}) })),
  };
}

/** earshot's view of the same conversation: its edges 0.8 ms early on the user side, 0.3 ms late on the bot side. */
const question: ObservedTurnMetrics = {
  user_speech_start_at_ms: onSession(1400) - 0.8,
  user_speech_end_at_ms: onSession(2400) - 0.8,
  bot_audio_onset_at_ms: onSession(4490) + 0.3,
  voice_to_voice_ms: 2091.1,
  interruption_ms: null,
  yielded: null,
};
const bargeIn: ObservedTurnMetrics = {
  user_speech_start_at_ms: onSession(5500) - 0.8,
  user_speech_end_at_ms: onSession(6500) - 0.8,
  bot_audio_onset_at_ms: onSession(7900) + 0.3,
  voice_to_voice_ms: 1401.1,
  interruption_ms: 106.1,
  yielded: true,
};

describe('matchRun', () => {
  it("pairs each measured turn with the bot's own figure; the error is measured − truth", () => {
    const m = matchRun(run([undefined, question, bargeIn]), truthConnections(oneConnection()));
    expect(m.conn).toBe(1);
    expect(m.samples.map((s) => [s.metric, s.turn_index, s.bot_turn, s.measured_ms, s.truth_ms, s.error_ms])).toEqual([
      ['voice_to_voice_ms', 1, 1, 2091.1, 2090, 1.1],
      ['voice_to_voice_ms', 2, 2, 1401.1, 1400, 1.1],
      ['interruption_ms', 2, 2, 106.1, 105, 1.1],
    ]);
    expect(m.samples.every((s) => s.note === undefined)).toBe(true);
  });

  it('says on which side of the wire the error arose (edge offsets on the shared clock)', () => {
    const [v2v, , interruption] = matchRun(
      run([undefined, question, bargeIn]),
      truthConnections(oneConnection()),
    ).samples;
    expect(v2v.user_edge_offset_ms).toBeCloseTo(-0.8, 6);
    expect(v2v.bot_edge_offset_ms).toBeCloseTo(0.3, 6);
    expect(interruption.user_edge_offset_ms).toBeCloseTo(-0.8, 6);
    // earshot's end of the interrupted audio: start + interruption = 5500 − 0.8 + 106.1 → 0.3 ms after the bot's 5605.
    expect(interruption.bot_edge_offset_ms).toBeCloseTo(0.3, 6);
  });

  it("takes the connection the bot opened while the run was going, not another run's", () => {
    const lines = [...oneConnection(1), ...oneConnection(2, 30_000)];
    const second: ObservedRun = {
      ...run([undefined, question]),
      sessionEpochMs: SESSION + 30_000,
      fromEpochMs: BOT + 29_000,
      toEpochMs: BOT + 40_000,
    };
    const m = matchRun(second, truthConnections(lines));
    expect(m.conn).toBe(2);
    expect(m.samples[0]).toMatchObject({ conn: 2, bot_turn: 1, error_ms: 1.1 });
  });

  it('pairs by time, not by order: an extra utterance the bot heard does not shift the pairs', () => {
    // The bot heard a cough at 1000 ms as turn 1 and answered it; the question became its turn 2.
    const lines = [
      line('connection_open', 100, { conn: 1 }),
      line('user_speech_stopped', 1200, { conn: 1, turn: 1, voiced_end_ms: 1000 }),
      line('bot_audio_started', 1900, { conn: 1, reply: 2, turn: 1, audible_ms: 1800, voice_to_voice_ms: 800 }),
      line('user_speech_stopped', 3000, { conn: 1, turn: 2, voiced_end_ms: 2400 }),
      line('bot_audio_started', 4500, { conn: 1, reply: 3, turn: 2, audible_ms: 4490, voice_to_voice_ms: 2090 }),
    ];
    const m = matchRun(run([undefined, question]), truthConnections(lines));
    expect(m.samples).toHaveLength(2);
    expect(m.samples[0]).toMatchObject({ turn_index: 1, bot_turn: 2, truth_ms: 2090, error_ms: 1.1 });
    expect(m.samples[1]).toMatchObject({
      turn_index: null,
      bot_turn: 1,
      measured_ms: null,
      truth_ms: 800,
      error_ms: null,
    });
    expect(m.samples[1].note).toContain('no earshot turn measured');
  });

  it('in the sentence-gap mode, pairs a barge-in only when the bot stopped in the pause the caller began in', () => {
    const inPause = (flag: boolean): TruthLine[] =>
      oneConnection().map((l) =>
        l.event === 'bot_audio_stopped' ? { ...l, audible_end_ms: 5300, stopped_ms: 5605, in_pause: flag } : l,
      );
    const pause = matchRun(run([undefined, question, bargeIn]), truthConnections(inPause(true)), {
      bargeInInPause: true,
    });
    const int = pause.samples.find((s) => s.metric === 'interruption_ms')!;
    expect(int).toMatchObject({ measured_ms: 106.1, truth_ms: 105, error_ms: 1.1 });
    // The bot edge is its stream's end, not the sentence's last audible sample 305 ms earlier.
    expect(int.bot_edge_offset_ms).toBeCloseTo(0.3, 6);
    const missed = matchRun(run([undefined, question, bargeIn]), truthConnections(inPause(false)), {
      bargeInInPause: true,
    });
    expect(missed.samples.find((s) => s.metric === 'interruption_ms')).toMatchObject({
      truth_ms: null,
      error_ms: null,
    });
    expect(missed.samples.find((s) => s.metric === 'interruption_ms')?.note).toContain(
      'did not start in a sentence pause',
    );
  });

  it('refuses a pair whose speech edges are further apart than the tolerance', () => {
    const late: ObservedTurnMetrics = { ...question, user_speech_end_at_ms: onSession(2400) + 400 };
    const m = matchRun(run([undefined, late]), truthConnections(oneConnection()), { toleranceMs: 300 });
    expect(m.samples[0]).toMatchObject({ turn_index: 1, measured_ms: 2091.1, truth_ms: null, error_ms: null });
    expect(m.samples[0].note).toBe("the bot logged no speech edge near earshot's");
    // What the bot did is then unaccounted for: each reply and the barge-in stop is a missing sample too.
    expect(m.samples.filter((s) => s.turn_index === null).map((s) => [s.metric, s.truth_ms])).toEqual([
      ['voice_to_voice_ms', 2090],
      ['voice_to_voice_ms', 1400],
      ['interruption_ms', 105],
    ]);
  });

  it('counts a barge-in earshot saw no end to (the bot never yielded, to earshot) as a missing measurement', () => {
    const unyielded: ObservedTurnMetrics = { ...bargeIn, interruption_ms: null, yielded: false };
    const m = matchRun(run([undefined, question, unyielded]), truthConnections(oneConnection()));
    const s = m.samples.find((x) => x.metric === 'interruption_ms')!;
    expect(s).toMatchObject({ measured_ms: null, truth_ms: 105, error_ms: null });
    expect(s.note).toBe('earshot measured no interruption latency for this turn');
  });

  it('counts a turn that spoke but got no reply in the truth as a missing truth', () => {
    const lines = oneConnection().filter((l) => !(l.event === 'bot_audio_started' && l.turn === 2));
    const s = matchRun(run([undefined, question, bargeIn]), truthConnections(lines)).samples.find(
      (x) => x.metric === 'voice_to_voice_ms' && x.turn_index === 2,
    )!;
    expect(s).toMatchObject({
      measured_ms: 1401.1,
      truth_ms: null,
      note: 'no bot reply to this speech in the truth log',
    });
  });

  it('reports every measurement as unpaired when no connection was opened during the run', () => {
    const m = matchRun(run([undefined, question], [BOT + 50_000, BOT + 60_000]), truthConnections(oneConnection()));
    expect(m.conn).toBeNull();
    expect(m.samples).toEqual([
      expect.objectContaining({
        measured_ms: 2091.1,
        truth_ms: null,
        note: 'no connection in the truth log was opened during this run',
      }),
    ]);
  });

  it('makes no sample of a turn without speech (the greeting, a text turn)', () => {
    const m = matchRun(
      run([{ voice_to_voice_ms: null, llm_ttfb_ms: null } as ObservedTurnMetrics]),
      truthConnections(oneConnection().slice(0, 1)),
    );
    expect(m.samples).toEqual([]);
  });
});
