import { describe, expect, it } from 'vitest';
import { deriveTurnMetrics, type DerivedTurnMetrics, type DeriveOptions } from './derive.js';
import { TimelineBuilder } from './timeline.js';
import type { TurnTimeline } from './timeline-types.js';

/** Feeds a script of session calls to a real builder and derives every completed turn. */
function derive(feed: (b: TimelineBuilder) => void, endAtMs: number, options?: DeriveOptions): DerivedTurnMetrics[] {
  const b = new TimelineBuilder();
  feed(b);
  b.end(endAtMs);
  return b.takeCompleted().map((t) => deriveTurnMetrics(t, options));
}

const audioOn = (b: TimelineBuilder, from: number, to: number | null): void => {
  b.addEvent('bot_audio_started', from);
  if (to !== null) b.addEvent('bot_audio_stopped', to);
};

describe('deriveTurnMetrics: a spoken turn', () => {
  const [turn] = derive((b) => {
    b.beginTurn(0, 1000, 'audio');
    b.markUserSpeech(1120, 2600);
    b.addEvent('user_stopped_speaking', 2900);
    b.addEvent('llm_started', 3050);
    b.addEvent('llm_text', 3320);
    b.addEvent('llm_text', 3330);
    b.addEvent('bot_started_speaking', 3500);
    audioOn(b, 3540, 4800);
    audioOn(b, 5100, 6200);
    b.addEvent('bot_stopped_speaking', 6550);
  }, 9000);

  it('measures voice-to-voice from the last voiced user sample to the first audible bot sample', () => {
    expect(turn.metrics.voice_to_voice_ms).toBe(940);
  });

  it('measures the LLM start and its first text chunk from the end of user speech', () => {
    expect(turn.metrics.llm_ttfb_ms).toBe(450);
    expect(turn.metrics.first_token_ms).toBe(720);
  });

  it("measures speech padding from the bot's bot_started_speaking report to the audible onset", () => {
    expect(turn.metrics.speech_padding_ms).toBe(40);
  });

  it("spans the bot's speech from the first onset to the last offset, pauses included", () => {
    expect(turn.metrics.bot_speech_ms).toBe(2660);
    expect(turn.metrics).toMatchObject({
      user_speech_start_at_ms: 1120,
      user_speech_end_at_ms: 2600,
      bot_audio_onset_at_ms: 3540,
      bot_audio_offset_at_ms: 6200,
    });
  });

  it('reports no barge-in metrics and no talk-over for a turn spoken into silence', () => {
    expect(turn.metrics).toMatchObject({ interruption_ms: null, yielded: null, talk_over_ms: 0 });
    expect(turn.unmeasured).toEqual({
      interruption_ms: "not a barge-in: no bot audio was playing when the user's speech started",
    });
    expect(turn.notes).toEqual([]);
  });
});

describe('deriveTurnMetrics: edge cases of the bot audio', () => {
  it('gives a negative speech padding when the audio is heard before the report arrives', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      b.addEvent('bot_started_speaking', 400); // a stale report from before the user spoke is ignored
      audioOn(b, 1500, 2000);
      b.addEvent('bot_started_speaking', 1530);
    }, 3000);
    expect(t.metrics.speech_padding_ms).toBe(-30);
  });

  it('pairs the onset with the nearest bot_started_speaking report when the bot reports several', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      b.addEvent('bot_started_speaking', 1450);
      audioOn(b, 1500, 2000);
      b.addEvent('bot_started_speaking', 2600);
      audioOn(b, 2620, 3000);
    }, 4000);
    expect(t.metrics.speech_padding_ms).toBe(50);
  });

  it('does not turn a bot that talks over the end of the user speech into a negative voice-to-voice', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 2000);
      audioOn(b, 1650, 2900);
      audioOn(b, 3200, 3600);
    }, 5000);
    expect(t.metrics.voice_to_voice_ms).toBeNull();
    expect(t.unmeasured.voice_to_voice_ms).toBe(
      "the bot's audio began 350 ms before the end of the user's speech and was still playing when it ended (the bot talked over the user)",
    );
    expect(t.metrics.talk_over_ms).toBe(350);
    expect(t.notes).toEqual([
      "the bot's audio began during the user's speech: 350 ms of overlap (the bot talked over the user)",
    ]);
    // The reply still has an onset and a length: it began under the user's speech.
    expect(t.metrics.bot_audio_onset_at_ms).toBe(1650);
    expect(t.metrics.bot_speech_ms).toBe(1950);
  });

  it('measures the reply after a short blip of bot audio during the user speech, and reports the blip', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 2000);
      audioOn(b, 900, 1100);
      audioOn(b, 2700, 3500);
    }, 5000);
    expect(t.metrics.voice_to_voice_ms).toBe(700);
    expect(t.metrics.talk_over_ms).toBe(200);
    expect(t.notes).toHaveLength(1);
    expect(t.metrics.bot_speech_ms).toBe(800);
  });

  it('does not count bot audio that ended before the user started speaking as talking over', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      audioOn(b, 20, 90);
      b.markUserSpeech(100, 1000);
      audioOn(b, 1400, 2000);
    }, 3000);
    expect(t.metrics).toMatchObject({
      talk_over_ms: 0,
      voice_to_voice_ms: 400,
      interruption_ms: null,
      bot_speech_ms: 600,
    });
    expect(t.notes).toEqual([]);
  });

  it('leaves the audio metrics null, with reasons, when the bot never spoke', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      b.addEvent('llm_started', 1300);
      b.addEvent('llm_text', 1500);
    }, 4000);
    expect(t.metrics).toMatchObject({
      voice_to_voice_ms: null,
      speech_padding_ms: null,
      bot_speech_ms: null,
      bot_audio_onset_at_ms: null,
      bot_audio_offset_at_ms: null,
      llm_ttfb_ms: 300,
      first_token_ms: 500,
    });
    expect(t.unmeasured).toMatchObject({
      voice_to_voice_ms: "no bot audio onset after the end of the user's speech in the turn",
      speech_padding_ms: 'no bot audio onset in the turn to pair with a bot_started_speaking report',
      bot_speech_ms: 'no bot audio in the turn',
    });
  });

  it("leaves bot_speech_ms null while the bot's last burst is still playing at the end", () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      audioOn(b, 1800, null);
    }, 4000);
    expect(t.metrics.voice_to_voice_ms).toBe(800);
    expect(t.metrics.bot_speech_ms).toBeNull();
    expect(t.unmeasured.bot_speech_ms).toMatch(/still playing/);
  });

  it('explains an audio turn whose audio had no voiced samples marked', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.addEvent('llm_started', 500);
    }, 1000);
    expect(t.metrics.llm_ttfb_ms).toBeNull();
    expect(t.unmeasured.llm_ttfb_ms).toBe("no voiced samples were marked for the user's audio");
    expect(t.unmeasured.voice_to_voice_ms).toBe("no voiced samples were marked for the user's audio");
  });
});

describe('deriveTurnMetrics: text, DTMF and observation-only turns', () => {
  it('anchors the LLM metrics of a text turn at the send and skips voice-to-voice', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 500, 'text');
      b.addEvent('llm_started', 780);
      b.addEvent('llm_text', 1020.25);
    }, 3000);
    expect(t.metrics).toMatchObject({
      llm_ttfb_ms: 280,
      first_token_ms: 520.25,
      voice_to_voice_ms: null,
      interruption_ms: null,
      yielded: null,
    });
    expect(t.metrics.talk_over_ms).toBeNull();
    expect(t.unmeasured.voice_to_voice_ms).toBe('text turn: no user speech to measure from');
  });

  it("still measures the bot's audio when a text turn gets a spoken reply", () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'text');
      b.addEvent('bot_started_speaking', 900);
      audioOn(b, 960, 2000);
    }, 3000);
    expect(t.metrics).toMatchObject({ speech_padding_ms: 60, bot_speech_ms: 1040, voice_to_voice_ms: null });
  });

  it('anchors a DTMF turn at its tones when the session marks them, else at the send', () => {
    const [marked, unmarked] = derive((b) => {
      b.beginTurn(0, 0, 'dtmf');
      b.markUserSpeech(50, 450);
      audioOn(b, 1250, 1500);
      b.beginTurn(1, 2000, 'dtmf');
      b.addEvent('llm_started', 2300);
    }, 4000);
    expect(marked.metrics.voice_to_voice_ms).toBe(800);
    expect(unmarked.metrics.llm_ttfb_ms).toBe(300);
  });

  it('measures only the bot audio of an observation-only turn (a greeting)', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'none');
      b.addEvent('llm_started', 100);
      audioOn(b, 700, 2200);
    }, 3000);
    expect(t.metrics).toMatchObject({ bot_speech_ms: 1500, llm_ttfb_ms: null, voice_to_voice_ms: null });
    expect(t.unmeasured.llm_ttfb_ms).toBe('observation-only turn: nothing was sent');
  });

  it('reports an LLM start that came only before the end of the user speech instead of a negative latency', () => {
    const [t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 3000);
      b.addEvent('llm_started', 1500);
    }, 5000);
    expect(t.metrics.llm_ttfb_ms).toBeNull();
    const why = "llm_started arrived only before the end of the user's speech (the last 1500 ms before it)";
    expect(t.unmeasured.llm_ttfb_ms).toBe(why);
    expect(t.notes).toContain(why);
  });
});

describe('deriveTurnMetrics: barge-in', () => {
  /** Turn 0's reply plays from 2000 ms; turn 1 starts speaking over it at 3000 ms. */
  const bargeIn = (stopAtMs: number | null, options?: DeriveOptions): DerivedTurnMetrics => {
    const turns = derive(
      (b) => {
        b.beginTurn(0, 0, 'audio');
        b.markUserSpeech(100, 1000);
        audioOn(b, 2000, null);
        b.beginTurn(1, 2900, 'audio');
        b.markUserSpeech(3000, 3800);
        if (stopAtMs !== null) b.addEvent('bot_audio_stopped', stopAtMs);
        if (stopAtMs !== null) audioOn(b, 4500, 6000);
      },
      8000,
      options,
    );
    return turns[1];
  };

  it('measures interruption from the start of the interrupting speech to the bot audio offset', () => {
    const t = bargeIn(3320);
    expect(t.metrics).toMatchObject({ interruption_ms: 320, yielded: true });
    // The reply to the interruption is measured as usual.
    expect(t.metrics.voice_to_voice_ms).toBe(700);
    expect(t.metrics.talk_over_ms).toBe(0);
  });

  it('cuts the interrupted turn short: its bot speech ends where the bot yielded', () => {
    const turns = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      audioOn(b, 2000, null);
      b.beginTurn(1, 2900, 'audio');
      b.markUserSpeech(3000, 3800);
      b.addEvent('bot_audio_stopped', 3320);
    }, 8000);
    expect(turns[0].metrics.bot_speech_ms).toBe(1320);
  });

  it('says the bot did not yield when its audio outlasts the yield window, and keeps the measured time', () => {
    expect(bargeIn(5500).metrics).toMatchObject({ interruption_ms: 2500, yielded: false });
    expect(bargeIn(5500, { yieldWindowMs: 3000 }).metrics).toMatchObject({ interruption_ms: 2500, yielded: true });
  });

  it('says the bot did not yield when its audio never stopped', () => {
    const t = bargeIn(null);
    expect(t.metrics).toMatchObject({ interruption_ms: null, yielded: false, voice_to_voice_ms: null });
    expect(t.unmeasured.interruption_ms).toMatch(/never stopped/);
    expect(t.unmeasured.voice_to_voice_ms).toBe(
      "the interrupted bot audio was still playing at the end of the user's speech and no new onset followed in the turn",
    );
  });

  it('is no barge-in when the bot had stopped before the user started', () => {
    const turns = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      audioOn(b, 2000, null);
      b.beginTurn(1, 2900, 'audio');
      b.addEvent('bot_audio_stopped', 2950);
      b.markUserSpeech(3000, 3800);
    }, 8000);
    expect(turns[1].metrics).toMatchObject({ interruption_ms: null, yielded: null });
  });

  it("counts a late reply that started after this turn's send as the audio being interrupted", () => {
    const [, t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      b.beginTurn(1, 2000, 'audio');
      audioOn(b, 2050, 2600);
      b.markUserSpeech(2200, 3000);
    }, 5000);
    expect(t.metrics).toMatchObject({ interruption_ms: 400, yielded: true, talk_over_ms: 0 });
  });
});

describe('deriveTurnMetrics: bookkeeping', () => {
  it("passes the bot's own metrics through and notes what a cap dropped", () => {
    const b = new TimelineBuilder({ maxMarksPerName: 2 });
    b.beginTurn(0, 0, 'text');
    for (const at of [10, 20, 30, 40]) b.addEvent('llm_text', at);
    b.addBotMetrics({ ttfb: [{ processor: 'LLM', value: 0.25 }] }, 50);
    b.end(100);
    const t = deriveTurnMetrics(b.takeCompleted()[0]);
    expect(t.turn_index).toBe(0);
    expect({ ...t.metrics.bot_metrics }).toEqual({ LLM: { ttfb_ms: 250, reports: 1 } });
    expect(t.notes).toEqual(['2 further llm_text marks were not kept (cap reached)']);
  });

  it('derives from a hand-written timeline the same way (the record is plain data)', () => {
    const tl: TurnTimeline = {
      index: 4,
      kind: 'audio',
      send_at_ms: 0,
      window_end_at_ms: 5000,
      user_speech_start_at_ms: 200,
      user_speech_end_at_ms: 1200.5,
      bot_audio_carried: null,
      bot_audio: [{ onset_at_ms: 2012.25, offset_at_ms: 3000 }],
      events: {},
      dropped: {},
      bot_metrics: {},
      bot_tokens: null,
      closed_by_session_end: false,
    };
    expect(deriveTurnMetrics(JSON.parse(JSON.stringify(tl)) as TurnTimeline).metrics.voice_to_voice_ms).toBe(811.75);
  });
});

describe('deriveTurnMetrics: a barge-in that starts in a pause between sentences', () => {
  /**
   * Turn 0's reply: the bot reports speaking at 1900, its first sentence plays
   * 2000–3000, then a pause (its frames carry silence); turn 1 sends at 2950
   * and the user starts talking at `userAtMs`, inside the pause.
   */
  const inPause = (
    more: (b: TimelineBuilder) => void,
    opts: { userAtMs?: number; windowOpen?: boolean; derive?: DeriveOptions } = {},
  ): DerivedTurnMetrics => {
    const userAt = opts.userAtMs ?? 3200;
    const turns = derive(
      (b) => {
        b.beginTurn(0, 0, 'audio');
        b.markUserSpeech(100, 1000);
        b.addEvent('bot_started_speaking', 1900);
        audioOn(b, 2000, 3000);
        if (opts.windowOpen === false) b.addEvent('bot_stopped_speaking', 3010);
        b.beginTurn(1, 2950, 'audio');
        b.markUserSpeech(userAt, userAt + 900);
        more(b);
      },
      9000,
      opts.derive,
    );
    return turns[1];
  };
  /** The bot stops sending (its stream ends) at `atMs`, reports the stop, then answers at 5000–6000. */
  const cutInPause =
    (atMs: number) =>
    (b: TimelineBuilder): void => {
      b.addEvent('bot_stream_end', atMs);
      b.addEvent('bot_interrupted', atMs + 40);
      b.addEvent('bot_stopped_speaking', atMs + 50);
      b.addEvent('bot_started_speaking', 4950);
      audioOn(b, 5000, 6000);
    };

  it("counts it as a barge-in while the bot's speaking window is open, timed to the end of its audio stream", () => {
    const t = inPause(cutInPause(3350));
    expect(t.metrics).toMatchObject({ interruption_ms: 150, yielded: true, voice_to_voice_ms: 900, talk_over_ms: 0 });
    expect(t.unmeasured.interruption_ms).toBeUndefined();
  });

  it('is no barge-in once the bot has reported that it stopped speaking', () => {
    const t = inPause(cutInPause(3350), { windowOpen: false });
    expect(t.metrics).toMatchObject({ interruption_ms: null, yielded: null });
    expect(t.unmeasured.interruption_ms).toMatch(/^not a barge-in/);
  });

  it('is no barge-in when the pause is longer than the gap (default 1 s, configurable)', () => {
    expect(inPause(cutInPause(4150), { userAtMs: 4050 }).metrics.interruption_ms).toBeNull();
    expect(inPause(cutInPause(4150), { userAtMs: 4050, derive: { bargeInGapMs: 1500 } }).metrics.interruption_ms).toBe(
      100,
    );
    expect(inPause(cutInPause(3350), { derive: { bargeInGapMs: 100 } }).metrics.interruption_ms).toBeNull();
  });

  it('times the stop to the next sentence when the bot resumed before yielding, and does not take that sentence for the answer', () => {
    const t = inPause((b) => {
      audioOn(b, 3400, 3650);
      b.addEvent('bot_stream_end', 3660);
      b.addEvent('bot_stopped_speaking', 3700);
      audioOn(b, 5000, 6000);
    });
    expect(t.metrics).toMatchObject({ interruption_ms: 450, voice_to_voice_ms: 900, talk_over_ms: 0 });
  });

  it("keeps the reply's later sentences in the interrupted audio while the window stays open (a bot that does not yield)", () => {
    const t = inPause((b) => {
      audioOn(b, 3400, 4400);
      audioOn(b, 4800, 7000);
      b.addEvent('bot_stopped_speaking', 7100);
    });
    expect(t.metrics).toMatchObject({ interruption_ms: 3800, yielded: false, voice_to_voice_ms: null });
  });

  it('says when the bot had sent nothing since the sentence: a barge-in without a stop to time', () => {
    const t = inPause((b) => {
      b.addEvent('bot_stream_end', 3000);
      b.addEvent('bot_stopped_speaking', 3400);
    });
    expect(t.metrics).toMatchObject({ interruption_ms: null, yielded: true });
    expect(t.unmeasured.interruption_ms).toMatch(/audio stream had already ended/);
  });

  it('takes the stream end and the window state from before the send when they were reported then', () => {
    const [, t] = derive((b) => {
      b.beginTurn(0, 0, 'audio');
      b.markUserSpeech(100, 1000);
      b.addEvent('bot_started_speaking', 1900);
      audioOn(b, 2000, 3000);
      b.beginTurn(1, 3100, 'audio');
      b.markUserSpeech(3200, 4100);
      b.addEvent('bot_stream_end', 3050);
      b.addEvent('bot_stopped_speaking', 3300);
    }, 9000);
    expect(t.metrics).toMatchObject({ interruption_ms: null, yielded: true });
    expect(t.unmeasured.interruption_ms).toMatch(/audio stream had already ended/);
  });
});
