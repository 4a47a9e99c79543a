import { describe, expect, it } from 'vitest';
import { TimelineError } from './errors.js';
import { TimelineBuilder } from './timeline.js';

describe('TimelineBuilder: windows and routing', () => {
  it('gives each turn the events whose time falls between its send and the next send', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 100, 'audio');
    b.markUserSpeech(150, 1400);
    b.addEvent('user_started_speaking', 400);
    b.addEvent('llm_started', 1700);
    b.addEvent('llm_text', 1900);
    b.addEvent('llm_text', 1950);
    b.beginTurn(1, 5000, 'text');
    b.addEvent('llm_started', 5300);
    b.end(9000);
    const [t0, t1] = b.takeCompleted();
    expect(t0).toMatchObject({
      index: 0,
      kind: 'audio',
      send_at_ms: 100,
      window_end_at_ms: 5000,
      user_speech_start_at_ms: 150,
      user_speech_end_at_ms: 1400,
      events: { user_started_speaking: [400], llm_started: [1700], llm_text: [1900, 1950] },
    });
    expect(t1).toMatchObject({
      index: 1,
      kind: 'text',
      send_at_ms: 5000,
      window_end_at_ms: 9000,
      events: { llm_started: [5300] },
    });
    expect(t1.user_speech_end_at_ms).toBeNull();
  });

  it('routes a late report by its time into the earlier turn while that turn has not settled', () => {
    const b = new TimelineBuilder({ settleMs: 2000 });
    b.beginTurn(0, 0, 'audio');
    b.beginTurn(1, 3000, 'audio');
    // The onset detector reports a sample-accurate time that lies in turn 0's window.
    b.addEvent('bot_audio_started', 2900);
    b.addEvent('bot_audio_stopped', 3500);
    b.end(6000);
    const [t0, t1] = b.takeCompleted();
    expect(t0.bot_audio).toEqual([{ onset_at_ms: 2900, offset_at_ms: 3500 }]);
    expect(t1.bot_audio).toEqual([]);
    // ...and the audio it carries into turn 1 is what turn 1's speech would interrupt.
    expect(t1.bot_audio_carried).toEqual({ onset_at_ms: 2900, offset_at_ms: 3500 });
  });

  it('keeps marks of one name sorted even when they arrive out of order', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.addEvent('bot_started_speaking', 300);
    b.addEvent('bot_started_speaking', 100);
    b.addEvent('bot_started_speaking', 200);
    b.end(1000);
    expect(b.takeCompleted()[0].events.bot_started_speaking).toEqual([100, 200, 300]);
  });

  it('widens the user speech span when a turn is marked more than once', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'dtmf');
    b.markUserSpeech(100, 200);
    b.markUserSpeech(300, 450);
    b.end(1000);
    expect(b.takeCompleted()[0]).toMatchObject({ user_speech_start_at_ms: 100, user_speech_end_at_ms: 450 });
  });

  it('does not keep events from before the first turn, and counts them', () => {
    const b = new TimelineBuilder();
    b.addEvent('bot_ready', 5);
    b.beginTurn(0, 10, 'text');
    b.end(20);
    expect(b.takeCompleted()[0].events).toEqual({});
    expect(b.unroutedReports).toBe(1);
  });
});

describe('TimelineBuilder: bot audio bursts', () => {
  it('carries audio still playing at a send into that turn (a greeting before turn 0 too)', () => {
    const b = new TimelineBuilder();
    b.addEvent('bot_audio_started', 50);
    b.beginTurn(0, 1000, 'audio');
    b.addEvent('bot_audio_stopped', 1800);
    b.end(3000);
    const [t0] = b.takeCompleted();
    expect(t0.bot_audio_carried).toEqual({ onset_at_ms: 50, offset_at_ms: 1800 });
    expect(t0.bot_audio).toEqual([]);
  });

  it('does not carry audio that stopped before the send', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'audio');
    b.addEvent('bot_audio_started', 100);
    b.addEvent('bot_audio_stopped', 900);
    b.beginTurn(1, 1000, 'audio');
    b.end(2000);
    expect(b.takeCompleted()[1].bot_audio_carried).toBeNull();
  });

  it('ignores a repeated start and a stop without a start', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.addEvent('bot_audio_stopped', 50);
    b.addEvent('bot_audio_started', 100);
    b.addEvent('bot_audio_started', 150);
    b.addEvent('bot_audio_stopped', 400);
    b.addEvent('bot_audio_stopped', 450);
    b.end(1000);
    expect(b.takeCompleted()[0].bot_audio).toEqual([{ onset_at_ms: 100, offset_at_ms: 400 }]);
  });

  it('leaves a burst open (offset null) when the session ends while the bot is still speaking', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.addEvent('bot_audio_started', 100);
    b.end(500);
    const [t0] = b.takeCompleted();
    expect(t0.bot_audio).toEqual([{ onset_at_ms: 100, offset_at_ms: null }]);
    expect(t0.closed_by_session_end).toBe(true);
  });

  it('past the burst cap, merges further bursts into the last one so the span stays right', () => {
    const b = new TimelineBuilder({ maxBurstsPerTurn: 2 });
    b.beginTurn(0, 0, 'text');
    for (let i = 0; i < 5; i++) {
      b.addEvent('bot_audio_started', 100 + i * 100);
      b.addEvent('bot_audio_stopped', 150 + i * 100);
    }
    b.end(1000);
    const [t0] = b.takeCompleted();
    expect(t0.bot_audio).toEqual([
      { onset_at_ms: 100, offset_at_ms: 150 },
      { onset_at_ms: 200, offset_at_ms: 550 },
    ]);
    expect(t0.dropped.bot_audio).toBe(3);
  });
});

describe('TimelineBuilder: completion and memory', () => {
  it('completes a turn only after its window closed, its audio stopped and settleMs passed', () => {
    const b = new TimelineBuilder({ settleMs: 1000 });
    b.beginTurn(0, 0, 'audio');
    b.addEvent('bot_audio_started', 500);
    b.beginTurn(1, 2000, 'audio');
    b.advance(5000);
    expect(b.takeCompleted()).toEqual([]); // turn 0's audio is still playing
    b.addEvent('bot_audio_stopped', 5100);
    const done = b.takeCompleted();
    expect(done.map((t) => t.index)).toEqual([0]);
    expect(done[0].closed_by_session_end).toBe(false);
    expect(b.liveTurns).toBe(1);
  });

  it('does not complete before settleMs has passed beyond the window', () => {
    const b = new TimelineBuilder({ settleMs: 1000 });
    b.beginTurn(0, 0, 'text');
    b.beginTurn(1, 2000, 'text');
    b.advance(2999);
    expect(b.takeCompleted()).toEqual([]);
    b.advance(3000);
    expect(b.takeCompleted().map((t) => t.index)).toEqual([0]);
  });

  it('caps the turns held waiting when the bot never stops talking', () => {
    const b = new TimelineBuilder({ maxPendingTurns: 3, settleMs: 0 });
    b.addEvent('bot_audio_started', 0);
    for (let i = 0; i < 10; i++) b.beginTurn(i, 1 + i * 1000, 'text');
    expect(b.liveTurns).toBe(3);
    expect(b.takeCompleted().map((t) => t.index)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });

  it('stays small over an hour-long call with a token flood', () => {
    const b = new TimelineBuilder({ settleMs: 2000 });
    let completed = 0;
    let maxLive = 0;
    let maxMarks = 0;
    for (let turn = 0; turn < 720; turn++) {
      const t0 = turn * 5000;
      b.beginTurn(turn, t0, 'audio');
      b.markUserSpeech(t0 + 100, t0 + 1500);
      b.addEvent('llm_started', t0 + 1900);
      for (let k = 0; k < 1000; k++) b.addEvent('llm_text', t0 + 2000 + k);
      b.addEvent('bot_audio_started', t0 + 2300);
      b.addEvent('bot_audio_stopped', t0 + 4200);
      b.addBotMetrics({ ttfb: [{ processor: 'LLM#0', value: 0.3 }] }, t0 + 2100);
      maxLive = Math.max(maxLive, b.liveTurns);
      for (const t of b.takeCompleted()) {
        completed++;
        maxMarks = Math.max(maxMarks, t.events.llm_text?.length ?? 0);
        expect(t.dropped.llm_text).toBe(1000 - 256);
      }
    }
    b.end(720 * 5000);
    completed += b.takeCompleted().length;
    expect(completed).toBe(720);
    expect(maxLive).toBeLessThanOrEqual(2);
    expect(maxMarks).toBe(256);
  });
});

describe('TimelineBuilder: the bot metrics of a turn', () => {
  it('keeps ttfb per service (first report, in ms), sums processing, usage and tokens', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'audio');
    b.addBotMetrics(
      {
        ttfb: [
          { processor: 'OpenAILLMService#0', model: 'gpt-4o', value: 0.412 },
          { processor: 'CartesiaTTSService#0', value: 0.1805 },
        ],
      },
      1000,
    );
    b.addBotMetrics({ ttfb: [{ processor: 'CartesiaTTSService#0', value: 0.25 }] }, 1500);
    b.addBotMetrics(
      {
        processing: [
          { processor: 'OpenAILLMService#0', value: 0.8 },
          { processor: 'OpenAILLMService#0', value: 0.35 },
        ],
      },
      1600,
    );
    b.addBotMetrics({ characters: [{ processor: 'CartesiaTTSService#0', value: 42 }] }, 1700);
    b.addBotMetrics(
      { ttfat: [{ processor: 'OpenAILLMService#0', ttfat: 0.5, ttfb: 0.412, thinking_time: 0.088 }] },
      1700,
    );
    b.addBotMetrics(
      { ttfa: [{ processor: 'CartesiaTTSService#0', ttfa: 0.2, ttfb: 0.18, leading_silence: 0.02 }] },
      1700,
    );
    b.addBotMetrics({ stt_usage: [{ processor: 'DeepgramSTTService#0', value: { audio_seconds: 1.25 } }] }, 1700);
    b.addBotMetrics({ tokens: [{ prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 }] }, 1800);
    b.addBotMetrics(
      { tokens: [{ prompt_tokens: 130, completion_tokens: 5, total_tokens: 135, reasoning_tokens: 3 }] },
      1900,
    );
    b.end(3000);
    const [t0] = b.takeCompleted();
    expect({ ...t0.bot_metrics }).toEqual({
      'OpenAILLMService#0': { model: 'gpt-4o', ttfb_ms: 412, processing_ms: 1150, ttfat_ms: 500, reports: 4 },
      'CartesiaTTSService#0': { ttfb_ms: 180.5, characters: 42, ttfa_ms: 200, reports: 4 },
      'DeepgramSTTService#0': { stt_audio_ms: 1250, reports: 1 },
    });
    expect(t0.bot_tokens).toEqual({
      prompt_tokens: 230,
      completion_tokens: 25,
      total_tokens: 255,
      reasoning_tokens: 3,
      reports: 2,
    });
  });

  it('skips entries the bot got wrong instead of trusting them', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.addBotMetrics(
      {
        ttfb: [
          { value: 0.2 },
          { processor: 'X', value: '0.3' },
          { processor: 'Y', value: Number.NaN },
          'junk',
          { processor: 'Z', value: 0.1 },
        ],
        processing: 'not a list',
        tokens: [{ prompt_tokens: 1 }],
        unknown_kind: [{ processor: 'Q', value: 1 }],
      },
      100,
    );
    b.end(200);
    const [t0] = b.takeCompleted();
    expect({ ...t0.bot_metrics }).toEqual({ Z: { ttfb_ms: 100, reports: 1 } });
    expect(t0.bot_tokens).toBeNull();
  });

  it('caps the services kept per turn and counts the rest', () => {
    const b = new TimelineBuilder({ maxServicesPerTurn: 2 });
    b.beginTurn(0, 0, 'text');
    b.addBotMetrics({ ttfb: ['A', 'B', 'C', 'D'].map((p) => ({ processor: p, value: 0.1 })) }, 10);
    b.end(20);
    const [t0] = b.takeCompleted();
    expect(Object.keys(t0.bot_metrics)).toEqual(['A', 'B']);
    expect(t0.dropped.bot_metrics).toBe(2);
  });

  it('is safe against a service named __proto__', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.addBotMetrics({ ttfb: [{ processor: '__proto__', value: 0.1 }] }, 10);
    b.end(20);
    const [t0] = b.takeCompleted();
    expect(Object.keys(t0.bot_metrics)).toEqual(['__proto__']);
    expect(JSON.parse(JSON.stringify(t0.bot_metrics))).toEqual(JSON.parse('{"__proto__":{"ttfb_ms":100,"reports":1}}'));
  });
});

describe('TimelineBuilder: misuse is an error, not a silent mistake', () => {
  it('rejects turn indices that do not increase and sends that go back in time', () => {
    const b = new TimelineBuilder();
    b.beginTurn(1, 100, 'text');
    expect(() => b.beginTurn(1, 200, 'text')).toThrow(TimelineError);
    expect(() => b.beginTurn(2, 50, 'text')).toThrow(/before turn 1's send/);
  });

  it('rejects non-finite times, reversed speech and speech before any turn', () => {
    const b = new TimelineBuilder();
    expect(() => b.markUserSpeech(0, 10)).toThrow(/call beginTurn first/);
    b.beginTurn(0, 0, 'audio');
    expect(() => b.addEvent('llm_started', Number.NaN)).toThrow(/finite/);
    expect(() => b.markUserSpeech(500, 400)).toThrow(/ends \(400 ms\) before it starts/);
  });

  it('refuses input after end()', () => {
    const b = new TimelineBuilder();
    b.beginTurn(0, 0, 'text');
    b.end(10);
    expect(() => b.addEvent('llm_started', 11)).toThrow(/already ended/);
    expect(() => b.beginTurn(1, 12, 'text')).toThrow(TimelineError);
  });
});
