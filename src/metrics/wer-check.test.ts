import { describe, expect, it } from 'vitest';
import { checkWer } from './wer-check.js';

describe('checkWer: a turn’s wer: block against its word error rates', () => {
  it('bounds are inclusive; one failure per violated bound, user_wer first', () => {
    expect(
      checkWer(
        2,
        { user_wer: { max: 0.2 }, bot_wer: { min: 0, max: 0.3 } },
        { rates: { user_wer: 0.2, bot_wer: 0.3 } },
      ),
    ).toEqual([]);
    expect(
      checkWer(
        2,
        { user_wer: { max: 0.2 }, bot_wer: { min: 0.1, max: 0.3 } },
        { rates: { user_wer: 0.25, bot_wer: 0.05 } },
      ),
    ).toEqual([
      {
        kind: 'wer_exceeded',
        turn_index: 2,
        expectation_index: null,
        event: null,
        reason: 'user_wer 0.250 exceeds max 0.2',
      },
      {
        kind: 'wer_exceeded',
        turn_index: 2,
        expectation_index: null,
        event: null,
        reason: 'bot_wer 0.050 is below min 0.1',
      },
    ]);
  });

  it('a bound on a rate that could not be measured fails, saying why; unbounded rates never fail', () => {
    const [f] = checkWer(
      0,
      { user_wer: { max: 0.5 } },
      { rates: { user_wer: null }, unmeasured: { user_wer: 'the bot sent no user_transcription' } },
    );
    expect(f.reason).toBe('user_wer not measurable (bound max 0.5): the bot sent no user_transcription');
    expect(checkWer(0, { bot_wer: { max: 0.5 } }, { rates: {} })[0].reason).toBe(
      'bot_wer not measurable (bound max 0.5): no measurement was recorded',
    );
    expect(checkWer(0, undefined, { rates: { user_wer: 9 } })).toEqual([]);
    expect(checkWer(0, { bot_wer: { max: 0.5 } }, { rates: { user_wer: 9, bot_wer: 0.1 } })).toEqual([]);
  });
});
