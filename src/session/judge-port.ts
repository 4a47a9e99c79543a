import type { Redactor } from '../core/redact.js';
import { ConversationLog, createJudge, defaultJudgeCacheDir, isJudgeError, type Judge } from '../judge/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { Runnable } from '../scenario/index.js';
import { usesEval } from './config.js';
import type { JudgePort, JudgeVerdict } from './matcher.js';

/**
 * The session's side of the judge: it keeps the conversation (what the user
 * sent, the reply segments the turns consumed, the calls the bot made) and asks
 * the judge about the most recent reply. A judge that cannot answer throws, and
 * the matcher reports that as a harness error of the turn.
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
    this.log.functionStopped({ tool_call_id: event.tool_call_id, name: event.function_name, result: event.result, cancelled: event.cancelled });
  }

  async evaluate(criterion: string, signal?: AbortSignal): Promise<JudgeVerdict> {
    const verdict = await this.judge.evaluate({ criterion, conversation: this.log.snapshot(), signal });
    if (isJudgeError(verdict)) throw verdict;
    return { verdict: verdict.verdict, reason: verdict.reason };
  }
}

export interface BuildJudgeOptions {
  cacheDir?: string;
  noCache?: boolean;
  env?: NodeJS.ProcessEnv;
  redactor: Redactor;
  trace: (line: string) => void;
}

/** A judge only when the scenario uses `eval:`; throws JudgeConfigError for a judge that cannot be built. */
export function buildJudge(scenario: Runnable, opts: BuildJudgeOptions): SessionJudge | null {
  if (!usesEval(scenario)) return null;
  const judge = createJudge({
    config: scenario.judge.eval,
    env: opts.env,
    // On disk by default so reruns are stable and cheap.
    cacheDir: opts.noCache ? undefined : (opts.cacheDir ?? defaultJudgeCacheDir(opts.env ?? process.env)),
    noCache: opts.noCache,
    redactor: opts.redactor,
    trace: opts.trace,
  });
  opts.trace(`judge: ${judge.description}`);
  return new SessionJudge(judge, scenario.judge.modality);
}
