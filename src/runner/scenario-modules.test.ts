import { mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { clearEvalScenarios, listEvalScenarios } from '../scenario/index.js';
import { loadScenarioModules, validateScenarioModules } from './scenario-modules.js';
import { loadRunnablesWithModules } from './run-scenarios.js';
import { listByDomain, selectRunnables } from './select.js';

const NEMO = resolve(import.meta.dirname, '../scenario/nemo');
const url = (file: string): string => pathToFileURL(join(NEMO, file)).href;

let dir: string;
beforeEach(() => {
  dir = realpathSync.native(mkdtempSync(join(tmpdir(), 'earshot-modules-')));
  // An ESM project, as earshot's users write one (a CommonJS-mode .ts is located by file only).
  writeFileSync(join(dir, 'package.json'), '{"type": "module"}\n');
  delete (globalThis as Record<string, unknown>).__earshotModuleRan;
});
afterEach(() => {
  clearEvalScenarios();
  rmSync(dir, { recursive: true, force: true });
});

const HEADER = `
import { registerEvalScenario } from '${url('registry.ts')}';
import { EvalScenario } from '${url('scenario.ts')}';
import { SuccessSignal } from '${url('types.ts')}';
(globalThis as Record<string, unknown>).__earshotModuleRan = true;
abstract class ShopBase extends EvalScenario {
  override domain = 'shop';
  readonly successSignals = [SuccessSignal.CLEAN_EXIT];
  override get userPersona() { return { role: 'customer' }; }
  override get userTask() { return { goal: 'buy socks' }; }
}
`;

function write(name: string, body: string): string {
  const file = join(dir, name);
  writeFileSync(file, HEADER + body);
  return file;
}

describe('scenario modules', () => {
  it('refuses to import a module without --allow-code, in one located line, running none of it', async () => {
    const file = write('shop.ts', `registerEvalScenario(class extends ShopBase { override name = 'shop__a'; });\n`);
    const err = await loadScenarioModules([file], { allowCode: false, cwd: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toBe(
      'shop.ts:1:1: a scenario module runs its own code: pass --allow-code to load it (as for factory: hooks)',
    );
    expect((err as UsageError).exitCode).toBe(2);
    expect((globalThis as Record<string, unknown>).__earshotModuleRan).toBeUndefined();
    await expect(validateScenarioModules([file], { allowCode: false, cwd: dir })).rejects.toThrow(/--allow-code/);
  });

  it('imports a TypeScript module (decorator and call forms) and compiles what it registered', async () => {
    const file = write(
      'shop.ts',
      `@registerEvalScenario
class Socks extends ShopBase { override name = 'shop__socks'; override description = 'Buy socks'; }
registerEvalScenario(class extends ShopBase { override name = 'shop__hats'; });
`,
    );
    const sims = await loadScenarioModules([file], { allowCode: true, cwd: dir });
    expect(sims.map((s) => [s.name, s.nemo?.domain, s.goal])).toEqual([
      ['shop__socks', 'shop', 'buy socks'],
      ['shop__hats', 'shop', 'buy socks'],
    ]);
    expect(listEvalScenarios().find((e) => e.name === 'shop__socks')?.where.file).toBe(file);
    expect(listByDomain(sims)).toBe('shop (2)\n  shop__socks  Buy socks\n  shop__hats\n\n2 scenarios in 1 domain\n');
  });

  it('a definition error fails the load with the class location, exit 2', async () => {
    const file = write('broken.ts', `\nregisterEvalScenario(class Broken extends ShopBase {});\n`);
    const line = HEADER.split('\n').length + 1;
    const err = await loadScenarioModules([file], { allowCode: true, cwd: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as UsageError).message).toMatch(new RegExp(`^broken\\.ts:${line}:\\d+: scenario Broken: no name`));
    const [checked] = await validateScenarioModules([file], { allowCode: true, cwd: dir });
    expect(checked).toMatchObject({ status: 'invalid', diagnostics: [{ file, severity: 'error' }] });
  });

  it('imports a JavaScript module with import(); one that registers nothing is an error', async () => {
    const js = join(dir, 'plain.mjs');
    writeFileSync(js, 'globalThis.__earshotModuleRan = true;\nexport const none = 1;\n');
    await expect(loadScenarioModules([js], { allowCode: true, cwd: dir })).rejects.toThrow(
      /^plain\.mjs:1:1: registers no scenario/,
    );
    expect((globalThis as Record<string, unknown>).__earshotModuleRan).toBe(true);
  });

  it('filters by domain and name', async () => {
    const file = write(
      'two.ts',
      `registerEvalScenario(class extends ShopBase { override name = 'shop__a'; });
registerEvalScenario(class extends ShopBase { override name = 'shop_x__b'; override maxDuration = 30; });
`,
    );
    const { scenarios } = await loadRunnablesWithModules([file], { allowCode: true, cwd: dir });
    expect(selectRunnables(scenarios, { domains: ['shop'] }, 'x').map((s) => s.name)).toEqual(['shop__a']);
    expect(selectRunnables(scenarios, { names: ['shop_x__b'] }, 'x').map((s) => s.name)).toEqual(['shop_x__b']);
    expect(() => selectRunnables(scenarios, { names: ['shop__zzz'] }, 'x')).toThrow(/no scenario named shop__zzz/);
  });
});
