import { monotonicClock, type Clock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { VerdictCache, verdictCacheKey } from './cache.js';
import type { RetryPolicy } from './chat-completions.js';
import { latestReplyText } from './conversation.js';
import { JudgeError } from './errors.js';
import { parseVerdict } from './parse.js';
import { judgeMessages } from './prompt.js';
import { JUDGE_SERVICES, resolveJudgeService, unknownJudgeFields, type JudgeBackend, type JudgeServiceFactory } from './services.js';
import type { Judge, JudgeRequest, Verdict } from './types.js';

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
}

/**
 * Builds the judge for one scenario run. Configuration problems throw
 * `JudgeConfigError` here, before any turn runs; everything after is a value.
 */
export function createJudge(options: CreateJudgeOptions = {}): Judge {
  const env = options.env ?? process.env;
  const backend = options.backend ?? resolveJudgeService(options.config, env, options.services ?? JUDGE_SERVICES);
  const redactor = options.redactor ?? new Redactor(env);
  for (const secret of backend.secrets) redactor.add(secret);
  const clock = options.clock ?? monotonicClock;
  const trace = options.trace ?? ((): void => undefined);
  if (!options.backend) {
    for (const field of unknownJudgeFields(options.config)) trace(`judge: ignoring judge.eval.${field} (no judge service reads it)`);
  }
  const cache = options.noCache ? undefined : new VerdictCache(options.cacheDir);
  const policy: RetryPolicy = {
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 8_000,
  };
  const random = options.random ?? Math.random;
  const description = redactor.text(`${backend.service}/${backend.model} @ ${backend.endpoint}`);

  async function evaluate({ criterion, conversation, signal }: JudgeRequest): Promise<Verdict | JudgeError> {
    signal?.throwIfAborted();
    const shownCriterion = JSON.stringify(criterion);
    // Nothing said yet means nothing to judge; asking a model would only burn a call.
    if (latestReplyText(conversation) === '') {
      return { verdict: 'continue', reason: 'the bot has not replied yet', cached: false, elapsedMs: 0 };
    }

    const messages = judgeMessages(criterion, conversation);
    const key = verdictCacheKey(backend.identity, messages);
    const hit = await cache?.get(key);
    if (hit) {
      trace(redactor.text(`judge: ${shownCriterion} -> ${hit.verdict} (cached): ${hit.reason}`));
      return { ...hit, cached: true, elapsedMs: 0 };
    }

    const started = clock.now();
    const answer = await backend.complete(messages, { policy, redactor, trace, random, ...(signal ? { signal } : {}) });
    const elapsedMs = clock.now() - started;
    if (answer instanceof JudgeError) {
      trace(`judge: ${redactor.text(shownCriterion)} -> error after ${Math.round(elapsedMs)} ms: ${answer.message}`);
      return answer;
    }

    const raw = redactor.text(answer.content);
    const parsed = parseVerdict(answer.content);
    if (!parsed.ok) {
      const error = new JudgeError({
        code: 'unparseable',
        message: `cannot read a verdict from the answer (${parsed.problem}): ${JSON.stringify(raw.slice(0, 200))}`,
        service: backend.service,
        model: backend.model,
        attempts: answer.attempts,
        raw,
      });
      trace(`judge: ${redactor.text(shownCriterion)} -> ${error.message}`);
      return error;
    }

    const verdict: Verdict = { verdict: parsed.verdict, reason: redactor.text(parsed.reason), cached: false, raw, elapsedMs };
    trace(redactor.text(`judge: ${shownCriterion} -> ${verdict.verdict} in ${Math.round(elapsedMs)} ms (${parsed.via}): ${verdict.reason}`));
    if (cache) {
      const problem = await cache.put(key, { verdict: verdict.verdict, reason: verdict.reason, raw }, {
        service: backend.service,
        model: backend.model,
        criterion: redactor.text(criterion),
      });
      if (problem) trace(redactor.text(`judge: could not store the verdict in the cache: ${problem}`));
    }
    return verdict;
  }

  return { description, evaluate };
}
