import { monotonicClock, type Clock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { VerdictCache, verdictCacheKey } from './cache.js';
import type { RetryPolicy } from './chat-completions.js';
import { latestReplyText } from './conversation.js';
import { JudgeError } from './errors.js';
import { parseVerdict } from './parse.js';
import { judgeMessages } from './prompt.js';
import {
  JUDGE_SERVICES,
  resolveJudgeService,
  unknownJudgeFields,
  type JudgeBackend,
  type JudgeServiceFactory,
} from './services.js';
import type { ChatMessage, Judge, JudgeClassifier, JudgeRequest, Verdict, VerdictValue } from './types.js';

export interface CreateJudgeOptions {
  /** The scenario's `judge.eval` block (validated here); absent means Pipecat's default judge. */
  config?: unknown;
  /** Where keys, `OPENAI_BASE_URL` and `OLLAMA_HOST` are read; default `process.env`. */
  env?: NodeJS.ProcessEnv;
  /** Directory of the on-disk verdict cache; without it verdicts are cached for this judge only. */
  cacheDir?: string;
  /** Neither read nor write any cache: every evaluation asks the model. */
  noCache?: boolean;
  /** Per attempt; default 60 000. */
  requestTimeoutMs?: number;
  /** Attempts in all for 408/409/425/429/5xx and connection failures; default 3. */
  maxAttempts?: number;
  /** Default 500; doubles per retry, jittered. */
  retryBaseDelayMs?: number;
  /** Default 8 000; also caps a server's `Retry-After`. */
  retryMaxDelayMs?: number;
  clock?: Clock;
  /** Masks secrets in errors, traces and the cache; the service's key is added to it. Default: from `env`. */
  redactor?: Redactor;
  /** Receives one line per decision worth a debug trace (retries, cache hits, verdicts), already redacted. */
  trace?: (line: string) => void;
  /** Backoff jitter source in [0, 1); default `Math.random`. */
  random?: () => number;
  /** Service table; default `JUDGE_SERVICES`. */
  services?: Readonly<Record<string, JudgeServiceFactory>>;
  /** A backend built by the caller (e.g. from an allowed `factory:` hook); `config` is then not resolved. */
  backend?: JudgeBackend;
  /** A classifier built by an allowed `factory:` hook: it decides in place of an LLM. */
  classifier?: JudgeClassifier;
  /** The LLM asked for the reason behind a `no` or an unsure verdict (`judge.eval.explainer`); none by default. */
  explainer?: JudgeBackend;
  /**
   * A verdict less sure than this is explained too (`explain_below`, default 0.75); only verdicts that carry a
   * confidence can be.
   */
  explainBelow?: number;
  /** Whether a reply may be judged `continue` (`allow_continue`, default true); false: yes or no only. */
  allowContinue?: boolean;
}

/**
 * How many times a judge question is asked before it fails: once more after a timeout, a failed connection or an
 * unusable answer (Pipecat's rule).
 */
export const JUDGE_ASKS = 2;
/** The reason a verdict carries when the explainer's call failed (Pipecat's wording). */
export const EXPLAINER_FAILED = 'explainer call failed';

/**
 * Builds the judge for one scenario run. Configuration problems throw
 * `JudgeConfigError` here, before any turn runs; everything after is a value.
 */
export function createJudge(options: CreateJudgeOptions = {}): Judge {
  const env = options.env ?? process.env;
  const backend =
    options.backend ??
    (options.classifier
      ? classifierBackend(options.config)
      : resolveJudgeService(options.config, env, options.services ?? JUDGE_SERVICES));
  const redactor = options.redactor ?? new Redactor(env);
  for (const secret of backend.secrets) redactor.add(secret);
  const clock = options.clock ?? monotonicClock;
  const trace = options.trace ?? ((): void => undefined);
  if (!options.backend && !options.classifier) {
    for (const field of unknownJudgeFields(options.config))
      trace(`judge: ignoring judge.eval.${field} (no judge service reads it)`);
  }
  const cache = options.noCache ? undefined : new VerdictCache(options.cacheDir);
  const policy: RetryPolicy = {
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 8_000,
  };
  const random = options.random ?? Math.random;
  const allowContinue = options.allowContinue !== false;
  const explainBelow = options.explainBelow ?? 0.75;
  const classifier = options.classifier;
  const explainer = options.explainer;
  if (explainer) for (const secret of explainer.secrets) redactor.add(secret);
  const description = redactor.text(
    `${classifier ? `classifier (${backend.service})` : `${backend.service}/${backend.model} @ ${backend.endpoint}`}` +
      `${explainer ? `, explained by ${explainer.service}/${explainer.model}` : ''}`,
  );
  const ctx = { policy, redactor, trace, random };

  /**
   * One model answer read as a verdict, or the error; a call is yes or no, and so is a reply when `continue` is not
   * allowed.
   */
  async function askModel(
    model: JudgeBackend,
    messages: ChatMessage[],
    finalOnly: boolean,
    signal?: AbortSignal,
  ): Promise<Verdict | JudgeError> {
    const started = clock.now();
    const answer = await model.complete(messages, { ...ctx, ...(signal ? { signal } : {}) });
    const elapsedMs = clock.now() - started;
    if (answer instanceof JudgeError) return answer;
    const raw = redactor.text(answer.content);
    const parsed = parseVerdict(answer.content);
    if (!parsed.ok) {
      return new JudgeError({
        code: 'unparseable',
        message: `cannot read a verdict from the answer (${parsed.problem}): ${JSON.stringify(raw.slice(0, 200))}`,
        service: model.service,
        model: model.model,
        attempts: answer.attempts,
        raw,
      });
    }
    // An answer that ignored the yes/no instructions counts as a no.
    const verdict: VerdictValue = finalOnly && parsed.verdict === 'continue' ? 'no' : parsed.verdict;
    return { verdict, reason: redactor.text(parsed.reason), cached: false, raw, elapsedMs };
  }

  async function askClassifier(
    c: JudgeClassifier,
    request: JudgeRequest,
    finalOnly: boolean,
  ): Promise<Verdict | JudgeError> {
    const started = clock.now();
    const options: VerdictValue[] = finalOnly ? ['yes', 'no'] : ['yes', 'no', 'continue'];
    try {
      const answer = await c.classify(
        {
          criterion: request.criterion,
          conversation: request.conversation,
          ...(request.call ? { call: request.call } : {}),
          options,
        },
        request.signal,
      );
      if (!options.includes(answer.verdict))
        throw new Error(`answered ${JSON.stringify(answer.verdict)}, not one of ${options.join(', ')}`);
      const confidence =
        typeof answer.confidence === 'number' && Number.isFinite(answer.confidence) ? answer.confidence : undefined;
      const reason =
        answer.reason?.trim() ||
        (confidence !== undefined ? `P(${answer.verdict})=${confidence.toFixed(2)}` : '(no reason given)');
      return {
        verdict: answer.verdict,
        reason: redactor.text(reason),
        cached: false,
        elapsedMs: clock.now() - started,
        ...(confidence !== undefined ? { confidence } : {}),
      };
    } catch (err) {
      request.signal?.throwIfAborted();
      return new JudgeError({
        code: 'bad_response',
        message: `the classifier failed: ${(err as Error).message}`,
        service: backend.service,
        model: backend.model,
        attempts: 1,
      });
    }
  }

  /** Asks the explainer the same question; its reason joins the verdict, which it never changes. */
  async function explain(
    verdict: Verdict,
    messages: ChatMessage[],
    finalOnly: boolean,
    signal?: AbortSignal,
  ): Promise<Verdict> {
    if (!explainer) return verdict;
    const unsure = verdict.confidence !== undefined && verdict.confidence < explainBelow;
    if (verdict.verdict === 'continue' || (verdict.verdict !== 'no' && !unsure)) return verdict;
    const explanation = await askModel(explainer, messages, finalOnly, signal);
    if (explanation instanceof JudgeError) {
      trace(`judge: explainer failed: ${explanation.message}`);
      return { ...verdict, reason: `${verdict.reason}; ${EXPLAINER_FAILED}` };
    }
    const reason =
      explanation.verdict === verdict.verdict
        ? `${explanation.reason} (${verdict.reason})`
        : `${verdict.reason}; the explainer judged ${explanation.verdict}: ${explanation.reason}`;
    return { ...verdict, reason, elapsedMs: verdict.elapsedMs + explanation.elapsedMs };
  }

  async function evaluate(request: JudgeRequest): Promise<Verdict | JudgeError> {
    const { criterion, conversation, signal } = request;
    signal?.throwIfAborted();
    const shownCriterion = JSON.stringify(criterion);
    const finalOnly = request.call !== undefined || !allowContinue;
    // Nothing said yet means nothing to judge; asking a model would only burn a call.
    if (!request.call && latestReplyText(conversation) === '') {
      return {
        verdict: finalOnly ? 'no' : 'continue',
        reason: 'the bot has not replied yet',
        cached: false,
        elapsedMs: 0,
      };
    }

    const messages = judgeMessages(criterion, conversation, {
      allowContinue,
      ...(request.call ? { call: request.call } : {}),
    });
    const key = verdictCacheKey(
      {
        ...backend.identity,
        ...(explainer ? { explainer: explainer.identity } : {}),
        ...(classifier ? { classifier: true } : {}),
      },
      messages,
    );
    const hit = await cache?.get(key);
    if (hit) {
      trace(redactor.text(`judge: ${shownCriterion} -> ${hit.verdict} (cached): ${hit.reason}`));
      return { ...hit, cached: true, elapsedMs: 0 };
    }

    let verdict: Verdict | JudgeError = new JudgeError({
      code: 'bad_response',
      message: 'not asked',
      service: backend.service,
      model: backend.model,
      attempts: 0,
    });
    for (let ask = 1; ask <= JUDGE_ASKS; ask++) {
      verdict = classifier
        ? await askClassifier(classifier, request, finalOnly)
        : await askModel(backend, messages, finalOnly, signal);
      if (!(verdict instanceof JudgeError)) break;
      trace(`judge: ${redactor.text(shownCriterion)} -> ${verdict.message}${ask < JUDGE_ASKS ? '; asking again' : ''}`);
    }
    if (verdict instanceof JudgeError) return verdict;
    verdict = await explain(verdict, messages, finalOnly, signal);
    trace(
      redactor.text(
        `judge: ${shownCriterion}${request.call ? ` on ${request.call.name}` : ''} -> ${verdict.verdict} in ` +
          `${Math.round(verdict.elapsedMs)} ms: ${verdict.reason}`,
      ),
    );
    if (cache) {
      const problem = await cache.put(
        key,
        { verdict: verdict.verdict, reason: verdict.reason, raw: verdict.raw ?? '' },
        {
          service: backend.service,
          model: backend.model,
          criterion: redactor.text(criterion),
        },
      );
      if (problem) trace(redactor.text(`judge: could not store the verdict in the cache: ${problem}`));
    }
    return verdict;
  }

  return { description, evaluate };
}

/** What stands for a classifier in logs and the cache key: it has no model of its own to ask. */
function classifierBackend(config: unknown): JudgeBackend {
  const factory =
    typeof config === 'object' && config !== null && typeof (config as { factory?: unknown }).factory === 'string'
      ? (config as { factory: string }).factory
      : 'classifier';
  return {
    service: 'factory',
    model: factory,
    endpoint: 'in-process',
    secrets: [],
    identity: { factory },
    complete: () =>
      Promise.resolve(
        new JudgeError({
          code: 'bad_response',
          message: 'a classifier has no model to ask',
          service: 'factory',
          model: factory,
          attempts: 0,
        }),
      ),
  };
}
