import { isJudgeError, type JudgeError } from '../../judge/index.js';
import type { SimulationEntry } from '../../results/index.js';
import type { NemoAssertionVerdict, NemoSignalValue } from '../../results/nemo.js';
import { SuccessSignal } from '../../scenario/nemo/types.js';
import { nlAssertions } from '../signals.js';
import type { RunJudge } from '../transcript.js';

/**
 * NL_ASSERTION: each claim judged on its own (the judge path of the legacy `nl_assertions` signal, one call per
 * claim); a claim with no usable verdict counts as failed (NeMo fills a malformed answer as false). The pass rate is
 * binarized at 1.0. A judge that cannot be reached at all is an error value: harness trouble, not the bot's.
 */
export interface NlOutcome {
  value: NemoSignalValue;
  verdicts: NemoAssertionVerdict[];
}

export async function nlAssertion(
  judge: RunJudge,
  claims: readonly string[],
  transcript: readonly SimulationEntry[],
  modality: 'text' | 'audio',
): Promise<NlOutcome | JudgeError> {
  const judged = await nlAssertions(judge, claims, transcript, modality);
  if (isJudgeError(judged)) return judged;
  const verdicts = (judged.assertions ?? []).map(
    (a): NemoAssertionVerdict => ({
      what: a.claim,
      passed: a.verdict === 'yes',
      verdict: a.verdict,
      reason: a.verdict === 'none' ? `no verdict (counted as failed): ${a.reason}` : a.reason,
    }),
  );
  const passed = verdicts.filter((v) => v.passed).length;
  const rate = verdicts.length ? passed / verdicts.length : 0;
  return {
    verdicts,
    value: {
      signal: SuccessSignal.NL_ASSERTION,
      value: verdicts.length > 0 && rate >= 1,
      pass_rate: rate,
      reason: `${passed}/${verdicts.length} claim(s) hold${rate >= 1 ? '' : `: ${judged.reason}`}`,
    },
  };
}
