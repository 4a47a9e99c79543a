import { deepEqual } from '../../core/equal.js';

/**
 * `DB_STATE_ASSERTION`'s predicates: pure functions over the bot's end-state DB, registered per domain (NeMo: pure,
 * side-agnostic, run harness-side on the DB the summary returns). A record's `func_name` resolves in the scenario's
 * domain, then in `default`, where three built-ins serve YAML authors. The table lives on `globalThis` under a
 * `Symbol.for` key, so a scenario module that imports another copy of earshot registers into the same table.
 */
export type DbStatePredicate = (db: Record<string, unknown>, args: Record<string, unknown>) => unknown;

const KEY = Symbol.for('earshot.nemo.predicates');

function table(): Map<string, Map<string, DbStatePredicate>> {
  const g = globalThis as unknown as Record<symbol, Map<string, Map<string, DbStatePredicate>> | undefined>;
  let t = g[KEY];
  if (!t) {
    t = new Map();
    g[KEY] = t;
  }
  return t;
}

export function registerDbStatePredicate(domain: string, funcName: string, fn: DbStatePredicate): void {
  if (typeof fn !== 'function') throw new TypeError(`predicate ${domain}.${funcName}: expected a function`);
  const t = table();
  let d = t.get(domain);
  if (!d) {
    d = new Map();
    t.set(domain, d);
  }
  d.set(funcName, fn);
}

/** The predicate a record names: the domain's own, else `default`'s; undefined when neither has it. */
export function dbStatePredicate(domain: string, funcName: string): DbStatePredicate | undefined {
  registerBuiltins();
  return table().get(domain)?.get(funcName) ?? table().get('default')?.get(funcName);
}

/**
 * A dotted path with numeric segments for list items: `orders.0.customer_phone` (also `orders[0].customer_phone`).
 * `found: false` when a step is missing.
 */
export function valueAtPath(db: unknown, path: string): { found: boolean; value?: unknown } {
  const steps = path
    .replace(/\[(\d+)\]/g, '.$1')
    .split('.')
    .filter((s) => s !== '');
  let at: unknown = db;
  for (const step of steps) {
    if (Array.isArray(at) && /^\d+$/.test(step) && Number(step) < at.length) at = at[Number(step)];
    else if (at !== null && typeof at === 'object' && !Array.isArray(at) && Object.hasOwn(at, step))
      at = (at as Record<string, unknown>)[step];
    else return { found: false };
  }
  return { found: true, value: at };
}

function pathArg(args: Record<string, unknown>, name: string): string {
  if (typeof args.path !== 'string') throw new TypeError(`${name}: expected arguments.path, a dotted path string`);
  return args.path;
}

let builtins = false;

/** `path_equals {path, value}` → boolean; `path_exists {path}` → boolean; `count_at {path}` → items or keys. */
function registerBuiltins(): void {
  if (builtins) return;
  builtins = true;
  const own = table().get('default');
  const add = (name: string, fn: DbStatePredicate): void => {
    if (!own?.has(name)) registerDbStatePredicate('default', name, fn);
  };
  add('path_equals', (db, args) => {
    const at = valueAtPath(db, pathArg(args, 'path_equals'));
    return at.found && deepEqual(at.value, args.value);
  });
  add('path_exists', (db, args) => valueAtPath(db, pathArg(args, 'path_exists')).found);
  add('count_at', (db, args) => {
    const at = valueAtPath(db, pathArg(args, 'count_at'));
    if (!at.found) return 0;
    if (Array.isArray(at.value)) return at.value.length;
    return at.value !== null && typeof at.value === 'object' ? Object.keys(at.value).length : 0;
  });
}
