import { describe, expect, it } from 'vitest';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, dirname, resolve, sep } from 'node:path';

/**
 * The rules of docs/architecture.md §2, enforced: data flows one way and a
 * folder only reaches the folders listed for it; no source file is over 400
 * lines; no two source files import each other, however indirectly. Breaking
 * a rule fails here with the file and the offending import (or the chain).
 */
const SRC = resolve(import.meta.dirname, '..', 'src');

/** A copy of the table in docs/architecture.md §2: change both together. */
const ALLOWED: Record<string, string[]> = {
  core: [],
  scenario: ['core'],
  protocol: ['core'],
  audio: ['core'],
  pacing: ['core', 'protocol', 'audio'],
  judge: ['core'],
  simulate: ['core', 'judge', 'scenario', 'results', 'metrics'],
  metrics: ['core', 'scenario'],
  results: ['core', 'scenario', 'metrics'],
  speech: ['core', 'audio'],
  events: ['core', 'protocol', 'results', 'scenario'],
  session: ['core', 'protocol', 'events', 'speech', 'audio', 'pacing', 'metrics', 'scenario', 'results'],
  match: ['core', 'events', 'judge', 'metrics', 'scenario', 'results'],
  drivers: ['core', 'session', 'events', 'match', 'judge', 'simulate', 'metrics', 'scenario', 'results'],
  report: ['core', 'audio', 'metrics', 'results', 'scenario'],
  bots: ['core'],
  runner: ['core', 'session', 'drivers', 'scenario', 'report', 'results', 'metrics', 'bots'],
  tools: ['core', 'session', 'drivers', 'scenario', 'report', 'results', 'metrics', 'bots', 'runner', 'judge'],
  refbot: ['core', 'protocol', 'audio', 'speech'],
  cli: [
    'core',
    'scenario',
    'protocol',
    'audio',
    'pacing',
    'judge',
    'simulate',
    'metrics',
    'results',
    'speech',
    'events',
    'session',
    'match',
    'drivers',
    'report',
    'bots',
    'runner',
    'tools',
    'refbot',
  ],
};

const MAX_SOURCE_LINES = 400;

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? walk(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** `import … from`, `export … from`, `import 'x'` and `import('x')`; `import type` included (see importGraph). */
const IMPORT =
  /(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importSpecifiers(text: string): string[] {
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2] ?? m[3]);
}

function topFolder(file: string): string {
  return relative(SRC, file).split(sep)[0];
}

const isSource = (f: string): boolean => !f.endsWith('.test.ts') && !f.endsWith('.testutil.ts');

/**
 * File → the source files it imports. Type-only imports count: a type cycle
 * does not break module loading, but it ties two files together just as
 * firmly (neither can be understood or moved without the other), and the
 * issue that asked for this check was about one (refbot's reply ↔ reply-audio).
 */
function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = new Set<string>();
    for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
      if (!spec.startsWith('.')) continue;
      const target = resolve(dirname(file), spec).replace(/\.js$/, '.ts');
      if (known.has(target)) targets.add(target);
    }
    graph.set(file, [...targets]);
  }
  return graph;
}

/** Every import cycle, one per strongly connected component, as a chain `a → b → … → a` (shortest from its first file). */
function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's strongly connected components, iteratively (a deep recursion would be the graph's depth).
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; edge: number }> = [{ node: root, edge: 0 }];
    index.set(root, next);
    low.set(root, next++);
    stack.push(root);
    onStack.add(root);
    while (work.length) {
      const frame = work[work.length - 1];
      const edges = graph.get(frame.node) ?? [];
      if (frame.edge < edges.length) {
        const to = edges[frame.edge++];
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, edge: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      if (work.length) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent)!, low.get(frame.node)!));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        const selfLoop = (graph.get(frame.node) ?? []).includes(frame.node);
        if (component.length > 1 || selfLoop) components.push(component.sort());
      }
    }
  }
  return components.map((component) => shortestLoop(graph, component[0], new Set(component)));
}

/** The shortest path from `start` back to itself inside its component (breadth first). */
function shortestLoop(
  graph: ReadonlyMap<string, readonly string[]>,
  start: string,
  within: ReadonlySet<string>,
): string[] {
  const previous = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const to of graph.get(node) ?? []) {
      if (!within.has(to)) continue;
      if (to === start) {
        const chain = [start];
        for (let at: string | undefined = node; at !== start && at !== undefined; at = previous.get(at))
          chain.splice(1, 0, at);
        return [...chain, start];
      }
      if (!previous.has(to)) {
        previous.set(to, node);
        queue.push(to);
      }
    }
  }
  return [start, start];
}

describe('architecture', () => {
  const files = walk(SRC).filter(isSource);

  it('every source file lives in a known folder', () => {
    const unknown = files.filter((f) => relative(SRC, f).includes(sep) && !(topFolder(f) in ALLOWED));
    expect(unknown.map((f) => relative(SRC, f))).toEqual([]);
  });

  it('the table above is the one docs/architecture.md shows', () => {
    const doc = readFileSync(resolve(SRC, '..', 'docs', 'architecture.md'), 'utf8');
    const rows = new Map<string, string[]>();
    for (const m of doc.matchAll(/^\| `([a-z]+)\/` \|[^|]*\| ([^|]*) \|$/gm)) {
      const cell = m[2].trim();
      const others = Object.keys(ALLOWED).filter((f) => f !== m[1]);
      rows.set(
        m[1],
        cell === 'nothing'
          ? []
          : cell === 'everything else'
            ? others
            : cell.split(',').map((s) => s.trim().replace(/`/g, '')),
      );
    }
    expect(Object.fromEntries([...rows].map(([k, v]) => [k, [...v].sort()]))).toEqual(
      Object.fromEntries(Object.entries(ALLOWED).map(([k, v]) => [k, [...v].sort()])),
    );
  });

  it('imports follow the one-way rules of docs/architecture.md §2', () => {
    const violations: string[] = [];
    for (const file of files) {
      if (!relative(SRC, file).includes(sep)) continue; // src/index.ts re-exports the public API
      const from = topFolder(file);
      for (const spec of importSpecifiers(readFileSync(file, 'utf8'))) {
        if (spec.includes('fixtures/')) violations.push(`${relative(SRC, file)} imports data from fixtures/: ${spec}`);
        if (!spec.startsWith('.')) continue;
        const target = resolve(dirname(file), spec);
        if (!target.startsWith(SRC + sep)) {
          if (!spec.endsWith('package.json')) violations.push(`${relative(SRC, file)} reaches outside src/: ${spec}`);
          continue;
        }
        const to = topFolder(target);
        if (to === from) continue;
        if (!ALLOWED[from]?.includes(to))
          violations.push(`${relative(SRC, file)} (${from}) may not import ${to}: ${spec}`);
      }
    }
    expect(violations).toEqual([]);
  });

  it(`no source file is over ${MAX_SOURCE_LINES} lines (tests excepted)`, () => {
    const long = files.flatMap((f) => {
      const text = readFileSync(f, 'utf8');
      const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
      return lines > MAX_SOURCE_LINES ? [`${relative(SRC, f)}: ${lines} lines`] : [];
    });
    expect(long).toEqual([]);
  });

  it('no import cycle between source files, type imports included', () => {
    const graph = importGraph(files);
    // The check resolves what the code imports: were it to resolve nothing, it would pass on anything.
    expect([...graph.values()].reduce((n, targets) => n + targets.length, 0)).toBeGreaterThan(files.length);
    const cycles = importCycles(graph).map((chain) => chain.map((f) => relative(SRC, f)).join(' → '));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle as the chain of its files, and none where there is none', () => {
    const g = (edges: Record<string, string[]>): Map<string, string[]> => new Map(Object.entries(edges));
    expect(importCycles(g({ a: ['b'], b: ['c'], c: ['a', 'd'], d: [] }))).toEqual([['a', 'b', 'c', 'a']]);
    expect(importCycles(g({ a: ['a'] }))).toEqual([['a', 'a']]);
    expect(importCycles(g({ a: ['b', 'c'], b: ['d'], c: ['d'], d: [] }))).toEqual([]);
    // Two separate cycles, and the shortest loop through a file that sits on a longer one too.
    expect(importCycles(g({ a: ['b'], b: ['a', 'c'], c: ['a'], x: ['y'], y: ['x'] }))).toEqual([
      ['a', 'b', 'a'],
      ['x', 'y', 'x'],
    ]);
    expect(
      importSpecifiers(
        "import type { A } from './a.js';\nexport { b } from \"./b.js\";\nimport './c.js';\nawait import('./d.js');",
      ),
    ).toEqual(['./a.js', './b.js', './c.js', './d.js']);
  });
});
