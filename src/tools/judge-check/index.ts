/**
 * `earshot judge check`: how often the configured LLM judge agrees with a
 * labelled set (criterion, conversation, the verdict a careful human gives).
 */
export { loadLabels, LabelsFileError, VERDICTS, type LabelledCase, type LabelSet } from './labels.js';
export {
  runJudgeCheck,
  summarizeCheck,
  isError,
  type CaseOutcome,
  type CaseVerdict,
  type CategoryAgreement,
  type JudgeCheckOptions,
  type JudgeCheckReport,
} from './check.js';
export { renderJudgeCheck } from './render.js';
