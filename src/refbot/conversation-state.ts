/**
 * Where a connection of the reference bot stands, as one value: which phases
 * exist, and what each allows (sending, taking turns, being interrupted).
 */
import type { ReplyRun } from './reply/reply-run.js';

/**
 * `connecting` until `client-ready` (protocol errors are answered, nothing is
 * a turn); `no-ready` leaves it `muted` for good (it still hears
 * `eval-cancel`, says nothing, takes no turn). Once ready it is `listening`,
 * or `replying` while a reply is in flight (a reply that stopped itself, its
 * speech failing, stays here until its `done` settles, but can no longer be
 * interrupted). `hang-after-turn` leaves it `hung`: nothing sent, everything
 * ignored, the socket open. Shutdown makes it `ended`, from any phase.
 */
export type ConversationState =
  | { phase: 'connecting' }
  | { phase: 'muted' }
  | { phase: 'listening' }
  | { phase: 'replying'; reply: ReplyRun }
  | { phase: 'hung' }
  | { phase: 'ended' };

export type ReadyState = Extract<ConversationState, { phase: 'listening' | 'replying' }>;

/** Whether RTVI messages go out. */
export function sends(state: ConversationState): boolean {
  return state.phase !== 'muted' && state.phase !== 'hung' && state.phase !== 'ended';
}

/** Whether user input becomes a turn: only once bot-ready went out, and neither hung nor ended. */
export function takesTurns(state: ConversationState): state is ReadyState {
  return state.phase === 'listening' || state.phase === 'replying';
}

/** The reply that speech, text or a key would interrupt: one in flight that has not stopped itself. */
export function interruptible(state: ConversationState): ReplyRun | null {
  return state.phase === 'replying' && !state.reply.aborted ? state.reply : null;
}
