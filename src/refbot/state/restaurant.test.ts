import { describe, expect, it } from 'vitest';
import { RESTAURANT_DOMAIN } from './restaurant.js';

const MENU = { 'Pepperoni Pizza': '9.99', 'Margherita Pizza': '8.99', 'Cheese Pizza': '7.99', 'Extra Cheese': '1.50' };
const fresh = (): Record<string, unknown> => ({ db: { menu: { ...MENU }, orders: [] } });
const { tools, initFunctions } = RESTAURANT_DOMAIN;

describe('restaurant domain tools', () => {
  it('GetMenuTool returns the menu', () => {
    expect(tools.GetMenuTool(fresh(), {})).toEqual({ result: { success: true, menu: MENU } });
  });

  it('PlaceOrderTool prices from the menu, totals to 2 decimals, stores the order and records the action', () => {
    const state = fresh();
    const out = tools.PlaceOrderTool(state, {
      items: [
        { name: 'Pepperoni Pizza', quantity: 1 },
        { name: 'Extra Cheese', quantity: '1' },
      ],
      customer_name: 'Charlie',
      customer_phone: '314-527-8960',
    });
    const items = [
      { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: 1 },
      { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
    ];
    expect(out.result).toEqual({ success: true, total_price: '11.49', items });
    expect(out.action).toEqual({
      name: 'PlaceOrderTool',
      items,
      customer_name: 'Charlie',
      customer_phone: '314-527-8960',
      total_price: '11.49',
    });
    expect((state.db as { orders: unknown[] }).orders).toEqual([
      { items, customer_name: 'Charlie', customer_phone: '314-527-8960', total_price: '11.49' },
    ]);
  });

  it('sums quantities in cents (no float drift): 3 × 9.99 + 1.50 = 31.47', () => {
    const out = tools.PlaceOrderTool(fresh(), {
      items: [
        { name: 'Pepperoni Pizza', quantity: 3 },
        { name: 'Extra Cheese', quantity: 1 },
      ],
    });
    expect(out.result).toMatchObject({ total_price: '31.47' });
  });

  it('an item not on the menu is an error result; nothing is recorded or stored', () => {
    const state = fresh();
    const out = tools.PlaceOrderTool(state, { items: [{ name: 'Calzone', quantity: 1 }] });
    expect(out).toEqual({ result: { success: false, error: 'Calzone is not on the menu' } });
    expect((state.db as { orders: unknown[] }).orders).toEqual([]);
    expect(tools.PlaceOrderTool({}, { items: [] }).result).toMatchObject({ success: false });
  });

  it('EndConversationTool records nothing', () => {
    expect(tools.EndConversationTool(fresh(), {}).action).toBeUndefined();
  });

  it('init functions set a price and remove an item; bad arguments throw', () => {
    const state = fresh();
    initFunctions.set_menu_price(state, { item: 'Pepperoni Pizza', price: 10.99 });
    initFunctions.remove_menu_item(state, { item: 'Margherita Pizza' });
    expect((state.db as { menu: unknown }).menu).toEqual({
      'Pepperoni Pizza': '10.99',
      'Cheese Pizza': '7.99',
      'Extra Cheese': '1.50',
    });
    expect(() => initFunctions.set_menu_price(state, { item: 'Pepperoni Pizza', price: 'free' })).toThrow(/price/);
    expect(() => initFunctions.remove_menu_item(state, {})).toThrow(/item/);
  });
});
