import { existsSync } from 'node:fs';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EarshotError } from './errors.js';

/**
 * CODE HOOKS. `factory:` in a scenario names a JavaScript module and one of its exports
 * that builds a custom provider: `./providers/my-tts.js#createTts` (the
 * default export when there is no `#name`). Importing it runs the scenario
 * author's code, so it happens only when the user said so (`--allow-code`).
 */
export interface FactoryRef {
  /** As written, for messages. */
  ref: string;
  path: string;
  exportName: string;
}

export function parseFactoryRef(ref: string, baseDir: string): FactoryRef {
  const hash = ref.lastIndexOf('#');
  const file = hash >= 0 ? ref.slice(0, hash) : ref;
  const exportName = hash >= 0 ? ref.slice(hash + 1) : 'default';
  if (!file || !exportName) throw new FactoryError(ref, "expected 'path/to/module.js#exportName'");
  if (!file.startsWith('.') && !isAbsolute(file)) {
    throw new FactoryError(
      ref,
      "must be a file path starting with './', '../' or '/' (package names are not resolved)",
    );
  }
  return { ref, path: resolve(baseDir, file), exportName };
}

export interface LoadFactoryOptions {
  /** The user's consent to run code from scenarios (`--allow-code`). */
  allowCode: boolean;
  /** Folder relative paths resolve against: the scenario's root. */
  baseDir: string;
}

/** The exported function, after the consent check and before calling it. */
export async function loadFactory(ref: string, options: LoadFactoryOptions): Promise<(...args: unknown[]) => unknown> {
  if (!options.allowCode) throw new CodeNotAllowedError(ref);
  const parsed = parseFactoryRef(ref, options.baseDir);
  if (!existsSync(parsed.path)) throw new FactoryError(ref, `module not found: ${parsed.path}`);
  let mod: Record<string, unknown>;
  try {
    mod = (await import(pathToFileURL(parsed.path).href)) as Record<string, unknown>;
  } catch (err) {
    throw new FactoryError(ref, `cannot import ${parsed.path}: ${(err as Error).message}`, { cause: err });
  }
  const fn = mod[parsed.exportName];
  if (typeof fn !== 'function') {
    const exported = Object.keys(mod)
      .filter((k) => typeof mod[k] === 'function')
      .sort();
    throw new FactoryError(
      ref,
      `export '${parsed.exportName}' is not a function (functions exported: ${exported.join(', ') || 'none'})`,
    );
  }
  return fn as (...args: unknown[]) => unknown;
}

/** Calls the factory and checks that what it returns has the methods a provider needs. */
export async function buildCustomProvider<T>(
  ref: string,
  fn: (...args: unknown[]) => unknown,
  args: unknown[],
  requiredMethod: string,
): Promise<T & Record<string, unknown>> {
  let made: unknown;
  try {
    made = await fn(...args);
  } catch (err) {
    throw new FactoryError(ref, `threw: ${(err as Error).message}`, { cause: err });
  }
  if (!made || typeof made !== 'object' || typeof (made as Record<string, unknown>)[requiredMethod] !== 'function') {
    throw new FactoryError(ref, `must return an object with a ${requiredMethod}() method`);
  }
  return made as T & Record<string, unknown>;
}

/** A scenario asked to run its own code (`factory:`) without the user's consent. */
export class CodeNotAllowedError extends EarshotError {
  constructor(readonly factory: string) {
    super(`factory '${factory}' runs code from the scenario; pass --allow-code to allow it`, { exitCode: 2 });
    this.name = 'CodeNotAllowedError';
  }
}

/** A `factory:` module that cannot be loaded or does not return a provider. */
export class FactoryError extends EarshotError {
  constructor(
    readonly factory: string,
    message: string,
    options: { cause?: unknown } = {},
  ) {
    super(`factory '${factory}': ${message}`, { ...options, exitCode: 2 });
    this.name = 'FactoryError';
  }
}
