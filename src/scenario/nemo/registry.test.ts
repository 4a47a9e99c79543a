import { afterEach, describe, expect, it } from 'vitest';
import { PizzaPepperoni, RestaurantBase } from './nemo.testutil.js';
import { registerDbStatePredicate } from './predicates.js';
import { clearEvalScenarios, domainOf, listEvalScenarios, matchesDomain, registerEvalScenario } from './registry.js';
import { EvalScenario } from './scenario.js';
import { ScenarioDefinitionError } from './errors.js';
import { SuccessSignal, type Persona, type Task } from './types.js';

afterEach(() => clearEvalScenarios());

const THIS_FILE = /registry\.test\.ts$/;

/** The definition error a registration throws (fails the test when it does not throw). */
function refusal(register: () => unknown): ScenarioDefinitionError {
  try {
    register();
  } catch (err) {
    expect(err).toBeInstanceOf(ScenarioDefinitionError);
    return err as ScenarioDefinitionError;
  }
  throw new Error('expected a ScenarioDefinitionError');
}

abstract class Caller extends EvalScenario {
  override get userPersona(): Persona {
    return { role: 'caller' };
  }
  override get userTask(): Task {
    return { goal: 'get help' };
  }
}

describe('registerEvalScenario', () => {
  it('registers a concrete class, as a call, and keeps its call site', () => {
    const line = new Error().stack?.split('\n')[1]?.match(/:(\d+):\d+\)?$/)?.[1];
    const cls = registerEvalScenario(class extends PizzaPepperoni {});
    const [entry] = listEvalScenarios();
    expect(entry.name).toBe('restaurant__pizza_pepperoni');
    expect(entry.group).toBe('restaurant');
    expect(entry.cls).toBe(cls);
    expect(entry.where.file).toMatch(THIS_FILE);
    expect(entry.where.line).toBe(Number(line) + 1);
  });

  it('refuses a class without a name, at the call site (a domain base is abstract and never registered)', () => {
    const e = refusal(() => registerEvalScenario(class Nameless extends RestaurantBase {}));
    expect(e.location.file).toMatch(THIS_FILE);
    expect(e.message).toMatch(/registry\.test\.ts:\d+:\d+: scenario Nameless: no name/);
    expect(e.exitCode).toBe(2);
  });

  it('refuses an empty whitelist, a value that is no member, and a missing one at run time', () => {
    class Empty extends Caller {
      override name = 'x__empty';
      readonly successSignals = [] as const;
    }
    expect(refusal(() => registerEvalScenario(Empty)).reason).toMatch(/successSignals is empty/);
    class Bad extends Caller {
      override name = 'x__bad';
      readonly successSignals = ['CLEAN_EXIT' as SuccessSignal];
    }
    expect(refusal(() => registerEvalScenario(Bad)).reason).toMatch(/write SuccessSignal\.CLEAN_EXIT/);
    // A class TypeScript would refuse (see nemo-types.test.ts), as JavaScript can write it.
    const Concrete = Caller as unknown as new () => { name?: string };
    const Missing = class extends Concrete {
      override name = 'x__missing';
    };
    expect(refusal(() => registerEvalScenario(Missing as unknown as typeof Empty)).reason).toMatch(/no successSignals/);
  });

  it('refuses a whitelisted signal with nothing to compute it from', () => {
    class NoData extends Caller {
      override name = 'x__nodata';
      readonly successSignals = [
        SuccessSignal.ACTION_MATCH,
        SuccessSignal.DB_STATE_MATCH,
        SuccessSignal.DB_STATE_ASSERTION,
        SuccessSignal.NL_ASSERTION,
      ];
    }
    const reason = refusal(() => registerEvalScenario(NoData)).reason;
    expect(reason).toMatch(/ACTION_MATCH is whitelisted but there is no referenceAnswer/);
    expect(reason).toMatch(/DB_STATE_MATCH is whitelisted but there is no expectedScenarioDb/);
    expect(reason).toMatch(/DB_STATE_ASSERTION is whitelisted but dbStateAssertions is empty/);
    expect(reason).toMatch(/NL_ASSERTION is whitelisted but nlAssertions is empty/);
  });

  it('refuses an assertion naming an unregistered predicate, and takes a registered one', () => {
    class Asserting extends Caller {
      override name = 'x__asserting';
      override domain = 'shop';
      readonly successSignals = [SuccessSignal.DB_STATE_ASSERTION];
      override dbStateAssertions = [
        { side: 'agent' as const, func_name: 'order_count', arguments: {}, assert_value: 1 },
      ];
    }
    expect(refusal(() => registerEvalScenario(Asserting)).reason).toMatch(
      /no predicate 'order_count' in domain 'shop'/,
    );
    registerDbStatePredicate('shop', 'order_count', (db) => (db.orders as unknown[]).length);
    expect(() => registerEvalScenario(Asserting)).not.toThrow();
  });

  it("refuses user-side state: earshot's caller is no bot", () => {
    class UserSide extends Caller {
      override name = 'x__userside';
      readonly successSignals = [SuccessSignal.CLEAN_EXIT];
      override expectedUserDb = { a: 1 };
      override initializationActions = [{ side: 'user' as const, func_name: 'f', arguments: {} }];
      override get userResources() {
        return { tools: { ToggleAirplaneMode: {} } };
      }
    }
    const reason = refusal(() => registerEvalScenario(UserSide)).reason;
    expect(reason).toMatch(/expectedUserDb is set: earshot's simulated caller is an LLM persona, not a bot/);
    expect(reason).toMatch(/initializationActions\[0\] has side 'user'/);
    expect(reason).toMatch(/userResources\.tools is set \(ToggleAirplaneMode\)/);
  });

  it('refuses a duplicate name from another class, and takes the same statement evaluated again', () => {
    const again = (): unknown => registerEvalScenario(class extends PizzaPepperoni {});
    again();
    again();
    expect(listEvalScenarios()).toHaveLength(1);
    const e = refusal(() => registerEvalScenario(class Other extends PizzaPepperoni {}));
    expect(e.reason).toMatch(/duplicate name 'restaurant__pizza_pepperoni'/);
  });

  it('works as a standard class decorator (the function a decorator is called with)', () => {
    const decorate = registerEvalScenario as (c: unknown, ctx: { kind: 'class' }) => unknown;
    class Decorated extends PizzaPepperoni {
      override name = 'restaurant__decorated';
    }
    expect(decorate(Decorated, { kind: 'class' })).toBe(Decorated);
    expect(listEvalScenarios().map((e) => e.name)).toEqual(['restaurant__decorated']);
  });

  it('a getter-derived whitelist (the retail pattern) and an outlier tuple shadowing the base', () => {
    abstract class Retail extends Caller {
      override domain = 'retail';
      get successSignals(): readonly SuccessSignal[] {
        return this.nlAssertions?.length
          ? [SuccessSignal.JUDGE_PASSED, SuccessSignal.NL_ASSERTION, SuccessSignal.CLEAN_EXIT]
          : [SuccessSignal.JUDGE_PASSED, SuccessSignal.CLEAN_EXIT];
      }
    }
    class Plain extends Retail {
      override name = 'retail__plain';
    }
    class WithClaims extends Retail {
      override name = 'retail__claims';
      override nlAssertions = ['The agent confirmed the refund.'];
    }
    class Outlier extends Caller {
      override name = 'retail__outlier';
      readonly successSignals = [SuccessSignal.CLEAN_EXIT];
    }
    for (const c of [Plain, WithClaims, Outlier]) registerEvalScenario(c);
    const signals = Object.fromEntries(listEvalScenarios().map((e) => [e.name, e.scenario.successSignals]));
    expect(signals).toEqual({
      retail__plain: ['judge_passed', 'clean_exit'],
      retail__claims: ['judge_passed', 'nl_assertion', 'clean_exit'],
      retail__outlier: ['clean_exit'],
    });
  });

  it('shares one registry per process through globalThis (a second copy of earshot registers into it)', () => {
    registerEvalScenario(class extends PizzaPepperoni {});
    const table = (globalThis as unknown as Record<symbol, { entries: Map<string, unknown> }>)[
      Symbol.for('earshot.nemo.registry')
    ];
    expect([...table.entries.keys()]).toEqual(['restaurant__pizza_pepperoni']);
  });
});

describe('domains', () => {
  it('a domain is the name prefix before __, legacy without one', () => {
    expect(domainOf('tau2_telecom_workflow__3')).toBe('tau2_telecom_workflow');
    expect(domainOf('greeting')).toBe('legacy');
  });

  it('--domain tau2_telecom excludes tau2_telecom_workflow__x', () => {
    expect(matchesDomain('tau2_telecom__1', 'tau2_telecom')).toBe(true);
    expect(matchesDomain('tau2_telecom_workflow__1', 'tau2_telecom')).toBe(false);
    expect(matchesDomain('tau2_telecom_workflow__1', 'tau2_telecom_workflow')).toBe(true);
    expect(matchesDomain('greeting', 'legacy')).toBe(true);
  });
});
