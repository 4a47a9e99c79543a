import { checkWer, corpusWordErrorRate, wordErrorRate, type WerFailure } from '../../metrics/index.js';
import type { ExpectationResult, TurnMetrics } from '../../results/index.js';
import type { Turn } from '../../scenario/index.js';
import type { DriverRuntime } from '../../session/index.js';

/**
 * A turn's word error rates, both ways, and its `wer:` verdict:
 *
 * - `user_wer`: how well the bot heard the caller — the text of the bot's
 *   `user_transcription` events since the turn's send against the turn's
 *   `user:`. Measured whenever the bot reported one; a typed turn has none.
 * - `bot_wer`: how far the bot's reply, as earshot got it (its transcription
 *   under an audio judge, the LLM text under a text judge), is from
 *   `expected_text`: the turn's reference against the text of its matched
 *   reply expectations, or each expectation's own reference against the text
 *   it matched (pooled: all errors over all reference words).
 *
 * Both use `metrics/wer.ts` (sclite's alignment; numbers count as written, so
 * write `expected_text` the way it is spoken). The verdict waits, as the
 * latency verdict does, at most the session's `latencyWaitMs` for a bounded `user_wer` to become
 * measurable (the bot's transcription may still be on its way).
 */
export interface TranscriptVerdict {
  metrics: Pick<TurnMetrics, 'user_wer' | 'bot_wer'>;
  failures: WerFailure[];
}

const REPLIES = new Set(['response', 'llm_response', 'tts_response']);
const POLL_MS = 50;

export async function checkTranscripts(
  runtime: DriverRuntime,
  turn: Turn,
  index: number,
  anchorMs: number,
  recorded: readonly ExpectationResult[],
): Promise<TranscriptVerdict> {
  const metrics: TranscriptVerdict['metrics'] = {};
  const unmeasured: { user_wer?: string; bot_wer?: string } = {};
  const { time, stream } = runtime;
  if (turn.user !== undefined) {
    const since = anchorMs - time.t0Ms;
    const heard = (): string[] =>
      stream.seen.flatMap((e) => (e.name === 'user_transcription' && e.at_ms >= since ? [e.text] : []));
    if (turn.wer?.user_wer) {
      const deadline = time.clock.now() + runtime.config.latencyWaitMs;
      while (heard().length === 0 && stream.closedReason === null && time.clock.now() < deadline) {
        await time.sleepUntil(time.clock.now() + POLL_MS);
      }
    }
    const texts = heard();
    if (texts.length > 0) metrics.user_wer = round4(wordErrorRate(turn.user, texts.join(' ')).wer);
    else if (turn.wer?.user_wer) {
      metrics.user_wer = null;
      unmeasured.user_wer = 'the bot sent no user_transcription of this turn (a typed turn is not transcribed)';
    }
  }
  const bot = botWer(turn, recorded);
  if (bot.value !== undefined) metrics.bot_wer = bot.value;
  if (bot.why) unmeasured.bot_wer = bot.why;
  const failures = checkWer(index, turn.wer, { rates: metrics, unmeasured });
  return { metrics, failures };
}

function botWer(turn: Turn, recorded: readonly ExpectationResult[]): { value?: number | null; why?: string } {
  const pairs: Array<{ reference: string; hypothesis: string }> = [];
  if (turn.expected_text !== undefined) {
    const said = recorded.filter((r) => REPLIES.has(r.event) && r.text !== undefined).map((r) => r.text as string);
    if (said.length === 0) return { value: null, why: 'no reply expectation of the turn got any text' };
    pairs.push({ reference: turn.expected_text, hypothesis: said.join(' ') });
  } else {
    for (const [i, exp] of turn.expect.entries()) {
      if (exp.expected_text === undefined) continue;
      const got = recorded.find((r) => r.index === i);
      if (got?.text === undefined)
        return { value: null, why: `expectation ${i + 1} (${exp.event}) got no text (${got?.status ?? 'not_run'})` };
      pairs.push({ reference: exp.expected_text, hypothesis: got.text });
    }
    if (pairs.length === 0) return {};
  }
  return { value: round4(corpusWordErrorRate(pairs).wer) };
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
