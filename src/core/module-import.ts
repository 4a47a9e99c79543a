import { extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { EarshotError } from './errors.js';

/**
 * Imports an author's module by path: JavaScript (`.js`, `.mjs`, `.cjs`) by Node's own `import()`, TypeScript
 * (`.ts`, `.mts`, `.cts`) through tsx's `tsImport`, loaded only when a TypeScript module is named (it registers a
 * loader hook). Running it runs the author's code: callers ask for consent first (`--allow-code`).
 */
export const SCRIPT_EXTENSIONS = ['.js', '.mjs', '.cjs'] as const;
export const TYPESCRIPT_EXTENSIONS = ['.ts', '.mts', '.cts'] as const;

export class ModuleImportError extends EarshotError {
  readonly path: string;
  constructor(path: string, message: string, cause?: unknown) {
    super(`${path}: ${message}`, { exitCode: 2, ...(cause === undefined ? {} : { cause }) });
    this.name = 'ModuleImportError';
    this.path = path;
  }
}

export function isCodeModulePath(path: string): boolean {
  const ext = extname(path).toLowerCase();
  return (
    (SCRIPT_EXTENSIONS as readonly string[]).includes(ext) || (TYPESCRIPT_EXTENSIONS as readonly string[]).includes(ext)
  );
}

/** The module's namespace. Errors its own code throws propagate as they are (a located definition error, say). */
export async function importModule(path: string): Promise<Record<string, unknown>> {
  const file = resolve(path);
  const ext = extname(file).toLowerCase();
  const url = pathToFileURL(file).href;
  if ((TYPESCRIPT_EXTENSIONS as readonly string[]).includes(ext)) {
    let tsImport: (specifier: string, parent: string) => Promise<Record<string, unknown>>;
    try {
      ({ tsImport } = (await import('tsx/esm/api')) as unknown as { tsImport: typeof tsImport });
    } catch (err) {
      throw new ModuleImportError(file, 'loading a TypeScript module needs the tsx package (npm install tsx)', err);
    }
    return tsImport(url, import.meta.url);
  }
  if (!(SCRIPT_EXTENSIONS as readonly string[]).includes(ext))
    throw new ModuleImportError(
      file,
      `not a module earshot can import (${[...SCRIPT_EXTENSIONS, ...TYPESCRIPT_EXTENSIONS].join(', ')})`,
    );
  return (await import(url)) as Record<string, unknown>;
}
