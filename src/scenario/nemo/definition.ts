import { dbStatePredicate } from './predicates.js';
import type { EvalScenario } from './scenario.js';
import { SUCCESS_SIGNALS, SuccessSignal, type SuccessSignalName } from './types.js';

/**
 * What makes a NeMo scenario unrunnable, decided when it is registered (NeMo raises at class definition for a missing
 * whitelist; earshot goes further: a whitelisted signal with nothing to compute it from is an error there too, never a
 * silent N/A at the end of a run). Each problem is one sentence; the registry locates them.
 */

const NO_BOT = "earshot's simulated caller is an LLM persona, not a bot: it holds no state and runs no tools, so";

/** The problems of one instance, in a stable order; empty when it can run. */
export function definitionProblems(s: EvalScenario): string[] {
  const problems: string[] = [];
  const read = <T>(what: string, get: () => T): T | undefined => {
    try {
      return get();
    } catch (err) {
      problems.push(`${what} threw: ${(err as Error)?.message ?? String(err)}`);
      return undefined;
    }
  };
  if (typeof s.name !== 'string' || s.name.trim() === '')
    problems.push(
      'no name: a registered scenario needs `name` (`<domain>__<id>`); a domain base class is declared ' +
        '`abstract` and is not registered',
    );
  const signals = read('successSignals', () => s.successSignals);
  problems.push(...signalProblems(signals));
  const user = read('userPersona', () => s.userPersona);
  if (!user || typeof user.role !== 'string' || user.role.trim() === '')
    problems.push('userPersona needs a `role` (the simulated caller is built from it)');
  const task = read('userTask', () => s.userTask);
  if (!task || typeof task.goal !== 'string' || task.goal.trim() === '')
    problems.push('userTask needs a `goal` (what the simulated caller wants)');
  if (Array.isArray(signals)) problems.push(...dataProblems(s, signals));
  problems.push(...userSideProblems(s, read('userResources', () => s.userResources)?.tools));
  if (!(typeof s.maxDuration === 'number' && s.maxDuration > 0))
    problems.push(`maxDuration must be a number of seconds above 0, got ${String(s.maxDuration)}`);
  return problems;
}

function signalProblems(signals: unknown): string[] {
  if (signals === undefined || signals === null)
    return ['no successSignals: every concrete scenario declares its whitelist (e.g. [SuccessSignal.CLEAN_EXIT])'];
  if (!Array.isArray(signals)) return [`successSignals must be a list of SuccessSignal members, got ${typeof signals}`];
  if (signals.length === 0)
    return ['successSignals is empty: the whitelist must name at least one signal (CLEAN_EXIT, at least)'];
  const names = Object.keys(SuccessSignal) as SuccessSignalName[];
  return signals.flatMap((v: unknown) => {
    if ((SUCCESS_SIGNALS as readonly unknown[]).includes(v)) return [];
    const member = typeof v === 'string' && (names as string[]).includes(v) ? `SuccessSignal.${v}` : undefined;
    return [
      `successSignals: ${JSON.stringify(v)} is not a SuccessSignal member` +
        (member ? `; write ${member} (its value is the metric key)` : ` (members: ${names.join(', ')})`),
    ];
  });
}

/** A whitelisted signal needs its data; NeMo would score it N/A, earshot refuses to run it. */
function dataProblems(s: EvalScenario, signals: readonly unknown[]): string[] {
  const problems: string[] = [];
  const has = (signal: string): boolean => signals.includes(signal);
  if (has(SuccessSignal.ACTION_MATCH) && s.referenceAnswer === undefined)
    problems.push('ACTION_MATCH is whitelisted but there is no referenceAnswer to match the actions against');
  if (
    has(SuccessSignal.DB_STATE_MATCH) &&
    (s.expectedScenarioDb === null || typeof s.expectedScenarioDb !== 'object' || Array.isArray(s.expectedScenarioDb))
  )
    problems.push('DB_STATE_MATCH is whitelisted but there is no expectedScenarioDb (the gold end-state DB)');
  const assertions = s.dbStateAssertions ?? [];
  if (has(SuccessSignal.DB_STATE_ASSERTION) && assertions.length === 0)
    problems.push('DB_STATE_ASSERTION is whitelisted but dbStateAssertions is empty');
  assertions.forEach((a, i) => {
    if (a?.side !== 'user' && (typeof a?.func_name !== 'string' || !dbStatePredicate(s.domain, a.func_name)))
      problems.push(
        `dbStateAssertions[${i}]: no predicate '${String(a?.func_name)}' in domain '${s.domain}' or 'default' ` +
          '(register it with registerDbStatePredicate before the scenario is defined)',
      );
  });
  if (has(SuccessSignal.NL_ASSERTION) && (s.nlAssertions ?? []).length === 0)
    problems.push('NL_ASSERTION is whitelisted but nlAssertions is empty');
  return problems;
}

function userSideProblems(s: EvalScenario, userTools: Record<string, unknown> | undefined): string[] {
  const problems: string[] = [];
  if (s.expectedUserDb !== undefined) problems.push(`expectedUserDb is set: ${NO_BOT} it has no user-side DB to check`);
  (s.dbStateAssertions ?? []).forEach((a, i) => {
    if (a?.side === 'user')
      problems.push(`dbStateAssertions[${i}] has side 'user': ${NO_BOT} it has no DB to assert on`);
    else if (a?.side !== 'agent') problems.push(`dbStateAssertions[${i}].side must be 'agent', got ${String(a?.side)}`);
  });
  (s.initializationActions ?? []).forEach((a, i) => {
    if (a?.side === 'user')
      problems.push(`initializationActions[${i}] has side 'user': ${NO_BOT} nothing on the user side can be seeded`);
    else if (a?.side !== 'agent')
      problems.push(`initializationActions[${i}].side must be 'agent', got ${String(a?.side)}`);
  });
  if (userTools && Object.keys(userTools).length > 0)
    problems.push(`userResources.tools is set (${Object.keys(userTools).join(', ')}): ${NO_BOT} it cannot call them`);
  return problems;
}
