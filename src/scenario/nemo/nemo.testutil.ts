import { EvalScenario } from './scenario.js';
import { SuccessSignal, type Actions, type Persona, type Resources, type Task } from './types.js';

/** The anchor's worked example (NeMo's `PizzaPepperoni` on `RestaurantBaseScenario`), in earshot's TS API. */
export const PIZZA_PALACE_MENU = { 'Pepperoni Pizza': '9.99', 'Margherita Pizza': '8.99', 'Extra Cheese': '1.50' };

export const PIZZA_REFERENCE = {
  items: [
    { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: '1' },
    { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
  ],
  customer_name: 'Charlie',
  customer_phone: '314-527-8960',
  total_price: '11.49',
};

export abstract class RestaurantBase extends EvalScenario {
  override domain = 'restaurant';
  override maxDuration = 120;
  override ignoreCapitalization = true;
  readonly successSignals: readonly SuccessSignal[] = [SuccessSignal.ACTION_MATCH, SuccessSignal.CLEAN_EXIT];
  override get agentPersona(): Persona {
    return { role: 'restaurant order-taking agent', name: 'Pizza Palace' };
  }
  override get agentTask(): Task {
    return { goal: "Take the customer's order accurately and place it." };
  }
  override setupSharedState(state: Record<string, unknown>, side: 'user' | 'agent'): void {
    if (side === 'agent') state.db_path = `${this.domain}/db.json`;
  }
}

export class PizzaPepperoni extends RestaurantBase {
  override name = 'restaurant__pizza_pepperoni';
  override description = 'Order a pepperoni pizza with extra cheese at Pizza Palace';
  override referenceAnswer = PIZZA_REFERENCE;
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
      info_sections: { Hours: ['Open 11 to 23.'] },
    };
  }
}
