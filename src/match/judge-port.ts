import { UsageError } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import {
  ConversationLog,
  createJudge,
  defaultJudgeCacheDir,
  isJudgeError,
  JudgeConfigError,
  resolveJudgeService,
  type Judge,
  type JudgeBackend,
  type JudgeClassifier,
} from '../judge/index.js';
import type { EarshotEvent } from '../results/events.js';
import {
  formatDiagnostic,
  formatLlmOverride,
  unrunnableFactories,
  type CodeHook,
  type JudgeEvalConfig,
  type LlmConfig,
  type Runnable,
} from '../scenario/index.js';
import { loadFactory } from '../core/code-hooks.js';
import type { JudgePort, JudgeVerdict } from './match-types.js';

/**
 * The session's side of the judge: it keeps the conversation (what the user
 * sent, the reply segments the turns consumed, the calls the bot made) and asks
 * the judge about the most recent reply, or about one call. A judge call that
 * fails twice (see `JUDGE_ASKS`) is a `no` whose reason says so, as in
 * Pipecat: the expectation fails `judge_no` and the run goes on.
 */
export class SessionJudge implements JudgePort {
  private readonly log: ConversationLog;

  constructor(
    private readonly judge: Judge,
    modality: 'text' | 'audio',
  ) {
    this.log = new ConversationLog(modality);
  }

  addUser(input: { kind: 'text'; text: string } | { kind: 'dtmf'; keys: string }): void {
    if (input.kind === 'text') this.log.user(input.text);
    else this.log.dtmf(input.keys);
  }

  addAssistant(text: string): void {
    this.log.botText(text);
  }

  addCall(event: EarshotEvent): void {
    if (event.name !== 'function_call') return;
    this.log.functionCall({ tool_call_id: event.tool_call_id, name: event.function_name, args: event.args });
  }

  addCallStopped(event: EarshotEvent): void {
    if (event.name !== 'function_call_stopped') return;
    this.log.functionStopped({
      tool_call_id: event.tool_call_id,
      name: event.function_name,
      result: event.result,
      cancelled: event.cancelled,
    });
  }

  evaluate(criterion: string, signal?: AbortSignal): Promise<JudgeVerdict> {
    return this.ask(criterion, undefined, signal);
  }

  evaluateCall(
    name: string,
    args: Record<string, unknown>,
    criterion: string,
    signal?: AbortSignal,
  ): Promise<JudgeVerdict> {
    return this.ask(criterion, { name, args }, signal);
  }

  private async ask(
    criterion: string,
    call: { name: string; args: Record<string, unknown> } | undefined,
    signal?: AbortSignal,
  ): Promise<JudgeVerdict> {
    const verdict = await this.judge.evaluate({
      criterion,
      conversation: this.log.snapshot(),
      ...(call ? { call } : {}),
      signal,
    });
    if (isJudgeError(verdict)) return { verdict: 'no', reason: `judge call failed: ${verdict.message}` };
    return { verdict: verdict.verdict, reason: verdict.reason };
  }
}

/**
 * What the judge is built from besides the file: the run's judge settings (`override` replaces the file's judge,
 * verdicts cached in `cacheDir` unless `cache` is false), whether a JavaScript `factory:` may load, secrets, trace.
 */
export interface BuildJudgeOptions {
  judge: { readonly override: LlmConfig | null; readonly cacheDir: string | undefined; readonly cache: boolean };
  allowCode: boolean;
  env: NodeJS.ProcessEnv;
  redactor: Redactor;
  trace: (line: string) => void;
}

/** The fields of `judge.eval` that are the judge's behaviour, not its service. */
const BEHAVIOUR_FIELDS = new Set(['explainer', 'explain_below', 'allow_continue']);

/**
 * The judge of a scenario that uses `eval:`. Throws a `UsageError` for a
 * judge that cannot be built (`JudgeConfigError` for an unknown service, a
 * missing key or a JavaScript `factory:` without `--allow-code`; the located
 * line of a Python `factory:` that no `--judge` replaces): the session
 * reports it as `no_judge` on each `eval:`.
 */
export async function buildJudge(scenario: Runnable, opts: BuildJudgeOptions): Promise<SessionJudge> {
  const block = scenario.judge.eval;
  const { override } = opts.judge;
  const cache = {
    cacheDir: opts.judge.cache ? (opts.judge.cacheDir ?? defaultJudgeCacheDir(opts.env)) : undefined,
    noCache: !opts.judge.cache,
  };
  const common = {
    env: opts.env,
    ...cache,
    redactor: opts.redactor,
    trace: opts.trace,
    explainBelow: block.explain_below,
    allowContinue: block.allow_continue,
  };
  let judge: Judge;
  if (override !== null) {
    judge = createJudge({ ...common, config: override });
    opts.trace(
      `judge: ${judge.description} (--judge ${formatLlmOverride(override)}, in place of the file's judge.eval)`,
    );
  } else {
    refusePython(scenario);
    const explainer = explainerBackend(block, opts.env);
    const made = block.factory !== undefined ? await factoryJudge(scenario, opts) : null;
    judge = createJudge({
      ...common,
      config: serviceFields(block),
      ...(made?.kind === 'backend' ? { backend: made.backend } : {}),
      ...(made?.kind === 'classifier' ? { classifier: made.classifier } : {}),
      // A classifier gives no reasons: without an explainer block, Pipecat's default judge LLM explains.
      ...(explainer
        ? { explainer }
        : made?.kind === 'classifier' && block.explainer === undefined
          ? { explainer: resolveJudgeService(undefined, opts.env) }
          : {}),
    });
    opts.trace(`judge: ${judge.description}`);
  }
  return new SessionJudge(judge, scenario.judge.modality);
}

function serviceFields(block: JudgeEvalConfig): Record<string, unknown> {
  return Object.fromEntries(Object.entries(block).filter(([key]) => !BEHAVIOUR_FIELDS.has(key)));
}

/** An explicit `explainer:` LLM block's backend; none for `false` or no block (an LLM judge gives its own reasons). */
function explainerBackend(block: JudgeEvalConfig, env: NodeJS.ProcessEnv): JudgeBackend | undefined {
  const explainer: LlmConfig | false | undefined = block.explainer;
  if (!explainer || explainer.factory !== undefined) return undefined;
  try {
    return resolveJudgeService(explainer, env);
  } catch (err) {
    if (err instanceof JudgeConfigError)
      throw new JudgeConfigError(
        err.field.replace(/^judge\.eval/, 'judge.eval.explainer'),
        err.message.replace(/^[^:]*: /, ''),
      );
    throw err;
  }
}

/**
 * A Python `factory:` of the judge or its explainer cannot run in Node: one located line, naming the flag that replaces
 * it.
 */
function refusePython(scenario: Runnable): void {
  const [problem] = unrunnableFactories(scenario, ['user.speech', 'judge.transcription', 'simulator']);
  if (problem) throw new UsageError(formatDiagnostic(problem));
}

type FactoryJudge = { kind: 'backend'; backend: JudgeBackend } | { kind: 'classifier'; classifier: JudgeClassifier };

/**
 * A JavaScript `judge.eval.factory:` (with `--allow-code`): called with the
 * block, it returns a classifier (`classify(question)`) or an LLM backend
 * (`complete(messages)`, as `JUDGE_SERVICES` build them).
 */
async function factoryJudge(scenario: Runnable, opts: BuildJudgeOptions): Promise<FactoryJudge> {
  const hook: CodeHook | undefined = scenario.code_hooks.find((h) => h.block === 'judge.eval' && h.runtime === 'node');
  if (!hook) throw new JudgeConfigError('judge.eval.factory', 'names no module earshot can load');
  let fn: (...args: unknown[]) => unknown;
  try {
    fn = await loadFactory(`${hook.module}#${hook.export}`, {
      allowCode: opts.allowCode,
      baseDir: scenario.root,
    });
  } catch (err) {
    throw new JudgeConfigError('judge.eval.factory', (err as Error).message);
  }
  let made: unknown;
  try {
    made = await fn(serviceFields(scenario.judge.eval));
  } catch (err) {
    throw new JudgeConfigError('judge.eval.factory', `${hook.factory} threw: ${(err as Error).message}`);
  }
  const record = typeof made === 'object' && made !== null ? (made as Record<string, unknown>) : {};
  if (typeof record.classify === 'function') return { kind: 'classifier', classifier: made as JudgeClassifier };
  if (typeof record.complete === 'function') {
    const backend = made as Partial<JudgeBackend>;
    return {
      kind: 'backend',
      backend: {
        service: backend.service ?? 'factory',
        model: backend.model ?? hook.factory,
        endpoint: backend.endpoint ?? 'in-process',
        secrets: backend.secrets ?? [],
        identity: backend.identity ?? { factory: hook.factory },
        complete: backend.complete!.bind(made),
      },
    };
  }
  throw new JudgeConfigError(
    'judge.eval.factory',
    `${hook.factory} must return a classifier (classify(question)) or an LLM backend (complete(messages))`,
  );
}
