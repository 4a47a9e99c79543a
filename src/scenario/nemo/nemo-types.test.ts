import { describe, expect, it } from 'vitest';
import { clearEvalScenarios, registerEvalScenario } from './registry.js';
import { EvalScenario } from './scenario.js';
import { SuccessSignal, type Persona, type Task } from './types.js';

/**
 * What TypeScript says of a scenario class. The `@ts-expect-error` lines are checked by `npm run typecheck` (this file
 * is under tsconfig.test.json): if a concrete class without `successSignals` ever compiled, the directive itself would
 * be the error. At run time the same class is a definition error (registry.test.ts).
 */

abstract class Base extends EvalScenario {
  override get userPersona(): Persona {
    return { role: 'caller' };
  }
  override get userTask(): Task {
    return { goal: 'get help' };
  }
}

// @ts-expect-error: a concrete scenario must declare successSignals (abstract on EvalScenario)
class NoSignals extends Base {
  override name = 'types__no_signals';
}

class WithSignals extends Base {
  override name = 'types__with_signals';
  readonly successSignals = [SuccessSignal.CLEAN_EXIT];
}

class WrongSignals extends Base {
  override name = 'types__wrong';
  // @ts-expect-error: a signal is a SuccessSignal member, not its name
  readonly successSignals = ['CLEAN_EXIT'];
}

describe('scenario class types', () => {
  it('the class TypeScript refuses is refused at registration too', () => {
    expect(() => registerEvalScenario(NoSignals)).toThrow(/no successSignals/);
    expect(() => registerEvalScenario(WrongSignals as unknown as typeof WithSignals)).toThrow(
      /is not a SuccessSignal member/,
    );
    expect(registerEvalScenario(WithSignals)).toBe(WithSignals);
    clearEvalScenarios();
  });
});
