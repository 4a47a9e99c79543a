import type { EarshotEvent } from '../results/events.js';
import type { HearingDoubt, HearingEvidence } from '../results/hearing.js';
import type { FailureKind } from '../results/types.js';
import { excludedText } from './match-checks.js';
import { checkPositive, hasPositiveChecks } from './match-text.js';
import type { ExpectationSpec, MatchOutcome } from './match-types.js';

/**
 * INCONCLUSIVE, NOT FAILED. Under an audio judge a `response` is earshot's
 * transcription of the bot's speech, and a transcriber can mishear. When a
 * segment the check read carries `hearing` (results/hearing.ts: an empty
 * transcript over speech, or two transcribers that disagree), the verdict is
 * held against every reading of the speech:
 *
 * - Two transcripts: the deterministic checks (`text_contains`,
 *   `text_excludes`, `text_matches`, `number`) are decided on the first
 *   transcriber's words and again with the second's in place of each segment
 *   they disagree on. The same verdict on both stands (both transcribers agree
 *   that the bot said, or did not say, what was asked); different verdicts are
 *   inconclusive.
 * - An empty transcript: the words are unknown. A check that found what it
 *   looks for elsewhere in the reply stands, as does a `text_excludes` that
 *   found its text; a check that missed (or an exclusion that found nothing) is
 *   inconclusive — the missing words may have held it.
 * - The judge reads the first transcript only (asking it twice would cost a
 *   second call and a second conversation): its `yes` stands, its `no` or a
 *   `continue` at the deadline over doubtful speech is inconclusive.
 *
 * A bare `event: response` (no check of its words) stands: the bot did speak.
 * Failures that are not about the words (a timeout, a hang-up) stand too.
 */

/** Failures of a verdict on the reply's words: the ones a mishearing can cause. */
const WORD_VERDICTS = new Set<FailureKind>([
  'text_mismatch',
  'text_present',
  'number_mismatch',
  'judge_no',
  'judge_continue',
  'no_content',
]);
const JUDGE_KINDS = new Set<FailureKind>(['judge_no', 'judge_continue', 'no_content']);

type Verdict = 'pass' | 'fail' | 'unknown';

export function reconsiderHearing(
  exp: ExpectationSpec,
  consumed: readonly EarshotEvent[],
  outcome: MatchOutcome,
): MatchOutcome {
  if (exp.absent || (!outcome.ok && outcome.inconclusive)) return outcome;
  const failure = outcome.ok ? null : (outcome.failure ?? null);
  const doubts = consumed.flatMap((e) => (e.name === 'response' && e.hearing ? [e.hearing] : []));
  if (doubts.length === 0) return outcome;
  if (failure && !WORD_VERDICTS.has(failure.kind)) return outcome;
  const deterministic = hasPositiveChecks(exp) || exp.text_excludes !== undefined;
  if (!deterministic && exp.eval === undefined) return outcome;

  const first = deterministic ? verdictOn(exp, consumed, 'first') : 'pass';
  const disagree = doubts.some((d) => d.doubt === 'transcribers_disagree');
  const check = deterministic && disagree ? verdictOn(exp, consumed, 'check') : first;
  const judgeDoubt = failure !== null && JUDGE_KINDS.has(failure.kind);
  const stands = !judgeDoubt && first !== 'unknown' && first === check && (first === 'pass') === outcome.ok;
  if (stands) return outcome;

  const parts: string[] = [];
  if (deterministic && disagree)
    parts.push(`the check ${word(first)} on the first transcript and ${word(check)} on the second`);
  else if (deterministic && first === 'unknown') parts.push('the check depends on words the transcriber did not hear');
  if (judgeDoubt && failure)
    parts.push(`the judge read a transcript earshot could not trust (${failure.kind}: ${failure.reason})`);
  if (parts.length === 0 && failure) parts.push(`${failure.kind}: ${failure.reason}`);
  const kinds = [...new Set(doubts.map((d) => d.doubt))] as HearingDoubt[];
  return {
    ok: false,
    endsTurn: false,
    inconclusive: { kinds, reason: `${parts.join('; ')} (${describeDoubts(doubts)})`, segments: doubts },
    ...(outcome.ok && outcome.atMs !== undefined ? { atMs: outcome.atMs } : {}),
    ...(outcome.text !== undefined ? { text: outcome.text } : {}),
  };
}

/**
 * The deterministic checks on one reading: the consumed segments' texts
 * joined as the matcher joins them, the second transcriber's words in place
 * of the first's where they disagree (`check`). Words nobody heard make a miss
 * `unknown`, never a failure.
 */
function verdictOn(exp: ExpectationSpec, consumed: readonly EarshotEvent[], reading: 'first' | 'check'): Verdict {
  const text = consumed.map((e) => segmentText(e, reading)).join(' ');
  const unheard = consumed.some((e) => e.name === 'response' && e.hearing?.doubt === 'empty_transcript');
  if (exp.text_excludes !== undefined && excludedText(text, exp.text_excludes)) return 'fail';
  const positive = hasPositiveChecks(exp) ? checkPositive(text, exp) : { ok: true as const };
  if (!positive.ok) return unheard ? 'unknown' : 'fail';
  return unheard && exp.text_excludes !== undefined ? 'unknown' : 'pass';
}

function segmentText(e: EarshotEvent, reading: 'first' | 'check'): string {
  if (
    e.name !== 'response' &&
    e.name !== 'llm_response' &&
    e.name !== 'tts_response' &&
    e.name !== 'user_transcription'
  )
    return '';
  const h = e.name === 'response' ? e.hearing : undefined;
  return reading === 'check' && h?.doubt === 'transcribers_disagree' && h.check_transcript !== undefined
    ? h.check_transcript
    : e.text;
}

function word(v: Verdict): string {
  return v === 'pass' ? 'passes' : v === 'fail' ? 'fails' : 'cannot be decided';
}

function describeDoubts(doubts: readonly HearingEvidence[]): string {
  return doubts
    .map((d) =>
      d.doubt === 'empty_transcript'
        ? `${Math.round(d.speech_ms)} ms of speech at ${Math.round(d.start_ms)}–${Math.round(d.end_ms)} ms ` +
          'transcribed as nothing'
        : `at ${Math.round(d.start_ms)}–${Math.round(d.end_ms)} ms the transcribers heard ` +
          `${JSON.stringify(d.transcript)} and ${JSON.stringify(d.check_transcript ?? '')} (WER ` +
          `${(d.wer ?? 1).toFixed(2)} > ${d.max_wer ?? ''})`,
    )
    .join('; ');
}
