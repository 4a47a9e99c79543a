import type { JudgeError } from './errors.js';

/**
 * What the judge sees: the conversation so far, split into exchanges. An
 * exchange opens with a user input (or none, when the bot speaks first) and
 * holds the bot's reply in arrival order: text segments and the function calls
 * it made. The criterion applies to the reply of the LAST exchange; earlier
 * exchanges are context, so a terse "That's four" can be read as an answer.
 */
export interface Conversation {
  /**
   * `audio`: the bot's segments are speech-to-text transcriptions of what it
   * said, to be judged by intended meaning. `text`: they are its LLM text.
   */
  modality: 'text' | 'audio';
  exchanges: readonly Exchange[];
}

export interface Exchange {
  /** Absent for output the bot produced unprompted (a greeting). */
  user?: UserInput;
  reply: readonly ReplyItem[];
}

export type UserInput = { kind: 'text'; text: string } | { kind: 'dtmf'; keys: string };

export type ReplyItem = ReplySegment | FunctionCallRecord;

export interface ReplySegment {
  kind: 'segment';
  text: string;
}

/** A tool the bot invoked; `name` is absent when the bot's report level hides it. */
export interface FunctionCallRecord {
  kind: 'function_call';
  tool_call_id?: string;
  name?: string;
  args?: Record<string, unknown>;
  /** Known once `llm-function-call-stopped` carried it (report level `full`). */
  result?: unknown;
  cancelled?: boolean;
}

export type VerdictValue = 'yes' | 'no' | 'continue';

export interface Verdict {
  verdict: VerdictValue;
  /** One short sentence from the judge (or from earshot, for short-circuits). */
  reason: string;
  /** True when this verdict came from the cache instead of a model call. */
  cached: boolean;
  /** The model's answer as received (redacted), for diagnostics. */
  raw?: string;
  /** Time the model call took on the judge's clock; 0 for cached or short-circuited verdicts. */
  elapsedMs: number;
  /** How sure the judge is, 0..1, when it says (a classifier); an LLM's verdict carries none. */
  confidence?: number;
}

/** A function call put to the judge (an `eval:` on `function_call`): judged by name and arguments. */
export interface JudgedCall {
  name: string;
  args: Record<string, unknown>;
}

export interface JudgeRequest {
  /** The `eval:` text of the expectation. */
  criterion: string;
  conversation: Conversation;
  /** Judge this call, the conversation as context, instead of the latest reply: the verdict is yes or no. */
  call?: JudgedCall;
  /** Aborting rejects `evaluate` with the signal's reason; nothing is cached. */
  signal?: AbortSignal;
}

/**
 * What a JavaScript `judge.eval.factory:` may build instead of an LLM: a
 * classifier that picks one of the offered verdicts, optionally with its
 * confidence (which `explain_below` reads) and a reason. It gives no reason?
 * The explainer LLM is asked for one on a `no` or an unsure verdict.
 */
export interface JudgeClassifier {
  classify(
    question: JudgeQuestion,
    signal?: AbortSignal,
  ): Promise<{ verdict: VerdictValue; confidence?: number; reason?: string }>;
}

export interface JudgeQuestion {
  criterion: string;
  conversation: Conversation;
  call?: JudgedCall;
  /** The verdicts it may answer: `continue` only for a reply whose scenario allows it. */
  options: readonly VerdictValue[];
}

export interface Judge {
  /** `service/model @ endpoint`, safe to log (no credentials). */
  readonly description: string;
  /**
   * Asks whether the last exchange's reply satisfies the criterion. A judge
   * that cannot answer (unreachable, HTTP error, unparseable answer) resolves
   * to a `JudgeError` value; only an abort rejects.
   */
  evaluate(request: JudgeRequest): Promise<Verdict | JudgeError>;
}

/** One chat message on the OpenAI Chat Completions wire. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}
