/**
 * The `restaurant` domain of NeMo's in-repo smoke set, as the reference bot runs it: a menu of prices (strings,
 * `"9.99"`) and the orders placed, under `db`. `PlaceOrderTool` records the action NeMo's restaurant scenarios
 * compare (`reference_answer`: items with their unit prices, the customer, the total as a 2-decimal string).
 */
import type { JsonValue } from '../brain/brain.js';
import { type DomainState, InitFunctionError, type RefbotDomain, type ToolArgs, type ToolOutcome } from './domain.js';

interface RestaurantDb {
  menu: Record<string, unknown>;
  orders: unknown[];
}

function dbOf(state: DomainState): RestaurantDb | string {
  const db = state.db;
  if (db === null || typeof db !== 'object' || Array.isArray(db)) return 'no restaurant database is loaded';
  const rec = db as Record<string, unknown>;
  if (rec.menu === null || typeof rec.menu !== 'object' || Array.isArray(rec.menu)) return 'the database has no menu';
  if (!Array.isArray(rec.orders)) rec.orders = [];
  return rec as unknown as RestaurantDb;
}

const failure = (error: string): ToolOutcome => ({ result: { success: false, error } });

/** Cents of a price written as text or a number; null when it is neither. */
function cents(price: unknown): number | null {
  const n = typeof price === 'number' ? price : typeof price === 'string' ? Number(price) : Number.NaN;
  return Number.isFinite(n) && n >= 0 ? Math.round(n * 100) : null;
}

function getMenu(state: DomainState): ToolOutcome {
  const db = dbOf(state);
  if (typeof db === 'string') return failure(db);
  return { result: { success: true, menu: db.menu as { [key: string]: JsonValue } } };
}

function placeOrder(state: DomainState, args: ToolArgs): ToolOutcome {
  const db = dbOf(state);
  if (typeof db === 'string') return failure(db);
  const items = args.items;
  if (!Array.isArray(items) || items.length === 0) return failure('items must be a non-empty list');
  const lines: Array<{ name: string; unit_price: string; quantity: JsonValue }> = [];
  let total = 0;
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item) || typeof item.name !== 'string')
      return failure('each item needs a name');
    const price = db.menu[item.name];
    const unit = cents(price);
    if (price === undefined || unit === null) return failure(`${item.name} is not on the menu`);
    const quantity = item.quantity ?? 1;
    const count = Number(quantity);
    if (!Number.isInteger(count) || count < 1) return failure(`the quantity of ${item.name} must be a whole number`);
    total += unit * count;
    lines.push({ name: item.name, unit_price: typeof price === 'string' ? price : (unit / 100).toFixed(2), quantity });
  }
  const order = {
    items: lines,
    customer_name: args.customer_name ?? null,
    customer_phone: args.customer_phone ?? null,
    total_price: (total / 100).toFixed(2),
  };
  db.orders.push(order);
  return {
    result: { success: true, total_price: order.total_price, items: lines },
    action: { name: 'PlaceOrderTool', ...order },
  };
}

function menuItem(args: Record<string, unknown>, func: string): string {
  if (typeof args.item !== 'string' || args.item === '') throw new InitFunctionError(func, 'item: expected a name');
  return args.item;
}

function menuOf(state: DomainState, func: string): Record<string, unknown> {
  const db = dbOf(state);
  if (typeof db === 'string') throw new InitFunctionError(func, db);
  return db.menu;
}

export const RESTAURANT_DOMAIN: RefbotDomain = {
  tools: {
    GetMenuTool: (state) => getMenu(state),
    PlaceOrderTool: placeOrder,
    EndConversationTool: () => ({ result: { success: true, message: 'The conversation has ended.' } }),
  },
  initFunctions: {
    set_menu_price: (state, args) => {
      const item = menuItem(args, 'set_menu_price');
      if (cents(args.price) === null) throw new InitFunctionError('set_menu_price', 'price: expected a price');
      menuOf(state, 'set_menu_price')[item] = typeof args.price === 'number' ? args.price.toFixed(2) : args.price;
    },
    remove_menu_item: (state, args) => {
      const item = menuItem(args, 'remove_menu_item');
      const menu = menuOf(state, 'remove_menu_item');
      if (!Object.hasOwn(menu, item)) throw new InitFunctionError('remove_menu_item', `${item} is not on the menu`);
      delete menu[item];
    },
  },
};
