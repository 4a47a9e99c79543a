import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { dbHash } from '../../core/db-hash.js';
import { ScenarioState } from './shared-state.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-state-'));
const root = join(dir, 'root');
mkdirSync(join(root, 'restaurant'), { recursive: true });
const DB = { menu: { 'Pepperoni Pizza': '9.99', 'Extra Cheese': '1.50' }, orders: [] };
writeFileSync(join(root, 'restaurant', 'db.json'), JSON.stringify(DB));
writeFileSync(join(dir, 'outside.json'), JSON.stringify({ secret: true }));
symlinkSync(join(dir, 'outside.json'), join(root, 'restaurant', 'link.json'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const state = (): ScenarioState => new ScenarioState({ dataRoot: root });
const init = (s: ScenarioState, seed: unknown, actions: unknown[] = [], domain = 'restaurant') =>
  s.applyInitialization({ domain, shared_state_init: JSON.stringify(seed), actions });

describe('ScenarioState: NeMo control handlers', () => {
  it('an uninitialized bot summarizes as {actions: [], db_hash: null}', () => {
    expect(state().summary({ include_db: true })).toEqual({ actions: [], db_hash: null });
  });

  it('merges the seed and loads db_path under the root, dropping the path', () => {
    const s = state();
    expect(init(s, { db_path: 'restaurant/db.json', user: 'x' })).toEqual({ success: true, errors: [] });
    expect(s.state).toEqual({ db: DB, user: 'x' });
    expect(s.summary({ include_db: false })).toEqual({ actions: [], db_hash: dbHash(DB) });
    expect(s.summary({ include_db: true })).toEqual({ actions: [], db_hash: dbHash(DB), db: DB });
  });

  it('an inline db wins over db_path', () => {
    const s = state();
    expect(init(s, { db: { menu: {}, orders: [] }, db_path: 'restaurant/db.json' }).success).toBe(true);
    expect(s.state).toEqual({ db: { menu: {}, orders: [] } });
  });

  it('refuses db_path leaving the root: ../, absolute, a symlink out; and a missing file', () => {
    for (const path of ['../outside.json', join(dir, 'outside.json'), 'restaurant/link.json', 'nope.json']) {
      const s = state();
      const result = init(s, { db_path: path });
      expect(result.success, path).toBe(false);
      expect(result.errors[0]).toContain(`db_path "${path}"`);
      expect(s.state.db).toBeUndefined();
    }
  });

  it('a seed that is not a JSON object fails', () => {
    const s = state();
    expect(s.applyInitialization({ domain: 'restaurant', shared_state_init: '{nope' }).success).toBe(false);
    expect(s.applyInitialization({ domain: 'restaurant', shared_state_init: '[1]' }).errors).toEqual([
      'shared_state_init: expected a JSON object',
    ]);
  });

  it("replays init actions through the domain's functions; an unknown one or a bad argument fails", () => {
    const s = state();
    const ok = init(s, { db_path: 'restaurant/db.json' }, [
      { func_name: 'set_menu_price', arguments: { item: 'Pepperoni Pizza', price: '10.99' } },
      { func_name: 'remove_menu_item', arguments: { item: 'Extra Cheese' } },
    ]);
    expect(ok).toEqual({ success: true, errors: [] });
    expect((s.state.db as typeof DB).menu).toEqual({ 'Pepperoni Pizza': '10.99' });
    const bad = init(state(), { db_path: 'restaurant/db.json' }, [
      { func_name: 'drop_tables', arguments: {} },
      { func_name: 'remove_menu_item', arguments: { item: 'Calzone' } },
    ]);
    expect(bad.success).toBe(false);
    expect(bad.errors).toEqual([
      'actions[0]: unknown initialization function "drop_tables" for domain "restaurant"',
      'actions[1]: remove_menu_item: Calzone is not on the menu',
    ]);
    expect(init(state(), {}, [{ func_name: 'set_menu_price', arguments: {} }], 'airline').errors[0]).toMatch(
      /unknown initialization function "set_menu_price" for domain "airline"/,
    );
  });

  it('update_system_prompt clears the state and actions but keeps the tool domain; reset clears all', () => {
    const s = state();
    init(s, { db_path: 'restaurant/db.json' });
    s.run('PlaceOrderTool', { items: [{ name: 'Pepperoni Pizza', quantity: 1 }], customer_name: 'C' });
    expect(s.actions).toHaveLength(1);
    s.updateSystemPrompt({
      prompt: 'You are a pizza agent.',
      tools: '{}',
      add_suffix: true,
      tool_domain: 'restaurant',
    });
    expect(s.summary({})).toEqual({ actions: [], db_hash: null });
    expect(s.activeDomain).toBeDefined();
    // Tools of the domain run (and fail: no database yet) rather than falling back to the scripted result.
    expect(s.run('GetMenuTool', {})).toEqual({ success: false, error: 'no restaurant database is loaded' });
    s.reset();
    expect(s.activeDomain).toBeUndefined();
    expect(s.run('GetMenuTool', {})).toBeUndefined();
  });

  it('runs only the tools of the active domain; an exit tool records nothing', () => {
    const s = state();
    expect(s.run('PlaceOrderTool', {})).toBeUndefined();
    init(s, { db_path: 'restaurant/db.json' });
    expect(s.run('get_current_weather', {})).toBeUndefined();
    expect(s.run('EndConversationTool', {})).toMatchObject({ success: true });
    expect(s.actions).toEqual([]);
  });
});
