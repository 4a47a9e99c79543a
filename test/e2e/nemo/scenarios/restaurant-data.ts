import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The restaurant domain's data, apart from its scenario classes (restaurant.ts) so a test can read it without
 * importing them: the fixture DB the reference bot loads from `db_path`, the menu, Charlie's order and the end state
 * it leaves. (restaurant.ts uses standard decorators, which vitest's transformer does not lower: the tests load it
 * through earshot's own module loader, as `earshot run --allow-code` does.)
 */

const FIXTURE_DB = fileURLToPath(new URL('../../../../fixtures/nemo/restaurant/db.json', import.meta.url));

/** The restaurant's DB as the bot loads it from `db_path` (a fresh copy each call: scenarios change theirs). */
export function fixtureDb(): Record<string, unknown> {
  return JSON.parse(readFileSync(FIXTURE_DB, 'utf8')) as Record<string, unknown>;
}

/** The menu the agent's GetMenuTool is built with (NeMo's `PIZZA_PALACE_MENU`): the fixture DB's. */
export const PIZZA_PALACE_MENU = fixtureDb().menu;

/** Charlie's order as the reference bot's PlaceOrderTool records it (the action and the row it appends alike). */
export interface OrderRecord {
  items: Array<{ name: string; unit_price: string; quantity: string }>;
  customer_name: string;
  customer_phone: string;
  total_price: string;
}

export const CHARLIE_ORDER: OrderRecord = {
  items: [
    { name: 'Pepperoni Pizza', unit_price: '9.99', quantity: '1' },
    { name: 'Extra Cheese', unit_price: '1.50', quantity: '1' },
  ],
  customer_name: 'Charlie',
  customer_phone: '314-527-8960',
  total_price: '11.49',
};

/** The end state after the order: the fixture DB with the order appended, as the reference bot writes it. */
export function dbWithOrder(
  order: OrderRecord,
  edit: (db: Record<string, unknown>) => void = () => undefined,
): Record<string, unknown> {
  const db = fixtureDb();
  edit(db);
  const orders = Array.isArray(db.orders) ? db.orders : [];
  db.orders = [...orders, orderRow(order)];
  return db;
}

/**
 * A row of `orders` as the reference bot's PlaceOrderTool stores it: the quantity as the brain passed it (a number),
 * where the action the reference answer is matched against compares it as text.
 */
function orderRow(order: OrderRecord): Record<string, unknown> {
  return { ...order, items: order.items.map((i) => ({ ...i, quantity: Number(i.quantity) })) };
}
