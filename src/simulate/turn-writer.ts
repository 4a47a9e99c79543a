import { isJudgeError, JudgeError, type ChatCallContext, type ChatMessage } from '../judge/index.js';
import { GAIA_CALLER_SYSTEM_PROMPT, gaiaCallerPrompt } from './gaia-prompts.js';
import type { HeardLine } from './persona.js';
import { callerModel, type CallerModelOptions } from './simulator.js';

/**
 * GAIA's "eval agent" for a turn written only as an `objective`: the caller's model writes what the persona says,
 * from the objective, the persona and the conversation so far (the roles turned around, as the simulated caller's:
 * the bot's lines are the model's `user` messages). No tools: a GAIA call ends when its turns do. Same services and
 * client as the simulator (`simulator:`, `--simulator`, or a `factory:` backend).
 */
export interface TurnWriter {
  /** `service/model @ endpoint`, safe to log. */
  readonly description: string;
  /** The caller's words for the turn; a model that fails or answers nothing is a `JudgeError` (the run's error). */
  write(
    persona: { name: string; description: string },
    objective: string,
    lines: readonly HeardLine[],
    signal?: AbortSignal,
  ): Promise<string | JudgeError>;
}

/** The caller's model as the simulated caller takes it (`simulator:` or `--simulator`, or a `factory:` backend). */
export type CreateTurnWriterOptions = CallerModelOptions;

/** The chat the caller's model answers for one turn. */
export function turnWriterMessages(
  persona: { name: string; description: string },
  objective: string,
  lines: readonly HeardLine[],
): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: GAIA_CALLER_SYSTEM_PROMPT }];
  for (const line of lines) {
    const text = line.text.trim();
    if (text) messages.push({ role: line.role === 'bot' ? 'user' : 'assistant', content: text });
  }
  messages.push({ role: 'user', content: gaiaCallerPrompt(objective, persona) });
  return messages;
}

/** Builds the turn writer; throws `JudgeConfigError` naming the `simulator.*` field for a block that cannot be used. */
export function createTurnWriter(options: CreateTurnWriterOptions): TurnWriter {
  const { backend, redactor, trace, clock, policy, random, description } = callerModel(options);

  async function write(
    persona: { name: string; description: string },
    objective: string,
    lines: readonly HeardLine[],
    signal?: AbortSignal,
  ): Promise<string | JudgeError> {
    signal?.throwIfAborted();
    const ctx: ChatCallContext = { policy, redactor, trace, random, ...(signal ? { signal } : {}) };
    const started = clock.now();
    const answer = await backend.complete(turnWriterMessages(persona, objective, lines), ctx);
    if (isJudgeError(answer)) return answer;
    const text = cleanUtterance(answer.content);
    trace(`caller model (${Math.round(clock.now() - started)}ms): ${JSON.stringify(text)}`);
    if (!text)
      return new JudgeError({
        code: 'empty_answer',
        message: "the caller's model wrote nothing for the turn",
        service: backend.service,
        model: backend.model,
        attempts: 1,
      });
    return text;
  }

  return { description, write };
}

/** Small models wrap the line in quotes or a speaker label; what is spoken is the words alone. */
export function cleanUtterance(content: string): string {
  let text = content.trim().replace(/^(?:caller|user|me|you)\s*:\s*/i, '');
  const quoted = /^["\u201c'](.*)["\u201d']$/s.exec(text);
  if (quoted) text = quoted[1].trim();
  return text.replace(/\s+/g, ' ');
}
