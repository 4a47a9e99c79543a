import { EvalScenario, registerEvalScenario } from '../../../../src/scenario/index.js';

/**
 * A concrete scenario that forgot its `successSignals`: TypeScript says so (the expected error below), and so does
 * `registerEvalScenario` when the module is imported, with this file and line, before any bot is reached.
 */
// @ts-expect-error -- the point of this module: a concrete class without the abstract successSignals.
class PizzaWithoutSignals extends EvalScenario {
  override name = 'restaurant__no_signals';
  override get userPersona() {
    return { role: 'human user', name: 'Charlie' };
  }
  override get userTask() {
    return { goal: 'Order a pepperoni pizza.' };
  }
}

registerEvalScenario(PizzaWithoutSignals);
