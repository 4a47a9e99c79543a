import { monotonicClock, type Clock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import {
  isJudgeError,
  JUDGE_SERVICES,
  JudgeConfigError,
  resolveJudgeService,
  retryPolicy,
  unknownJudgeFields,
  type ChatCallContext,
  type JudgeBackend,
  type JudgeError,
} from '../judge/index.js';
import { END_CALL, END_CALL_TOOL, personaInstruction, personaMessages, type HeardLine } from './persona.js';

/**
 * The LLM that plays the caller. It is asked once per bot turn, with the whole
 * conversation so far and the `end_call` tool on offer, on the same services
 * as the judge (`ollama`, `openai` and any OpenAI-compatible endpoint, or a
 * backend a `factory:` built) through the judge's Chat Completions client.
 */
export interface PersonaMove {
  /** What the caller says next; empty when it only hung up (or said nothing). */
  say: string;
  /** Set when the caller hung up, with its own view of how the call went. */
  endCall?: { success: boolean; reason: string };
  /** Time the model took, on the simulator's clock. */
  elapsedMs: number;
}

export interface Simulator {
  /** `service/model @ endpoint`, safe to log. */
  readonly description: string;
  /** The caller's next move after `lines`; a model that cannot answer resolves to a `JudgeError` (the run's error). */
  next(lines: readonly HeardLine[], signal?: AbortSignal): Promise<PersonaMove | JudgeError>;
}

export interface CreateSimulatorOptions {
  persona: string;
  goal: string;
  /** The simulation's `simulator:` block (or what `--simulator` made of it); validated here. */
  config?: unknown;
  /** A backend built by the caller (an allowed `factory:`); `config` is then not resolved. */
  backend?: JudgeBackend;
  env?: NodeJS.ProcessEnv;
  redactor?: Redactor;
  trace?: (line: string) => void;
  clock?: Clock;
  /** Backoff jitter in [0, 1); seed it in tests. */
  random?: () => number;
  /** Per attempt (default 60 000). */
  requestTimeoutMs?: number;
  maxAttempts?: number;
  retryBaseDelayMs?: number;
  retryMaxDelayMs?: number;
}

/**
 * Builds the caller's model; throws `JudgeConfigError` naming the `simulator.*` field for a block that cannot be used.
 */
export function createSimulator(options: CreateSimulatorOptions): Simulator {
  const { backend, redactor, trace, clock, policy, random, description } = callerModel(options);
  const instruction = personaInstruction(options.persona, options.goal);

  async function next(lines: readonly HeardLine[], signal?: AbortSignal): Promise<PersonaMove | JudgeError> {
    signal?.throwIfAborted();
    const ctx: ChatCallContext = { policy, redactor, trace, random, ...(signal ? { signal } : {}) };
    const started = clock.now();
    const answer = await backend.complete(personaMessages(instruction, lines), ctx, { tools: [END_CALL_TOOL] });
    const elapsedMs = Math.round(clock.now() - started);
    if (isJudgeError(answer)) {
      // A turn with no words and no hang-up is no turn (Pipecat's): the silence backstop decides what follows.
      if (answer.code === 'empty_answer') return { say: '', elapsedMs };
      return answer;
    }
    const move: PersonaMove = { say: answer.content.trim(), elapsedMs };
    for (const call of answer.toolCalls ?? []) {
      if (call.name !== END_CALL) {
        trace(
          redactor.text(`simulator: ignoring a call of ${JSON.stringify(call.name)} (the caller has only ${END_CALL})`),
        );
        continue;
      }
      move.endCall = {
        success: call.args?.success === true,
        reason: typeof call.args?.reason === 'string' ? call.args.reason : '',
      };
    }
    return move;
  }

  return { description, next };
}

/**
 * The `simulator:` block through the judge's services table. Its checks name
 * `judge.eval.*` fields; the same problem in a simulator block is reported at
 * `simulator.*`, where the user wrote it.
 */
/** The options every caller's model takes (the simulated caller's, GAIA's turn writer). */
export type CallerModelOptions = Omit<CreateSimulatorOptions, 'persona' | 'goal'>;

/**
 * A caller's model resolved once: its backend (`simulator:`/`--simulator`, or a `factory:` one), the redactor that
 * hides its secrets, the retry policy, and a description safe to log. A block field no service reads is traced.
 */
export function callerModel(options: CallerModelOptions) {
  const env = options.env ?? process.env;
  const backend = options.backend ?? resolveSimulatorService(options.config, env);
  const redactor = options.redactor ?? new Redactor(env);
  for (const secret of backend.secrets) redactor.add(secret);
  const trace = options.trace ?? ((): void => undefined);
  if (!options.backend)
    for (const field of unknownJudgeFields(options.config))
      trace(`simulator: ignoring simulator.${field} (no service reads it)`);
  return {
    backend,
    redactor,
    trace,
    clock: options.clock ?? monotonicClock,
    policy: retryPolicy(options),
    random: options.random ?? Math.random,
    description: redactor.text(`${backend.service}/${backend.model} @ ${backend.endpoint}`),
  };
}

export function resolveSimulatorService(config: unknown, env: NodeJS.ProcessEnv): JudgeBackend {
  try {
    return resolveJudgeService(config, env, JUDGE_SERVICES);
  } catch (err) {
    if (!(err instanceof JudgeConfigError)) throw err;
    const field = err.field.replace(/^judge\.eval/, 'simulator');
    const message = err.message.slice(err.field.length + 2).replace(/\bjudge service\b/g, 'simulator service');
    throw new JudgeConfigError(field, message);
  }
}
