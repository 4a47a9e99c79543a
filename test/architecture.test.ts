import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';

/**
 * The import rules of DESIGN.md §7, enforced: data flows one way and a folder
 * only reaches the folders listed for it. Adding an import that breaks a rule
 * fails here with the file and the offending import.
 */
const SRC = resolve(import.meta.dirname, '..', 'src');

const ALLOWED: Record<string, string[]> = {
  core: [],
  scenario: ['core'],
  protocol: ['core'],
  audio: ['core'],
  judge: ['core'],
  metrics: ['core', 'scenario'],
  results: ['core', 'scenario', 'metrics'],
  speech: ['core', 'audio'],
  session: ['core', 'protocol', 'judge', 'speech', 'audio', 'metrics', 'scenario', 'results'],
  report: ['core', 'audio', 'metrics', 'results', 'scenario'],
  bots: ['core'],
  runner: ['core', 'session', 'scenario', 'report', 'results', 'metrics', 'bots'],
  tools: ['core', 'session', 'scenario', 'report', 'results', 'metrics', 'bots', 'runner'],
  refbot: ['core', 'protocol', 'audio', 'speech'],
  cli: ['core', 'scenario', 'protocol', 'audio', 'judge', 'metrics', 'results', 'speech', 'session', 'report', 'bots', 'runner', 'tools', 'refbot'],
};

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const IMPORT = /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function topFolder(file: string): string {
  return relative(SRC, file).split(sep)[0];
}

describe('architecture', () => {
  const files = walk(SRC).filter((f) => !f.endsWith('.test.ts') && !f.endsWith('.testutil.ts'));

  it('every source file lives in a known folder', () => {
    const unknown = files.filter((f) => relative(SRC, f).includes(sep) && !(topFolder(f) in ALLOWED));
    expect(unknown.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('imports follow the one-way rules of DESIGN.md §7', () => {
    const violations: string[] = [];
    for (const file of files) {
      if (!relative(SRC, file).includes(sep)) continue; // src/index.ts re-exports the public API
      const from = topFolder(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(IMPORT)) {
        const spec = m[1] ?? m[2];
        if (spec.includes('fixtures/')) violations.push(`${relative(SRC, file)} imports data from fixtures/: ${spec}`);
        if (!spec.startsWith('.')) continue;
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(SRC + sep)) {
          if (!spec.endsWith('package.json')) violations.push(`${relative(SRC, file)} reaches outside src/: ${spec}`);
          continue;
        }
        const to = topFolder(target);
        if (to === from) continue;
        if (!ALLOWED[from]?.includes(to)) violations.push(`${relative(SRC, file)} (${from}) may not import ${to}: ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });
});
