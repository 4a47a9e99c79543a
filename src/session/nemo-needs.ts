import type { NemoSpec } from '../scenario/index.js';

/**
 * Why a NeMo scenario needs the bot's own scenario state (NeMo's control plane: `apply_initialization` before the
 * talk, `get_scenario_summary` after it), or null when nothing it scores reads that state: the whitelist decides,
 * not which data the scenario carries (a signal outside it never fails the run). Used before connecting (a bot
 * without RTVI cannot be asked: wire-check.ts) and by the driver (a refused seed is then fatal: bot-state.ts).
 */
export function nemoStateNeed(nemo: NemoSpec): { path: string; why: string } | null {
  const signals = new Set<string>(nemo.success_signals);
  if (signals.has('db_state_match')) return { path: 'success_signals', why: 'DB_STATE_MATCH reads the db_hash' };
  if (signals.has('db_state_assertion'))
    return { path: 'success_signals', why: 'DB_STATE_ASSERTION reads the database' };
  if (signals.has('is_action_match') && nemo.action_source === 'summary')
    return { path: 'success_signals', why: "ACTION_MATCH reads the bot's recorded actions" };
  // Only the agent side's actions go to the bot (apply_initialization's `actions`).
  if (nemo.initialization_actions?.some((a) => a.side === 'agent'))
    return { path: 'initialization_actions', why: 'initialization_actions are replayed bot-side' };
  if (Object.keys(nemo.shared_state_init.agent).length)
    return { path: 'setup_shared_state', why: "setup_shared_state seeds the bot's state" };
  return null;
}
