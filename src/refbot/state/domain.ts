/** What a reference-bot tool domain is made of (tools.ts holds the table of domains). */
import type { JsonValue } from '../brain/brain.js';

/** What a tool or an init function acts on: the connection's `shared_state` (the database under `db`). */
export type DomainState = Record<string, unknown>;

export type ToolArgs = { readonly [key: string]: JsonValue };

export interface ToolOutcome {
  /** What the tool returns to the LLM (reported as the call's result). */
  result: JsonValue;
  /** The record it adds to the summary's `actions` (NeMo: what `ACTION_MATCH` compares), if any. */
  action?: Record<string, unknown>;
}

/** A function an `initialization_actions` record names; throws `InitFunctionError` when it cannot apply. */
export type InitFunction = (state: DomainState, args: Record<string, unknown>) => void;

export interface RefbotDomain {
  tools: Readonly<Record<string, (state: DomainState, args: ToolArgs) => ToolOutcome>>;
  initFunctions: Readonly<Record<string, InitFunction>>;
}

/** An init function's arguments or the state it needs are wrong. */
export class InitFunctionError extends Error {
  constructor(
    readonly funcName: string,
    readonly detail: string,
  ) {
    super(`${funcName}: ${detail}`);
    this.name = 'InitFunctionError';
  }
}
