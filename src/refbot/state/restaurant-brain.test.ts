import { describe, expect, it } from 'vitest';
import { dbHash } from '../../core/db-hash.js';
import { BrainMemory, loadBrain, normalizeText, parseBrain, type Reply } from '../brain/brain.js';
import { ScenarioState } from './shared-state.js';

/**
 * fixtures/nemo/restaurant/brain.yaml playing NeMo's worked example (anchor: nemo-authoring-scenarios.md) against
 * the connection's scenario state: the utterances listed at the top of the brain file.
 */
const brain = loadBrain('fixtures/nemo/restaurant/brain.yaml');

function seeded(actions: unknown[] = []): { memory: BrainMemory; state: ScenarioState } {
  const memory = new BrainMemory();
  const state = new ScenarioState({ dataRoot: 'fixtures/nemo' });
  const init = state.applyInitialization({
    domain: 'restaurant',
    shared_state_init: JSON.stringify({ db_path: 'restaurant/db.json' }),
    actions,
  });
  expect(init).toEqual({ success: true, errors: [] });
  memory.tools = state;
  return { memory, state };
}

const say = (memory: BrainMemory, text: string): Reply => brain.respond({ kind: 'text', text }, memory);

describe('the restaurant brain', () => {
  it('reads the phone number as three digit groups after normalization', () => {
    expect(normalizeText('My name is Charlie and my phone number is 314-527-8960.')).toBe(
      'my name is charlie and my phone number is 314 527 8960',
    );
  });

  it('plays the worked example: menu, pepperoni, extra cheese, name and phone, the total, goodbye', () => {
    const { memory, state } = seeded();
    expect(brain.greeting().text).toBe('Welcome to Pizza Palace! What would you like to order?');
    const menu = say(memory, 'What pizza options do you have?');
    expect(menu.calls.map((c) => c.name)).toEqual(['GetMenuTool']);
    expect(menu.text).toBe(
      'We have Pepperoni Pizza for 9.99, Margherita Pizza for 8.99 and Cheese Pizza for 7.99. Extra cheese is ' +
        '1.50. What would you like?',
    );
    expect(say(memory, 'I would like one pepperoni pizza.').source).toBe('rule:order');
    expect(say(memory, 'Can I add extra cheese?').source).toBe('rule:extra-cheese');
    const details = say(memory, 'My name is Charlie and my phone number is 314-527-8960.');
    expect(details.source).toBe('rule:name-and-phone');
    expect(memory.slots.get('customer_phone')).toBe('314-527-8960');
    const total = say(memory, 'Yes, that is correct. What is the total?');
    expect(total.text).toBe('Your order is placed. Your total is 11.49.');
    expect(total.calls[0]).toMatchObject({
      name: 'PlaceOrderTool',
      args: {
        items: [
          { name: 'Pepperoni Pizza', quantity: 1 },
          { name: 'Extra Cheese', quantity: 1 },
        ],
        customer_name: 'Charlie',
        customer_phone: '314-527-8960',
      },
      result: { success: true, total_price: '11.49' },
    });
    const bye = say(memory, 'Thank you, goodbye!');
    expect(bye.calls.map((c) => c.name)).toEqual(['EndConversationTool']);
    const expectedDb = {
      menu: { 'Pepperoni Pizza': '9.99', 'Margherita Pizza': '8.99', 'Cheese Pizza': '7.99', 'Extra Cheese': '1.50' },
      orders: [
        {
          items: [
            { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: 1 },
            { name: 'Extra Cheese', unit_price: '1.50', quantity: 1 },
          ],
          customer_name: 'Charlie',
          customer_phone: '314-527-8960',
          total_price: '11.49',
        },
      ],
    };
    expect(state.summary({ include_db: false })).toEqual({
      actions: [{ name: 'PlaceOrderTool', ...expectedDb.orders[0] }],
      db_hash: dbHash(expectedDb),
    });
  });

  it('a caller who orders a cheese pizza instead gets the cheese pizza placed (the wrong item)', () => {
    const { memory, state } = seeded();
    say(memory, 'I would like one cheese pizza.');
    say(memory, 'Can I add extra cheese?');
    say(memory, 'My name is Charlie and my phone number is 314-527-8960.');
    expect(say(memory, 'That is correct. How much is it?').text).toBe('Your order is placed. Your total is 9.49.');
    expect(state.actions[0]).toMatchObject({ items: [{ name: 'Cheese Pizza' }, { name: 'Extra Cheese' }] });
  });

  it('uses what the tools return: a price changed by an init action is in the menu and the total', () => {
    const { memory } = seeded([
      { func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } },
    ]);
    expect(say(memory, 'What is on the menu?').text).toMatch(/^We have Pepperoni Pizza for 10\.99,/);
    say(memory, 'One pepperoni pizza with extra cheese, please.');
    say(memory, 'Call me Charlie. My number is 314 527 8960.');
    expect(say(memory, 'Please place the order.').text).toBe('Your order is placed. Your total is 12.49.');
  });

  it('asks for missing details before placing the order; without scenario state the scripted result stands', () => {
    const memory = new BrainMemory();
    say(memory, 'One margherita pizza.');
    expect(say(memory, 'Yes, that is all.').text).toBe(
      'Before I place the order, may I have your name and phone number?',
    );
    expect(say(memory, 'What pizzas do you have?').text).toMatch(/^We have Pepperoni Pizza for 9\.99,/);
  });

  it('a failing tool replaces the reply with what went wrong', () => {
    const { memory } = seeded([{ func_name: 'remove_menu_item', arguments: { item: 'Cheese Pizza' } }]);
    say(memory, 'A plain pizza please.');
    say(memory, 'My name is Dana, 555 123 4567.');
    expect(say(memory, 'Confirm the order.').text).toBe('Sorry, that did not work: Cheese Pizza is not on the menu.');
  });

  it('result_slots make a slot known to the reply only (the loader rejects it elsewhere)', () => {
    const spec = (where: string): string =>
      'greeting: Hi.\nfallback: What?\nrules:\n  - when: total\n' +
      `    reply: ${where === 'reply' ? 'It is {{t}}.' : 'Ok.'}\n` +
      `    calls:\n      - name: PlaceOrderTool\n        result_slots: { t: total_price }\n` +
      (where === 'remember' ? '    remember: { x: "{{t}}" }\n' : '');
    expect(() => parseBrain(spec('reply'))).not.toThrow();
    expect(() => parseBrain(spec('remember'))).toThrow(/\{\{t\}\} is not captured/);
  });
});
