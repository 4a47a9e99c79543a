import type { Conversation, Exchange, FunctionCallRecord, ReplyItem, UserInput } from './types.js';

interface MutableExchange {
  user?: UserInput;
  reply: ReplyItem[];
}

/**
 * The conversation a session grows as it runs, one per scenario run. User
 * input opens a new exchange; bot segments and function calls join the current
 * one. `snapshot()` hands the judge an immutable copy, so a verdict (and its
 * cache key) is about exactly what had been said when it was asked.
 */
export class ConversationLog {
  private readonly exchanges: MutableExchange[] = [];

  constructor(readonly modality: 'text' | 'audio' = 'text') {}

  /** The user said (or typed) `text`. Blank input opens no exchange. */
  user(text: string): void {
    if (text.trim() === '') return;
    this.exchanges.push({ user: { kind: 'text', text }, reply: [] });
  }

  /** The user pressed keys (`"123#"`). */
  dtmf(keys: string): void {
    if (keys === '') return;
    this.exchanges.push({ user: { kind: 'dtmf', keys }, reply: [] });
  }

  /** One segment of the bot's reply (an `llm_response`, `tts_response` or transcribed `response`). */
  botText(text: string): void {
    if (text.trim() === '') return;
    this.current().reply.push({ kind: 'segment', text });
  }

  /** The bot started a function call (`llm-function-call-in-progress`). */
  functionCall(call: { tool_call_id?: string; name?: string; args?: Record<string, unknown> }): void {
    const record: FunctionCallRecord = { kind: 'function_call' };
    if (call.tool_call_id !== undefined) record.tool_call_id = call.tool_call_id;
    if (call.name !== undefined) record.name = call.name;
    if (call.args !== undefined) record.args = structuredClone(call.args);
    this.current().reply.push(record);
  }

  /**
   * A function call ended (`llm-function-call-stopped`). It completes the call
   * with the same `tool_call_id` (else the latest open call of that name); a stop
   * for a call never seen starting is recorded on its own.
   */
  functionStopped(stop: { tool_call_id?: string; name?: string; result?: unknown; cancelled?: boolean }): void {
    const call = this.findOpenCall(stop.tool_call_id, stop.name);
    const target: FunctionCallRecord = call ?? { kind: 'function_call' };
    if (!call) {
      if (stop.tool_call_id !== undefined) target.tool_call_id = stop.tool_call_id;
      if (stop.name !== undefined) target.name = stop.name;
      this.current().reply.push(target);
    }
    if (stop.result !== undefined) target.result = structuredClone(stop.result);
    if (stop.cancelled !== undefined) target.cancelled = stop.cancelled;
  }

  /** An immutable copy of the conversation as it stands. */
  snapshot(): Conversation {
    const exchanges: Exchange[] = this.exchanges.map((e) => {
      const copy: Exchange = { reply: Object.freeze(e.reply.map((item) => Object.freeze(structuredClone(item)))) };
      if (e.user) (copy as { user?: UserInput }).user = Object.freeze({ ...e.user });
      return Object.freeze(copy);
    });
    return Object.freeze({ modality: this.modality, exchanges: Object.freeze(exchanges) });
  }

  private current(): MutableExchange {
    let last = this.exchanges[this.exchanges.length - 1];
    if (!last) {
      // The bot spoke before any user input: a greeting opens the conversation.
      last = { reply: [] };
      this.exchanges.push(last);
    }
    return last;
  }

  private findOpenCall(id: string | undefined, name: string | undefined): FunctionCallRecord | undefined {
    for (let i = this.exchanges.length - 1; i >= 0; i--) {
      const reply = this.exchanges[i].reply;
      for (let j = reply.length - 1; j >= 0; j--) {
        const item = reply[j];
        if (item.kind !== 'function_call') continue;
        if (id !== undefined ? item.tool_call_id === id : item.name === name && !isClosed(item)) return item;
      }
    }
    return undefined;
  }
}

function isClosed(call: FunctionCallRecord): boolean {
  return call.result !== undefined || call.cancelled !== undefined;
}

/** The reply the criterion applies to: the last exchange's. */
export function latestReply(conversation: Conversation): readonly ReplyItem[] {
  return conversation.exchanges[conversation.exchanges.length - 1]?.reply ?? [];
}

/** The latest reply's text segments joined with spaces (what `text_contains` would see). */
export function latestReplyText(conversation: Conversation): string {
  return latestReply(conversation)
    .flatMap((item) => (item.kind === 'segment' ? [item.text.trim()] : []))
    .join(' ');
}
