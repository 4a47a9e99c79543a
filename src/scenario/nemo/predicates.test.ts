import { describe, expect, it } from 'vitest';
import { dbStatePredicate, registerDbStatePredicate, valueAtPath } from './predicates.js';

const DB = { orders: [{ customer_phone: '314-527-8960', items: ['a', 'b'] }], menu: { Pizza: '9.99' } };

describe('DB_STATE_ASSERTION predicates', () => {
  it('built-ins under default: path_equals, path_exists, count_at', () => {
    const eq = dbStatePredicate('restaurant', 'path_equals');
    expect(eq?.(DB, { path: 'orders.0.customer_phone', value: '314-527-8960' })).toBe(true);
    expect(eq?.(DB, { path: 'orders[0].customer_phone', value: '555' })).toBe(false);
    expect(dbStatePredicate('restaurant', 'path_exists')?.(DB, { path: 'menu.Pizza' })).toBe(true);
    expect(dbStatePredicate('restaurant', 'path_exists')?.(DB, { path: 'menu.Salad' })).toBe(false);
    expect(dbStatePredicate('x', 'count_at')?.(DB, { path: 'orders.0.items' })).toBe(2);
    expect(dbStatePredicate('x', 'count_at')?.(DB, { path: 'nothing' })).toBe(0);
    expect(() => eq?.(DB, {})).toThrow(/arguments\.path/);
  });

  it("a domain's own predicate wins over default's; an unknown one is undefined", () => {
    registerDbStatePredicate('shop', 'count_at', () => 'shop');
    expect(dbStatePredicate('shop', 'count_at')?.(DB, { path: 'orders' })).toBe('shop');
    expect(dbStatePredicate('other', 'count_at')?.(DB, { path: 'orders' })).toBe(1);
    expect(dbStatePredicate('shop', 'nope')).toBeUndefined();
  });

  it('paths step through lists by index only', () => {
    expect(valueAtPath(DB, 'orders.1')).toEqual({ found: false });
    expect(valueAtPath(DB, 'orders.x')).toEqual({ found: false });
    expect(valueAtPath(DB, '')).toEqual({ found: true, value: DB });
  });
});
