import { isTextEvent, type EventName } from './events.js';
import { WER_METRICS, type NumberCheck, type WerAssertions, type WerBound } from './check-types.js';
import { asRecord, type Normalizer } from './normalize.js';
import { isPatternProblem, parseTextPattern } from './text-pattern.js';
import type { Expectation, Turn, UserConfig } from './types.js';

/**
 * The rules of earshot's deterministic checks (fields.ts holds their types):
 * `text_matches` compiles (a located error otherwise), `number` and
 * `text_matches` check text events, `expected_text` belongs to the bot's
 * replies, and a turn's `wer:` bound names something it can measure.
 */

const REPLY_EVENTS: readonly EventName[] = ['response', 'llm_response', 'tts_response'];

export function normalizeTextChecks(
  raw: Record<string, unknown>,
  declared: EventName,
  exp: Expectation,
  p: string,
  n: Normalizer,
): void {
  if (typeof raw.text_matches === 'string') {
    const parsed = parseTextPattern(raw.text_matches);
    if (isPatternProblem(parsed)) n.error(`${p}.text_matches`, parsed.problem);
    else {
      exp.text_matches = parsed;
      if (!isTextEvent(declared))
        n.warn(`${p}.text_matches`, `${declared} carries no text, so text_matches can never match`);
    }
  }
  const number = numberCheck(raw.number);
  if (number) {
    exp.number = number;
    if (!isTextEvent(declared)) n.warn(`${p}.number`, `${declared} carries no text, so number can never match`);
  }
  if (typeof raw.expected_text === 'string') {
    if (!REPLY_EVENTS.includes(declared)) {
      n.error(
        `${p}.expected_text`,
        `expected_text is the reference of the bot's word error rate (bot_wer): it belongs on a reply ` +
          `(${REPLY_EVENTS.join(', ')}), not ${declared}`,
      );
    } else exp.expected_text = raw.expected_text;
  }
}

function numberCheck(value: unknown): NumberCheck | undefined {
  if (typeof value === 'number') return { value, tolerance_pct: 0 };
  const raw = asRecord(value);
  if (!raw || typeof raw.value !== 'number') return undefined;
  return { value: raw.value, tolerance_pct: typeof raw.tolerance_pct === 'number' ? raw.tolerance_pct : 0 };
}

/** A turn's `expected_text:` and `wer:`, after its expectations are normalized. */
export function normalizeTurnChecks(
  raw: Record<string, unknown>,
  turn: Turn,
  p: string,
  n: Normalizer,
  user: UserConfig,
): void {
  const onReplies = turn.expect.some((e) => e.expected_text !== undefined);
  if (typeof raw.expected_text === 'string') {
    if (onReplies)
      n.error(
        `${p}.expected_text`,
        "bot_wer takes its reference from the turn's expected_text or from its expectations', not both",
      );
    else turn.expected_text = raw.expected_text;
  }
  const wer = asRecord(raw.wer);
  if (!wer) return;
  const out: WerAssertions = {};
  for (const metric of WER_METRICS) {
    const bound = asRecord(wer[metric]) as WerBound | undefined;
    if (!bound) continue;
    const where = `${p}.wer.${metric}`;
    if (bound.min !== undefined && bound.max !== undefined && bound.min > bound.max) {
      n.error(where, `min (${bound.min}) is above max (${bound.max})`);
      continue;
    }
    if (metric === 'user_wer' && turn.user === undefined) {
      n.error(
        where,
        "user_wer compares the bot's transcription of the caller with what the turn says: it needs 'user:'",
      );
      continue;
    }
    if (metric === 'user_wer' && user.modality === 'text') {
      n.warn(
        where,
        "user_wer needs the bot's user_transcription of the caller's speech, but user.modality is text (typed turns " +
          'are not transcribed): unless the bot reports one, this bound fails as not measurable',
      );
    }
    if (metric === 'bot_wer' && turn.expected_text === undefined && !onReplies && !n.hasErrorAt(`${p}.expected_text`)) {
      n.error(where, "bot_wer needs a reference: an 'expected_text:' on the turn or on one of its reply expectations");
      continue;
    }
    const b: WerBound = {};
    if (bound.min !== undefined) b.min = bound.min;
    if (bound.max !== undefined) b.max = bound.max;
    out[metric] = b;
  }
  turn.wer = out;
}
