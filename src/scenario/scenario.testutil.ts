import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Diagnostic } from './diagnostics.js';
import { inspectFile, type Inspection, type LoadOptions } from './load.js';
import type { LoadedFile } from './types.js';

/** A throw-away project folder (with a package.json, so it is its own scenario root). */
export class TempProject {
  readonly dir: string;
  constructor(marker = true) {
    this.dir = realpathSync.native(mkdtempSync(join(tmpdir(), 'earshot-scenario-')));
    if (marker) writeFileSync(join(this.dir, 'package.json'), '{}\n');
  }
  path(name: string): string {
    return join(this.dir, name);
  }
  write(name: string, content: string | Buffer): string {
    const p = this.path(name);
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, content);
    return p;
  }
  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

export function inspect(
  project: TempProject,
  yaml: string,
  options: LoadOptions = {},
  name = 'scenario.yaml',
): Inspection {
  return inspectFile(project.write(name, yaml), options);
}

export function errorsOf(r: Inspection): Diagnostic[] {
  return (r.status === 'loaded' ? r.loaded.warnings : r.diagnostics).filter((d) => d.severity === 'error');
}

/** Warnings, less the deprecations (most fixtures use the deprecated one-scenario shape on purpose: it is shorter). */
export function warningsOf(r: Inspection): Diagnostic[] {
  return (r.status === 'loaded' ? r.loaded.warnings : r.diagnostics).filter(
    (d) => d.severity === 'warning' && d.code !== 'deprecated',
  );
}

export function deprecationsOf(r: Inspection): Diagnostic[] {
  return (r.status === 'loaded' ? r.loaded.warnings : r.diagnostics).filter((d) => d.code === 'deprecated');
}

/** The loaded model, or a failure listing the diagnostics (so a test failure says why). */
export function loadedOf(r: Inspection): LoadedFile {
  if (r.status !== 'loaded') {
    throw new Error(
      `expected the file to load, got ${r.status}:\n${r.diagnostics.map((d) => `${d.line}:${d.col} ${d.path}: ${d.message}`).join('\n')}`,
    );
  }
  return r.loaded;
}
