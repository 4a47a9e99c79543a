import { describe, expect, it } from 'vitest';
import type { SimulationEntry } from '../../results/index.js';
import { actionMatch, normalizeScenarioPayload, predictedActions, type ActionNormalization } from './action-match.js';

const OFF: ActionNormalization = {
  ignore_capitalization: false,
  ignore_punctuation: false,
  clean_text: false,
  disallow_extra_items: false,
};

/** The anchor's worked example. */
const PIZZA = {
  items: [
    { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: '1' },
    { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
  ],
  customer_name: 'Charlie',
  customer_phone: '314-527-8960',
  total_price: '11.49',
};

const placed = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'PlaceOrderTool',
  items: [
    { name: 'Extra Cheese', unit_price: '1.50', quantity: 1 },
    { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: 1 },
  ],
  customer_name: 'Charlie',
  customer_phone: '314-527-8960',
  total_price: '11.49',
  ...over,
});

describe('ACTION_MATCH (NeMo check_if_task_success)', () => {
  it('matches the worked example: extra keys, items in another order, a number against its text', () => {
    const m = actionMatch(PIZZA, [placed()], OFF);
    expect(m).toMatchObject({ signal: 'is_action_match', value: true });
  });

  it('names the unmatched reference item and how the closest candidate differs', () => {
    const wrong = { ...PIZZA, items: [{ name: 'Cheese Pizza', unit_price: '9.99', quantity: '1' }] };
    const m = actionMatch(wrong, [placed()], OFF);
    expect(m.value).toBe(false);
    expect(m.reason).toContain('reference item #1');
    expect(m.reason).toContain('PlaceOrderTool');
    expect(m.reason).toMatch(/items: no item matches .*Cheese Pizza/);
    const phone = actionMatch(PIZZA, [placed({ customer_phone: '555' })], OFF);
    expect(phone.reason).toContain('customer_phone: "555" vs "314-527-8960"');
  });

  it('reads a one-item list of dicts as the dict (normalize_scenario_payload)', () => {
    expect(normalizeScenarioPayload([{ a: 1 }])).toEqual({ a: 1 });
    expect(normalizeScenarioPayload([{ a: 1 }, { b: 2 }])).toEqual([{ a: 1 }, { b: 2 }]);
    expect(actionMatch([PIZZA], [placed()], OFF).value).toBe(true);
  });

  it('holds a one-item reference against the last predicted action only', () => {
    const menu = { name: 'GetMenuTool' };
    expect(actionMatch(PIZZA, [menu, placed()], OFF).value).toBe(true);
    const lastIsMenu = actionMatch(PIZZA, [placed(), menu], OFF);
    expect(lastIsMenu.value).toBe(false);
    expect(lastIsMenu.reason).toContain('GetMenuTool');
  });

  it('matches several reference items order-free to distinct predicted items (augmenting, not first fit)', () => {
    const ref = [{ a: '1' }, { a: '1', b: '2' }];
    expect(actionMatch(ref, [{ a: 1, b: 2 }, { a: 1 }], OFF).value).toBe(true);
    expect(actionMatch(ref, [{ a: 1, b: 2 }, { a: 3 }], OFF).value).toBe(false);
    // Two reference items cannot share one predicted item.
    expect(actionMatch([{ a: '1' }, { a: '1' }], [{ a: 1 }, { z: 0 }], OFF).value).toBe(false);
  });

  it('allows extra predicted items unless disallow_extra_items asks for a bijection', () => {
    const ref = [{ a: '1' }, { b: '2' }];
    const pred = [{ b: 2 }, { c: 3 }, { a: 1 }];
    expect(actionMatch(ref, pred, OFF).value).toBe(true);
    const strict = actionMatch(ref, pred, { ...OFF, disallow_extra_items: true });
    expect(strict.value).toBe(false);
    expect(strict.reason).toContain('disallow_extra_items: 3 predicted item(s) against 2');
    expect(actionMatch(ref, [{ b: 2 }, { a: 1 }], { ...OFF, disallow_extra_items: true }).value).toBe(true);
    // Nested lists follow the flag too.
    const extraItem = placed({ items: [...(placed().items as object[]), { name: 'Soda' }] });
    expect(actionMatch(PIZZA, [extraItem], OFF).value).toBe(true);
    expect(actionMatch(PIZZA, [extraItem], { ...OFF, disallow_extra_items: true }).value).toBe(false);
  });

  it('applies each normalization flag on its own', () => {
    const ref = { customer_name: 'Charlie Brown', customer_phone: '314-527-8960' };
    const pred = { customer_name: '  charlie   brown ', customer_phone: '3145278960' };
    expect(actionMatch(ref, [pred], OFF).value).toBe(false);
    expect(actionMatch({ customer_name: 'Charlie' }, [{ customer_name: 'CHARLIE' }], OFF).value).toBe(false);
    expect(
      actionMatch({ customer_name: 'Charlie' }, [{ customer_name: 'CHARLIE' }], { ...OFF, ignore_capitalization: true })
        .value,
    ).toBe(true);
    expect(actionMatch({ p: '314-527-8960' }, [{ p: '3145278960' }], { ...OFF, ignore_punctuation: true }).value).toBe(
      true,
    );
    expect(actionMatch({ n: 'Charlie Brown' }, [{ n: ' Charlie   Brown ' }], { ...OFF, clean_text: true }).value).toBe(
      true,
    );
    expect(
      actionMatch(ref, [pred], { ...OFF, ignore_capitalization: true, ignore_punctuation: true, clean_text: true })
        .value,
    ).toBe(true);
  });

  it('compares scalars as text: a number and its digits match, a bool as Python writes it', () => {
    expect(actionMatch({ q: '2' }, [{ q: 2 }], OFF).value).toBe(true);
    expect(actionMatch({ ok: 'True' }, [{ ok: true }], OFF).value).toBe(true);
    expect(actionMatch({ q: '2' }, [{ q: [2] }], OFF).value).toBe(false);
  });

  it('is false, never N/A, when the bot returned no actions', () => {
    expect(actionMatch(PIZZA, undefined, OFF, 'the bot refused get_scenario_summary')).toEqual({
      signal: 'is_action_match',
      value: false,
      reason: 'the bot returned no actions (the bot refused get_scenario_summary)',
    });
    expect(actionMatch(PIZZA, [], OFF)).toMatchObject({ value: false, reason: 'the bot recorded no actions' });
  });

  it("takes the bot's uncancelled calls as the prediction with action_source 'calls'", () => {
    const transcript: SimulationEntry[] = [
      { kind: 'call', at_ms: 1, name: 'book', args: { time: '6 PM' } },
      { kind: 'call', at_ms: 2, name: 'book', args: { time: '7 PM' }, cancelled: true },
    ];
    const predicted = predictedActions('calls', undefined, transcript);
    expect(predicted).toEqual([{ name: 'book', arguments: { time: '6 PM' } }]);
    expect(actionMatch({ name: 'book', arguments: { time: '6 PM' } }, predicted, OFF).value).toBe(true);
    expect(predictedActions('summary', undefined, transcript)).toBeUndefined();
  });
});
