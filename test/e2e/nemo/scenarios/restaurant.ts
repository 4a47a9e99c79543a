import {
  EvalScenario,
  registerDbStatePredicate,
  registerEvalScenario,
  SuccessSignal,
  type Actions,
  type DbStateAssertion,
  type InitializationAction,
  type NemoSide,
  type Persona,
  type Resources,
  type Task,
} from '../../../../src/scenario/index.js';
import { CHARLIE_ORDER, dbWithOrder, PIZZA_PALACE_MENU, type OrderRecord } from './restaurant-data.js';

/**
 * NeMo's worked example (`../shared/anchors/nemo-authoring-scenarios.md`, "Worked Example") in earshot's TypeScript
 * API, nearly line for line, with the domain base it inherits from and the variants the end-to-end tests break it
 * with. The reference bot plays the agent side with `fixtures/nemo/restaurant/brain.yaml`; its DB starts as
 * `fixtures/nemo/restaurant/db.json` (restaurant-data.ts). Loaded through earshot's module loader (tsx) by
 * test/e2e/nemo/pizza.e2e.test.ts and by `earshot run --allow-code` in nemo-cli.e2e.test.ts.
 */

/** A domain predicate for DB_STATE_ASSERTION (registered harness-side, as NeMo's are). */
registerDbStatePredicate('restaurant', 'order_total', (db, args) => {
  const orders = Array.isArray(db.orders) ? (db.orders as Array<Record<string, unknown>>) : [];
  const name = String(args.customer_name ?? '');
  return orders.find((o) => o.customer_name === name)?.total_price ?? null;
});

/** The restaurant domain's defaults; not registered (it has no name). */
export abstract class RestaurantBaseScenario extends EvalScenario {
  override domain = 'restaurant';
  override maxDuration = 60;
  override ignoreCapitalization = true;
  override ignorePunctuation = true;
  override cleanText = true;

  override get successSignals(): readonly SuccessSignal[] {
    return [SuccessSignal.ACTION_MATCH, SuccessSignal.DB_STATE_MATCH, SuccessSignal.CLEAN_EXIT];
  }

  override get agentPersona(): Persona {
    return { role: 'restaurant order assistant', name: 'Pizza Palace assistant' };
  }

  override get agentTask(): Task {
    return { goal: "Take the customer's pizza order, place it, and end the call politely." };
  }

  override get agentResources(): Resources {
    return {
      tools: { GetMenuTool: { menu: PIZZA_PALACE_MENU }, PlaceOrderTool: {}, EndConversationTool: {} },
    };
  }

  // A getter, NeMo's `cached_property`: each scenario gets a fresh copy.
  override get expectedScenarioDb(): Record<string, unknown> | undefined {
    return dbWithOrder(CHARLIE_ORDER);
  }

  override setupSharedState(state: Record<string, unknown>, side: NemoSide): void {
    if (side === 'agent') state.db_path = `${this.domain}/db.json`;
  }
}

/** Order a pepperoni pizza with extra cheese at Pizza Palace. */
@registerEvalScenario
export class PizzaPepperoni extends RestaurantBaseScenario {
  override name = 'restaurant__pizza_pepperoni';
  override description = 'Order a pepperoni pizza with extra cheese at Pizza Palace';
  override referenceAnswer: unknown = {
    items: [
      { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: '1' },
      { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
    ],
    customer_name: 'Charlie',
    customer_phone: '314-527-8960',
    total_price: '11.49',
  };

  override get userPersona(): Persona {
    return {
      role: 'human user',
      name: 'Charlie',
      background: 'You are a graphic designer. Your phone number is 314-527-8960.',
      personality: 'Communicative and positive, with clear needs and prompt decision-making.',
    };
  }

  override get userTask(): Task {
    return {
      goal: 'Order a pepperoni pizza with extra cheese.',
      background: 'You are hungry after work and just walked into Pizza Palace.',
    };
  }

  override get userActions(): Actions {
    return {
      instructions: [
        'Ask the agent what pizza options are available.',
        'Order one pepperoni pizza.',
        'Ask if you can add extra cheese, and add it to the order.',
        'Confirm the order and ask for the total price.',
      ],
      guidelines: ['Provide your name and phone number when asked.'],
    };
  }

  override get agentActions(): Actions {
    return {
      instructions: [
        'Greet the user and ask what they would like to order.',
        'Summarize the order and confirm it is correct.',
        "Ask for the user's name and phone number.",
        'Place the order with the `PlaceOrderTool` tool and confirm it succeeded.',
        'Say goodbye and call the `EndConversationTool` tool.',
      ],
      guidelines: ['Do not make up any items that are not on the menu.'],
    };
  }

  override get agentResources(): Resources {
    return {
      tools: {
        GetMenuTool: { menu: PIZZA_PALACE_MENU },
        PlaceOrderTool: { auto_validate: 'False' },
        EndConversationTool: {},
      },
      information: ['You can use the `GetMenuTool` tool to retrieve the restaurant menu.'],
    };
  }
}

/** Broken: the reference answer names a Cheese Pizza; the bot still takes a pepperoni one. Only ACTION_MATCH fails. */
registerEvalScenario(
  class PizzaWrongItem extends PizzaPepperoni {
    override name = 'restaurant__pizza_wrong_item';
    override description = 'Broken: the reference answer names a Cheese Pizza';
    override referenceAnswer: unknown = {
      ...CHARLIE_ORDER,
      items: [
        { name: 'Cheese Pizza', unit_price: '9.99', quantity: '1' },
        { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
      ],
    };
  },
);

/** Broken: the gold end state has another phone number. Only DB_STATE_MATCH fails. */
registerEvalScenario(
  class PizzaWrongEndState extends PizzaPepperoni {
    override name = 'restaurant__pizza_wrong_end_state';
    override description = 'Broken: the gold end state has another phone number';
    override get expectedScenarioDb(): Record<string, unknown> | undefined {
      return dbWithOrder({ ...CHARLIE_ORDER, customer_phone: '314-527-0000' });
    }
  },
);

/** Broken: the caller hangs up on hearing the total, so the bot never calls EndConversationTool (CLEAN_EXIT fails). */
registerEvalScenario(
  class PizzaNoGoodbye extends PizzaPepperoni {
    override name = 'restaurant__pizza_no_goodbye';
    override description = 'Broken: the caller hangs up before the bot ends the call';
    override get userActions(): Actions {
      const base = super.userActions;
      return { ...base, guidelines: [...(base.guidelines ?? []), 'Hang up as soon as you hear the total price.'] };
    }
  },
);

const PRICIER: OrderRecord = {
  ...CHARLIE_ORDER,
  items: [
    { name: 'Pepperoni Pizza', unit_price: '10.99', quantity: '1' },
    { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
  ],
  total_price: '12.49',
};

/** Seeded bot-side: the pepperoni pizza costs 10.99 today, so the order totals 12.49. */
registerEvalScenario(
  class PizzaPriceChange extends PizzaPepperoni {
    override name = 'restaurant__pizza_price_change';
    override description = 'Seeded: the pepperoni pizza costs 10.99';
    override initializationActions: InitializationAction[] = [
      { side: 'agent', func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } },
    ];
    override referenceAnswer: unknown = PRICIER;
    override get expectedScenarioDb(): Record<string, unknown> | undefined {
      return dbWithOrder(PRICIER, (db) => {
        (db.menu as Record<string, unknown>)['Pepperoni Pizza'] = '10.99';
      });
    }
  },
);

/** The end state checked by predicates instead of a hash: one order, Charlie's, 11.49. */
export const DB_ASSERTIONS: DbStateAssertion[] = [
  {
    side: 'agent',
    func_name: 'count_at',
    arguments: { path: 'orders' },
    assert_value: 1,
    message: 'one order was placed',
  },
  {
    side: 'agent',
    func_name: 'order_total',
    arguments: { customer_name: 'Charlie' },
    assert_value: '11.49',
    message: "Charlie's order totals 11.49",
  },
];

registerEvalScenario(
  class PizzaDbAssertions extends PizzaPepperoni {
    override name = 'restaurant__pizza_db_assertions';
    override description = 'The end state checked by predicates';
    override get successSignals(): readonly SuccessSignal[] {
      return [SuccessSignal.DB_STATE_ASSERTION, SuccessSignal.CLEAN_EXIT];
    }
    override dbStateAssertions: DbStateAssertion[] = DB_ASSERTIONS;
  },
);

registerEvalScenario(
  class PizzaDbAssertionsFail extends PizzaPepperoni {
    override name = 'restaurant__pizza_db_assertions_fail';
    override description = 'The end state checked by predicates, one of them wrong';
    override get successSignals(): readonly SuccessSignal[] {
      return [SuccessSignal.DB_STATE_ASSERTION, SuccessSignal.CLEAN_EXIT];
    }
    override dbStateAssertions: DbStateAssertion[] = [
      DB_ASSERTIONS[0],
      {
        side: 'agent',
        func_name: 'order_total',
        arguments: { customer_name: 'Charlie' },
        assert_value: '9.99',
        message: "Charlie's order totals 9.99",
      },
    ];
  },
);

/** Claims about the call, each judged on its own (NL_ASSERTION), instead of the reference answer. */
registerEvalScenario(
  class PizzaClaims extends PizzaPepperoni {
    override name = 'restaurant__pizza_claims';
    override description = 'Claims about the call, judged one by one';
    override get successSignals(): readonly SuccessSignal[] {
      return [SuccessSignal.NL_ASSERTION, SuccessSignal.CLEAN_EXIT];
    }
    override nlAssertions = ['The bot told the caller the total price.', 'The bot offered the caller a discount.'];
  },
);

/** Free-form: only the judge decides (NeMo's `qa` pattern); a judge with no usable score makes it N/A. */
registerEvalScenario(
  class PizzaJudgeOnly extends PizzaPepperoni {
    override name = 'restaurant__pizza_judge_only';
    override description = 'Only the judge decides';
    override get successSignals(): readonly SuccessSignal[] {
      return [SuccessSignal.JUDGE_PASSED];
    }
  },
);

/** A data root the bot cannot load: `apply_initialization` fails, and the run is an error, never scored. */
registerEvalScenario(
  class PizzaBadDbPath extends PizzaPepperoni {
    override name = 'restaurant__pizza_bad_db_path';
    override description = 'Broken: a db_path outside the data root';
    override setupSharedState(state: Record<string, unknown>, side: NemoSide): void {
      if (side === 'agent') state.db_path = '../../package.json';
    }
  },
);

/** Forgot to seed the DB: the bot takes the call with no database, so it reports no `db_hash` (false, never N/A). */
registerEvalScenario(
  class PizzaNoDbSeeded extends PizzaPepperoni {
    override name = 'restaurant__pizza_no_db_seeded';
    override description = 'Broken: no DB seeded';
    override setupSharedState(): void {
      // Nothing seeded: the author's mistake this variant stands for.
    }
  },
);
