import type { NemoOutcome, NemoSignalValue } from '../../results/nemo.js';
import { strictAnd, type SignalValues } from '../../scenario/nemo/scenario.js';
import { SuccessSignal, type NemoSpec } from '../../scenario/nemo/types.js';

/**
 * The composite verdict over the computed signals, NeMo's Scoring model: the whitelist (`success_signals`) gates it,
 * a strict AND over the whitelisted signals that produced a value (or the scenario's own `computeIsSuccessful`),
 * `'N/A'` when none did. Signals outside the whitelist are kept under `excluded`, never deciding. A run with fewer
 * agent turns than `--min-agent-turns` is a failure whatever its signals say: a scenario that never started is a
 * defect, not an exclusion.
 */

export interface VerdictInput {
  nemo: Pick<NemoSpec, 'success_signals' | 'compute'>;
  signals: readonly NemoSignalValue[];
  agentTurns: number;
  /** 0: no filter. */
  minAgentTurns: number;
}

export type NemoVerdict = Pick<
  NemoOutcome,
  'is_successful' | 'is_task_successful' | 'success_breakdown' | 'below_min_agent_turns'
>;

function signalMap(signals: readonly NemoSignalValue[]): SignalValues {
  const map: SignalValues = {};
  for (const s of signals) map[s.signal] = s.value;
  return map;
}

export function nemoVerdict(input: VerdictInput): NemoVerdict {
  const whitelist = input.nemo.success_signals;
  const map = signalMap(input.signals);
  const breakdown: NemoOutcome['success_breakdown'] = { passed: [], failed: [], not_applicable: [], excluded: [] };
  for (const s of whitelist) {
    const v = map[s];
    if (v === true) breakdown.passed.push(s);
    else if (v === false) breakdown.failed.push(s);
    else breakdown.not_applicable.push(s);
  }
  for (const s of input.signals) if (!whitelist.includes(s.signal)) breakdown.excluded.push(s.signal);

  const withoutExit = (m: SignalValues): SignalValues => {
    const { [SuccessSignal.CLEAN_EXIT]: _exit, ...rest } = m;
    return rest;
  };
  const task = whitelist.filter((s) => s !== SuccessSignal.CLEAN_EXIT);
  const compute = input.nemo.compute;
  let isSuccessful = compute ? compute(map) : strictAnd(whitelist, map);
  let isTaskSuccessful = compute ? compute(withoutExit(map)) : strictAnd(task, map);
  const below = input.minAgentTurns > 0 && input.agentTurns < input.minAgentTurns;
  if (below) {
    isSuccessful = false;
    isTaskSuccessful = false;
  }
  return {
    is_successful: isSuccessful,
    is_task_successful: isTaskSuccessful,
    success_breakdown: breakdown,
    below_min_agent_turns: below,
  };
}
