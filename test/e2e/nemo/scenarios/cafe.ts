import { EvalScenario, registerEvalScenario, SuccessSignal } from '../../../../src/scenario/index.js';

/**
 * A second domain for `earshot run --list` (grouped by the name prefix before `__`) and `--domain`: one scenario,
 * listed, never run. The class is registered by a plain call, as a JavaScript module would.
 */
registerEvalScenario(
  class CafeLatte extends EvalScenario {
    override name = 'cafe__latte';
    override domain = 'cafe';
    override description = 'Order a latte';
    override readonly successSignals = [SuccessSignal.CLEAN_EXIT];
    override get userPersona() {
      return { role: 'coffee drinker', name: 'Dana' };
    }
    override get userTask() {
      return { goal: 'Order one latte.' };
    }
  },
);
