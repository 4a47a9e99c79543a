import { dbHash } from '../../core/db-hash.js';
import type { EarshotEvent } from '../../results/events.js';
import { NEMO_EXIT_FUNCTIONS, renderAgentPrompt, type NemoSpec, type Simulation } from '../../scenario/index.js';
import { readBotSummary, type NemoVerdictSettings, type SummaryPull } from '../../simulate/nemo/index.js';
import { nemoStateNeed, type DriverRuntime, type SessionConfig } from '../../session/index.js';

/**
 * The two wire steps a NeMo scenario adds around the conversation (NeMo's RTVI control plane): before it, the agent
 * side goes to the bot (`update_system_prompt`) and its state is seeded (`apply_initialization`, sent every scenario as
 * NeMo does); after it, while the socket is still open, `get_scenario_summary` reads back the recorded actions and the
 * DB's hash. A seeding the bot rejects stops the run (NeMo aborts rather than score a half-seeded state); a bot
 * without the control plane is only a note unless the scenario's signals need its state.
 */

export type SeedOutcome = { ok: true } | { ok: false; reason: string };

function agentInitActions(nemo: NemoSpec): Array<{ func_name: string; arguments: Record<string, unknown> }> {
  return (nemo.initialization_actions ?? [])
    .filter((a) => a.side === 'agent')
    .map((a) => ({ func_name: a.func_name, arguments: a.arguments }));
}

export async function seedBotState(rt: DriverRuntime, sim: Simulation): Promise<SeedOutcome> {
  const nemo = sim.nemo;
  if (!nemo) return { ok: true };
  // No RTVI, nothing to ask (each request would only wait out its deadline). The wire check refuses a scenario that
  // needs the bot's state on such a bot before connecting; the need is checked again so no caller can skip it.
  if (rt.config.handshake === 'none') {
    const need = nemoStateNeed(nemo);
    if (need) return { ok: false, reason: `the bot has no RTVI (--handshake none); ${need.why}` };
    rt.log('bot state: not seeded: the bot has no RTVI (--handshake none)');
    return { ok: true };
  }
  const prompt = await rt.control.request('update_system_prompt', {
    prompt: renderAgentPrompt(nemo.agent),
    tools: JSON.stringify(nemo.agent.resources?.tools ?? {}),
    add_suffix: true,
    tool_domain: nemo.domain,
  });
  if (!prompt.ok)
    rt.log(`bot state: agent side not sent: the bot does not take update_system_prompt (${prompt.error})`);
  const init = await rt.control.request('apply_initialization', {
    domain: nemo.domain,
    shared_state_init: JSON.stringify(nemo.shared_state_init.agent),
    actions: agentInitActions(nemo),
  });
  if (!init.ok) {
    const why = `apply_initialization got no answer: ${init.error}`;
    const need = nemoStateNeed(nemo);
    if (need) return { ok: false, reason: `${why}; ${need.why}` };
    rt.log(`bot state: ${why} (the scenario needs no bot state: going on)`);
    return { ok: true };
  }
  const d = init.d as { success?: unknown; errors?: unknown } | null;
  if (typeof d !== 'object' || d === null || typeof d.success !== 'boolean')
    return { ok: false, reason: 'apply_initialization answered without a boolean `success`' };
  if (!d.success) {
    const errors = Array.isArray(d.errors) ? d.errors.map(String).join('; ') : 'no errors given';
    return { ok: false, reason: `the bot failed apply_initialization: ${errors}` };
  }
  rt.log(`bot state: seeded (domain ${nemo.domain}, ${agentInitActions(nemo).length} initialization action(s))`);
  return { ok: true };
}

/** The summary, while the socket is open; on a hash mismatch a second pull with the DB, for the diff in the reason. */
export async function pullSummary(rt: DriverRuntime, sim: Simulation): Promise<SummaryPull> {
  const nemo = sim.nemo;
  if (!nemo) return {};
  if (rt.config.handshake === 'none') {
    rt.log('bot state: no summary asked: the bot has no RTVI (--handshake none)');
    return { error: 'no RTVI (--handshake none)' };
  }
  const includeDb = (nemo.db_state_assertions?.length ?? 0) > 0;
  const answer = await rt.control.request('get_scenario_summary', { include_db: includeDb });
  if (!answer.ok) {
    rt.log(`bot state: no summary: ${answer.error}`);
    return { error: answer.error };
  }
  const summary = readBotSummary(answer.d);
  if (typeof summary === 'string') {
    rt.log(`bot state: unusable summary: ${summary}`);
    return { error: summary };
  }
  rt.log(`bot state: summary: ${summary.actions.length} action(s), db_hash ${summary.db_hash ?? 'null'}`);
  const pull: SummaryPull = { summary };
  const expected = nemo.expected_scenario_db;
  if (expected && summary.db_hash !== null && !summary.db && summary.db_hash !== dbHash(expected)) {
    const again = await rt.control.request('get_scenario_summary', { include_db: true });
    const full = again.ok ? readBotSummary(again.d) : again.error;
    if (typeof full !== 'string' && full.db) pull.diffDb = full.db;
    else rt.log(`bot state: no DB for the diff: ${typeof full === 'string' ? full : 'the bot sent none'}`);
  }
  return pull;
}

/** The exit tool a `function_call` event names (NeMo's `<exit>`), or null. */
export function exitToolCalled(event: EarshotEvent): string | null {
  if (event.name !== 'function_call' || event.function_name === undefined) return null;
  return NEMO_EXIT_FUNCTIONS.includes(event.function_name) ? event.function_name : null;
}

/** The NeMo flags as the session's settings carry them (`--duration`, `--min-agent-turns`, ...). */
export function nemoSettingsOf(config: SessionConfig): NemoVerdictSettings & { durationCapS?: number } {
  const cap = config.durationCapS;
  return {
    minAgentTurns: config.minAgentTurns,
    strictMatch: config.strictMatch,
    judgeThreshold: config.judgeThreshold,
    // 0 or less: no cap (as the runner applies it to the loaded scenarios).
    ...(cap !== undefined && cap > 0 ? { durationCapS: cap } : {}),
  };
}
