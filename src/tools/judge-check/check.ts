import { assertNever } from '../../core/never.js';
import { Redactor } from '../../core/redact.js';
import {
  createJudge,
  isJudgeError,
  JudgeConfigError,
  type JudgeServiceFactory,
  type VerdictValue,
} from '../../judge/index.js';
import { agreementTable, type AgreementTable } from '../../metrics/index.js';
import { runPool } from '../../runner/index.js';
import { diagnosticAt } from '../../scenario/index.js';
import { LabelsFileError, loadLabels, VERDICTS, type LabelledCase, type LabelSet } from './labels.js';

/**
 * `earshot judge check`: the configured judge over a labelled set, and how
 * often it agrees with the labels — overall, per category, as a confusion
 * matrix, and case by case where it does not.
 *
 * Verdicts are not cached by default: a check measures the judge as it
 * answers now, and a cache keyed by the model's name would replay a model that
 * was re-pulled or re-quantized under the same tag (or a server whose sampling
 * changed) as if nothing had. `cacheDir` opts in, for iterating on a report
 * without paying for the calls again.
 */

/** What the judge said for a case: a verdict, or that it could not answer. */
export type CaseVerdict = VerdictValue | 'error';

export interface CaseOutcome {
  id: string;
  category: string;
  expected: VerdictValue;
  got: CaseVerdict;
  /** The judge's reason, or the error's message. */
  reason: string;
  /** The case's why, from the labels file. */
  why: string;
  /** Line of the case in the labels file. */
  line: number;
  cached: boolean;
  elapsed_ms: number;
}

export interface CategoryAgreement {
  category: string;
  cases: number;
  agreed: number;
  rate: number;
  low: number;
  high: number;
}

export interface JudgeCheckReport {
  version: 1;
  /** The labels file as given. */
  labels: string;
  /** `service/model @ endpoint`, no credentials. */
  judge: string;
  cases: number;
  agreed: number;
  /** agreed / cases and its Wilson 95 % interval. */
  agreement: { rate: number; low: number; high: number };
  /** Cohen's kappa over the three verdicts (errors count as disagreements); null when undefined. */
  kappa: number | null;
  /** matrix[expected][got]. */
  matrix: AgreementTable<VerdictValue, 'error'>['matrix'];
  categories: CategoryAgreement[];
  /** The cases where the judge did not give the label's verdict, in file order. */
  disagreements: CaseOutcome[];
  /** Every case, in file order. */
  outcomes: CaseOutcome[];
  errors: number;
}

export interface JudgeCheckOptions {
  /** The labels file. */
  labels: string;
  /** A `judge.eval` block replacing the file's (`--judge`). */
  judge?: unknown;
  env?: NodeJS.ProcessEnv;
  /** Cache verdicts in this folder; default none (see above). */
  cacheDir?: string;
  /** Cases judged at once; default 4. */
  concurrency?: number;
  requestTimeoutMs?: number;
  signal?: AbortSignal;
  /** One line per judged case. */
  onProgress?: (line: string) => void;
  /** Service table; default the judge's own. */
  services?: Readonly<Record<string, JudgeServiceFactory>>;
}

export async function runJudgeCheck(options: JudgeCheckOptions): Promise<JudgeCheckReport> {
  const set = loadLabels(options.labels);
  const config = options.judge !== undefined ? options.judge : set.judge;
  const judge = buildJudge(set, config, options);
  const outcomes: Array<CaseOutcome | undefined> = new Array(set.cases.length);
  const indexed = set.cases.map((c, index) => ({ c, index }));
  let done = 0;
  const failed = await runPool(
    indexed,
    Math.max(1, options.concurrency ?? 4),
    async ({ c, index }) => {
      const verdict = await judge.evaluate({
        criterion: c.criterion,
        conversation: c.conversation,
        ...(options.signal ? { signal: options.signal } : {}),
      });
      const outcome = outcomeOf(c, verdict);
      outcomes[index] = outcome;
      done++;
      options.onProgress?.(
        `[${done}/${set.cases.length}] ${c.id}: expected ${c.expected}, ` +
          `got ${outcome.got}${outcome.got === c.expected ? '' : ' ✗'}`,
      );
    },
    options.signal,
  );
  if (failed) throw failed.failure;
  options.signal?.throwIfAborted();
  return summarizeCheck(
    options.labels,
    judge.description,
    outcomes.filter((o): o is CaseOutcome => o !== undefined),
  );
}

function buildJudge(set: LabelSet, config: unknown, options: JudgeCheckOptions): ReturnType<typeof createJudge> {
  const env = options.env ?? process.env;
  try {
    return createJudge({
      config,
      env,
      redactor: new Redactor(env),
      ...(options.cacheDir ? { cacheDir: options.cacheDir } : { noCache: true }),
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.services ? { services: options.services } : {}),
    });
  } catch (err) {
    // A problem in the file's own judge block points at where it was written; a --judge problem stays as it is.
    if (
      err instanceof JudgeConfigError &&
      options.judge === undefined &&
      set.judgeLoc &&
      err.field.startsWith('judge.eval')
    ) {
      const loc = set.judgeFields.get(err.field) ?? set.judgeLoc;
      throw new LabelsFileError(set.file, [
        diagnosticAt('error', loc, err.field, err.message.slice(err.field.length + 2)),
      ]);
    }
    throw err;
  }
}

function outcomeOf(
  c: LabelledCase,
  verdict: Awaited<ReturnType<ReturnType<typeof createJudge>['evaluate']>>,
): CaseOutcome {
  const base = { id: c.id, category: c.category, expected: c.expected, why: c.why, line: c.loc.line };
  if (isJudgeError(verdict)) return { ...base, got: 'error', reason: verdict.message, cached: false, elapsed_ms: 0 };
  return {
    ...base,
    got: verdict.verdict,
    reason: verdict.reason,
    cached: verdict.cached,
    elapsed_ms: Math.round(verdict.elapsedMs),
  };
}

/** The report from the outcomes (pure): agreement, kappa, the matrix, per category, the disagreements. */
export function summarizeCheck(labels: string, judge: string, outcomes: readonly CaseOutcome[]): JudgeCheckReport {
  const table = agreementTable(outcomes, VERDICTS, ['error'] as const);
  const categories = [...new Set(outcomes.map((o) => o.category))].sort().map((category): CategoryAgreement => {
    const t = agreementTable(
      outcomes.filter((o) => o.category === category),
      VERDICTS,
      ['error'] as const,
    );
    return {
      category,
      cases: t.total,
      agreed: t.agreed,
      rate: t.rate?.rate ?? 0,
      low: t.rate?.low ?? 0,
      high: t.rate?.high ?? 1,
    };
  });
  return {
    version: 1,
    labels,
    judge,
    cases: table.total,
    agreed: table.agreed,
    agreement: { rate: table.rate?.rate ?? 0, low: table.rate?.low ?? 0, high: table.rate?.high ?? 1 },
    kappa: table.kappa,
    matrix: table.matrix,
    categories,
    disagreements: outcomes.filter((o) => o.got !== o.expected),
    outcomes: [...outcomes],
    errors: outcomes.filter((o) => isError(o.got)).length,
  };
}

/** A later verdict kind (an explainer's "unsure") must say here whether it is a judge failure. */
export function isError(got: CaseVerdict): boolean {
  switch (got) {
    case 'error':
      return true;
    case 'yes':
    case 'no':
    case 'continue':
      return false;
    default:
      return assertNever(got, 'judge verdict');
  }
}
