import { callSite, ScenarioDefinitionError } from './errors.js';
import { definitionProblems } from './definition.js';
import { isEvalScenarioClass, type EvalScenario, type EvalScenarioClass } from './scenario.js';
import type { SourceLocation } from '../diagnostics.js';

/**
 * NeMo's `@register_eval_scenario`: a registered class is instantiated and checked at once (definition.ts), so a
 * broken scenario fails its module's import with a located error before anything runs. The registry is one table per
 * process on `globalThis` (a `Symbol.for` key, a brand instead of `instanceof`): a scenario module that imports another
 * copy of earshot (`dist/` while the runner is `src/`, or the copy tsx loads) registers into the same table.
 */
export interface RegisteredScenario {
  name: string;
  /** The name prefix before `__` (`legacy` when there is none): what `--list` groups by and `--domain` filters on. */
  group: string;
  scenario: EvalScenario;
  cls: EvalScenarioClass;
  /** Where `registerEvalScenario` was applied. */
  where: SourceLocation;
}

interface Registry {
  readonly brand: 'earshot.nemo.registry/1';
  readonly entries: Map<string, RegisteredScenario>;
}

const KEY = Symbol.for('earshot.nemo.registry');
/** Frames of these files (either copy: `src/*.ts`, `dist/*.js`) are the registry's own, not the author's call site. */
const OWN_FILES = /[\\/]scenario[\\/]nemo[\\/](registry|errors|definition)\.[cm]?[jt]s$/;

function registry(): Registry {
  const g = globalThis as unknown as Record<symbol, unknown>;
  const found = g[KEY] as Partial<Registry> | undefined;
  if (found?.brand === 'earshot.nemo.registry/1' && found.entries instanceof Map) return found as Registry;
  const made: Registry = { brand: 'earshot.nemo.registry/1', entries: new Map() };
  Object.defineProperty(g, KEY, { value: made, configurable: true });
  return made;
}

/**
 * Registers a concrete scenario class. As a decorator (`@registerEvalScenario class X extends Base {}`, standard
 * decorators) or a call (`registerEvalScenario(class X extends Base {})`, for plain JavaScript); returns the class.
 * Throws `ScenarioDefinitionError` (file:line of the call) when the scenario cannot run as defined.
 */
export function registerEvalScenario<C extends EvalScenarioClass>(cls: C, _context?: ClassDecoratorContext): C {
  const where = callSite(new Error().stack, OWN_FILES);
  const label = typeof cls === 'function' && cls.name ? cls.name : '<anonymous class>';
  if (!isEvalScenarioClass(cls))
    throw new ScenarioDefinitionError(label, where, 'registerEvalScenario takes a class that extends EvalScenario');
  let scenario: EvalScenario;
  try {
    scenario = new (cls as unknown as new () => EvalScenario)();
  } catch (err) {
    throw new ScenarioDefinitionError(label, where, `constructing it threw: ${(err as Error)?.message ?? String(err)}`);
  }
  const named = typeof scenario.name === 'string' && scenario.name.trim() !== '' ? scenario.name : undefined;
  const who = named ? `${label} (${named})` : label;
  const problems = definitionProblems(scenario);
  if (problems.length) throw new ScenarioDefinitionError(who, where, problems.join('; '));
  const name = named as string;
  const table = registry().entries;
  const previous = table.get(name);
  // The same class statement evaluated again (a module imported twice) replaces itself; another class is a clash.
  if (previous && !(previous.where.file === where.file && previous.where.line === where.line))
    throw new ScenarioDefinitionError(
      who,
      where,
      `duplicate name '${name}': ${previous.cls.name || 'another class'} at ` +
        `${previous.where.file}:${previous.where.line} registered it first`,
    );
  table.set(name, { name, group: domainOf(name), scenario, cls, where });
  return cls;
}

/** Every registered scenario, in registration order. */
export function listEvalScenarios(): RegisteredScenario[] {
  return [...registry().entries.values()];
}

/** Forgets registered scenarios (all, or these names): for tests and long-lived hosts that reload modules. */
export function clearEvalScenarios(names?: readonly string[]): void {
  const table = registry().entries;
  if (!names) table.clear();
  else for (const n of names) table.delete(n);
}

/** The name prefix before `__` (NeMo's `--domain` key); `legacy` for a name without one. */
export function domainOf(name: string): string {
  const at = name.indexOf('__');
  return at > 0 ? name.slice(0, at) : 'legacy';
}

/** `--domain tau2_telecom` keeps `tau2_telecom__1`, not `tau2_telecom_workflow__1` (a prefix up to `__`). */
export function matchesDomain(name: string, prefix: string): boolean {
  return prefix === 'legacy' ? !name.includes('__') : name.startsWith(`${prefix}__`);
}
