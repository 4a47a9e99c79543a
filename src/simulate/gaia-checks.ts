import type { GaiaAutoZero, GaiaTurnScore } from '../results/index.js';
import type { GaiaGroundTruth } from '../scenario/index.js';
import { nearest, numbersIn, percent } from './numbers.js';
import { numericCap } from './scorecard.js';

/**
 * What earshot decides about a GAIA turn's reply itself, without the judge: the numbers it said against the ground
 * truth, whether it admitted not knowing, and the automatic zeros that follow. Deterministic, so a model's mood
 * cannot pass a wrong number.
 */

/**
 * The bot says it does not know (or cannot find it). Written for speech-to-text output too: apostrophes may be
 * missing ("dont"), so each pattern allows for it.
 */
const DONT_KNOW: readonly RegExp[] = [
  /\b(?:do ?n'?t|do not|does ?n'?t|does not|did ?n'?t|did not) (?:know|say|mention|have|contain|see|include|show)\b/,
  /\b(?:can'?t|cannot|can not|could ?n'?t|could not|unable to) (?:find|locate|see|tell|answer|say)\b/,
  /\b(?:was ?n'?t|was not|am not|wasn't) able to (?:find|locate|see|tell|answer|say)\b/,
  /\bnot sure\b/,
  /\bno (?:information|mention|record|data|details?|figures?|answer)\b/,
  /\bnot (?:mentioned|included|stated|specified|listed|available|given|provided|covered)\b/,
  /\b(?:is|are) ?n'?t (?:mentioned|included|stated|specified|listed|available|in)\b/,
  /\bnot in (?:the|my|any|these|those) (?:documents?|files?|report|data)\b/,
  /\bno idea\b/,
];

/** Whether the reply admits not knowing ("I don't know", "the documents don't say", "I couldn't find that"). */
export function admitsNotKnowing(reply: string): boolean {
  const text = reply.toLowerCase().replace(/[\u2018\u2019`]/g, "'");
  return DONT_KNOW.some((re) => re.test(text));
}

export interface NumberCheck {
  /** Highest correctness the numbers allow. */
  max: number;
  reason: string;
  /** A number more than 5 % off an expected answer's (an automatic zero). */
  wrong: boolean;
}

/** Beyond this deviation a said number is another quantity ("2025" against "$14.2 million"), not a wrong answer. */
const SAME_QUANTITY_MAX_DEV = 0.5;

/**
 * The numbers said against a written `expected_answer`: each expected number against the closest said, 10 within
 * 1 %, 8 within 5 %. A closest number more than 5 % off but within 50 % is the quantity stated wrong: correctness 0
 * and an automatic zero (GAIA's "wrong number: deviates >5%", which earshot reads as overriding the 5-15 % and
 * 15-50 % rows of its own table when an answer is given). Further off, the number is another quantity (a year, a
 * quarter) and the expected one was not stated: no automatic zero (nothing wrong was said; the judge decides the
 * rest), but correctness at most 4 when some expected numbers were stated (partly answered), 0 when none was.
 */
export function expectedNumberCheck(expected: string, reply: string): NumberCheck | undefined {
  const wanted = numbersIn(expected);
  if (!wanted.length) return undefined;
  const said = numbersIn(reply);
  if (!said.length) return { max: 0, reason: `the bot said no number; expected ${expected}`, wrong: false };
  let max = 10;
  let wrong = false;
  let missing = 0;
  const parts: string[] = [];
  for (const w of wanted) {
    const { closest, dev } = nearest(said, w);
    if (dev > SAME_QUANTITY_MAX_DEV) {
      missing++;
      parts.push(`${w}: not stated (closest said ${closest}, ${percent(dev)} off)`);
      continue;
    }
    const cap = dev <= 0.01 ? 10 : dev <= 0.05 ? 8 : 0;
    if (cap === 0) wrong = true;
    max = Math.min(max, cap);
    parts.push(`${w}: closest said ${closest} (${percent(dev)} off, at most ${cap})`);
  }
  if (missing) max = Math.min(max, missing === wanted.length ? 0 : 4);
  return { max, reason: parts.join('; '), wrong };
}

/**
 * The numbers said against the cited facts' answers, when only facts are given (no `expected_answer`): GAIA's full
 * precision table (10/8/4/1/0). The reply is held against the fact it matches best (a turn may cite several facts
 * and ask about one); a reply with no number is not held against any (it may answer a fact without one).
 */
export function factNumberCheck(facts: GaiaGroundTruth['facts'], reply: string): NumberCheck | undefined {
  const said = numbersIn(reply);
  if (!said.length) return undefined;
  let best: NumberCheck | undefined;
  for (const fact of facts) {
    const cap = numericCap(fact.answer, [reply]);
    if (!cap) continue;
    if (!best || cap.max > best.max)
      best = { max: cap.max, reason: `fact ${fact.doc_id}/${fact.id}: ${cap.reason}`, wrong: false };
  }
  return best;
}

/**
 * earshot's automatic zeros, first match wins: `guessed` (an answer where `expected_answer: null` asks for "I don't
 * know"), `wrong_number`, `lazy_refusal` (a refusal with no call, only where calls are visible).
 */
export function earshotAutoZero(
  truth: GaiaGroundTruth | undefined,
  reply: string,
  calls: GaiaTurnScore['calls'],
  callsVisible: boolean,
  numbers: NumberCheck | undefined,
): GaiaAutoZero | undefined {
  if (truth?.expected_answer === null) {
    if (admitsNotKnowing(reply)) return undefined;
    return {
      rule: 'guessed',
      by: 'earshot',
      reason: 'the answer is not in the documents and the bot did not say it does not know',
    };
  }
  if (numbers?.wrong)
    return { rule: 'wrong_number', by: 'earshot', reason: `a number more than 5 % off: ${numbers.reason}` };
  if (typeof truth?.expected_answer === 'string' && callsVisible && calls.length === 0 && admitsNotKnowing(reply)) {
    return {
      rule: 'lazy_refusal',
      by: 'earshot',
      reason: 'the bot said it could not find the answer without calling any tool to look',
    };
  }
  return undefined;
}
