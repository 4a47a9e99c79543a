import { execFile } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/results/index.js';
import { ROOT } from '../support/paths.js';

/**
 * The package as a user gets it: `npm pack`, the tarball installed into a
 * fresh project, `earshot` imported by name from an ESM script and from
 * TypeScript (the README's example, against the installed declarations).
 *
 * Installing: the tarball is unpacked into the project's node_modules (what
 * npm does with a package's files), and each dependency the packed
 * package.json declares is linked to the copy `npm ci` put in this checkout,
 * so it resolves from the same lock file (one onnxruntime-node) without the
 * network, in a second. Only declared dependencies are linked: dist importing
 * an undeclared or dev-only package fails here as it would for a user. A real
 * `npm install` of the tarball would fetch every dependency's metadata from the
 * registry on a fresh CI machine (`npm ci` caches tarballs, not metadata) and
 * unpack onnxruntime-node and sharp again: a minute, and on the network.
 */
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
const run = promisify(execFile);

/** Exactly the runtime names `import … from 'earshot'` offers: the semver surface. A change here is a release note. */
const PUBLIC_VALUES = [
  'DOCUMENTS_MESSAGE',
  'EarshotError',
  'EvalScenario',
  'GAIA_PERSONAS',
  'REPORTERS',
  'ScenarioDefinitionError',
  'SuccessSignal',
  'applyConditions',
  'dbHash',
  'documentsContext',
  'exitCodeOf',
  'formatDiagnostic',
  'loadRunnables',
  'loadScenarios',
  'mergeRuns',
  'parseDocumentsContext',
  'registerDbStatePredicate',
  'registerEvalScenario',
  'runGaia',
  'runScenarios',
  'runSimulation',
  'runSuite',
  'startRefbot',
  'validatePaths',
];

interface PackedFile {
  path: string;
}

interface Observed {
  exports: string[];
  reporters: string[];
  version: string;
  schemaTitle: string | null;
  internalImport: string | null;
  botUrl: string;
  exit: { reason: string; exitCode: number };
  outDir: string;
  interrupted: boolean;
  results: { name: string; status: string; failures: unknown[]; turns: string[] }[];
  summary: RunSummary;
  hooks: string[];
  terminal: string;
  files: string[];
  usageError: { isEarshotError: boolean; exitCode: number; message: string } | null;
}

let dir: string;
let project: string;
let shipped: string[];
let manifest: { version: string; dependencies: Record<string, string>; bin: Record<string, string> };

beforeAll(async () => {
  if (!existsSync(join(ROOT, 'dist', 'index.js')))
    throw new Error('dist/index.js is missing: build first (npm run build)');
  dir = mkdtempSync(join(tmpdir(), 'earshot-pack-'));
  // --ignore-scripts: `prepare` would rebuild dist, deleting it first, under the feet of the
  // test files that run the built CLI at the same time.
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], {
    cwd: ROOT,
    timeout: 60_000,
  });
  const [info] = JSON.parse(packed.stdout) as [{ filename: string; files: PackedFile[] }];
  shipped = info.files.map((f) => f.path).sort();

  project = join(dir, 'project');
  const installed = join(project, 'node_modules', 'earshot');
  mkdirSync(installed, { recursive: true });
  await run('tar', ['-xzf', join(dir, info.filename), '-C', installed, '--strip-components=1'], { timeout: 30_000 });
  manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8')) as typeof manifest;
  // The user's own dev dependency: the README example uses `process`.
  for (const dep of [...Object.keys(manifest.dependencies), '@types/node']) {
    const target = join(ROOT, 'node_modules', dep);
    if (!existsSync(target)) throw new Error(`${target} is missing: run npm ci first`);
    const link = join(project, 'node_modules', dep);
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(target, link, 'dir');
  }
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: 'earshot-consumer', private: true, type: 'module' }),
  );
  mkdirSync(join(project, 'scenarios'));
  copyFileSync(
    join(ROOT, 'scenarios', 'text', 'capital_question.yaml'),
    join(project, 'scenarios', 'capital_question.yaml'),
  );
  copyFileSync(join(import.meta.dirname, 'consumer-check.mjs'), join(project, 'check.mjs'));
}, 120_000);

afterAll(() => {
  // Removes the links, never what they point at.
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** tsc's errors in the example and in earshot's declarations (the project's tsconfig.json). */
async function typeErrors(): Promise<string[]> {
  const output = await run(process.execPath, [TSC, '-p', 'tsconfig.json'], { cwd: project, timeout: 60_000 }).then(
    (r) => r.stdout,
    (err: { stdout?: string }) => err.stdout ?? String(err),
  );
  return output.split('\n').filter((line) => /^(example\.ts|node_modules\/earshot\/)\S*\(\d+,\d+\): error /.test(line));
}

describe('the packed package', () => {
  it('ships the built library, CLI, schemas and data, and no tests, sources or stale output', () => {
    for (const path of [
      'package.json',
      'README.md',
      'dist/index.js',
      'dist/index.d.ts',
      'dist/cli/main.js',
      'schema/scenario.schema.json',
      'fixtures/brain.yaml',
      'scenarios/text/capital_question.yaml',
    ]) {
      expect(shipped).toContain(path);
    }
    expect(shipped.filter((p) => /\.test\.|\.testutil\.|^src\/|^test\/|^bench\/|node_modules/.test(p))).toEqual([]);
    // Every shipped build output has its source: `npm run build` starts from an empty dist.
    const orphans = shipped
      .filter((p) => p.startsWith('dist/'))
      .filter((p) => !existsSync(join(ROOT, p.replace(/^dist\//, 'src/').replace(/(\.d\.ts|\.js\.map|\.js)$/, '.ts'))));
    expect(orphans).toEqual([]);
    expect(existsSync(join(project, 'node_modules', 'earshot', manifest.bin.earshot))).toBe(true);
  });

  it('is imported by name from an ESM script that runs a text scenario against startRefbot', async () => {
    const { stdout } = await run(process.execPath, ['check.mjs'], {
      cwd: project,
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    const seen = JSON.parse(stdout.trim().split('\n').at(-1)!) as Observed;
    expect(seen.exports).toEqual(PUBLIC_VALUES);
    expect(seen.reporters).toEqual(['list', 'dot', 'json', 'jsonl', 'junit', 'html', 'github']);
    expect(seen.version).toBe(manifest.version);
    expect(seen.schemaTitle).toBe('earshot scenario file (scripted scenarios and simulations)');
    expect(seen.internalImport).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');

    expect(seen.botUrl).toMatch(/^ws:\/\/127\.0\.0\.1:\d+$/);
    expect(seen.botUrl).not.toMatch(/:0$/);
    expect(seen.exit).toEqual({ reason: 'closed', exitCode: 0 });
    expect(seen.interrupted).toBe(false);
    expect(seen.results).toEqual([
      { name: 'capital_question/text', status: 'passed', failures: [], turns: ['passed', 'passed'] },
    ]);
    expect(seen.summary).toMatchObject({
      ok: true,
      results: 1,
      planned: 1,
      counts: { passed: 1, failed: 0, skipped: 0, error: 0 },
      pass_rate: 1,
    });
    expect(seen.summary.scenarios.map((s) => [s.name, s.outcome])).toEqual([['capital_question/text', 'passed']]);
    expect(seen.summary.wall_ms).toBeGreaterThan(0);
    expect(seen.hooks).toEqual([
      'begin:1',
      'start:capital_question/text',
      'turn:0:passed:0',
      'turn:1:passed:0',
      'end:capital_question/text:passed',
      'summary:true',
    ]);
    // The named reporters ran too: dot to the given stream, junit and the results to outDir.
    expect(seen.terminal).toContain('1 passed, 0 failed');
    expect(seen.files).toEqual(['out/results.jsonl', 'out/summary.json', 'out/junit.xml']);
    expect(readFileSync(join(project, 'out', 'junit.xml'), 'utf8')).toContain('capital_question');

    expect(seen.usageError).toEqual({
      isEarshotError: true,
      exitCode: 2,
      message: expect.stringContaining('unknown reporter "nope"'),
    });
  }, 60_000);

  it("type-checks the README's example against the installed declarations", async () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const example = /## Use it from code\n[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
    expect(example, 'README.md has a ```ts block under "## Use it from code"').toBeDefined();
    writeFileSync(join(project, 'example.ts'), example!);
    writeFileSync(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          types: ['node'],
          skipLibCheck: false,
        },
        files: ['example.ts'],
      }),
    );
    // skipLibCheck off, so earshot's own declarations are checked as well (a public type naming a
    // package the user lacks shows up); errors inside other packages' declarations are theirs.
    expect(await typeErrors()).toEqual([]);
    // The check saw the package's declarations, not an any: a wrong option is an error.
    writeFileSync(join(project, 'example.ts'), `${example!}\nawait runScenarios({ paths: [], url: 1 });\n`);
    expect(await typeErrors()).toEqual([expect.stringMatching(/^example\.ts\(\d+,\d+\): error TS2322: /)]);
  }, 120_000);

  it('loads a NeMo scenario module that imports earshot by name (TypeScript, with --allow-code) and lists it', async () => {
    // A user's module, as docs/guide/coming-from-nemo.md writes one: the classes come from the installed package,
    // the registry the CLI reads is the same one (a copy of earshot loaded twice still shares it).
    writeFileSync(
      join(project, 'pizza.ts'),
      [
        "import { EvalScenario, registerEvalScenario, SuccessSignal, type Persona, type Task } from 'earshot';",
        'abstract class RestaurantBase extends EvalScenario {',
        "  override domain = 'restaurant';",
        '  readonly successSignals = [SuccessSignal.ACTION_MATCH, SuccessSignal.CLEAN_EXIT];',
        '}',
        'registerEvalScenario(',
        '  class PizzaPepperoni extends RestaurantBase {',
        "    override name = 'restaurant__pizza_pepperoni';",
        "    override referenceAnswer = { items: [{ name: 'Pepperoni Pizza', quantity: '1' }] };",
        '    override get userPersona(): Persona {',
        "      return { role: 'human user', name: 'Charlie' };",
        '    }',
        '    override get userTask(): Task {',
        "      return { goal: 'Order a pepperoni pizza.' };",
        '    }',
        '  },',
        ');',
        '',
      ].join('\n'),
    );
    const cli = join(project, 'node_modules', 'earshot', manifest.bin.earshot);
    const listed = await run(process.execPath, [cli, 'run', '--list', '--allow-code', 'pizza.ts'], {
      cwd: project,
      timeout: 60_000,
      env: { ...process.env, NO_COLOR: '1' },
    });
    expect(listed.stdout).toMatch(/restaurant[\s\S]*restaurant__pizza_pepperoni/);
    // Without consent the module is not even imported.
    const refused = await run(process.execPath, [cli, 'run', '--list', 'pizza.ts'], {
      cwd: project,
      timeout: 60_000,
    }).then(
      () => null,
      (err: { code?: number; stderr?: string }) => err,
    );
    expect(refused?.code).toBe(2);
    expect(refused?.stderr).toMatch(/pizza\.ts.*--allow-code/);
  }, 120_000);
});
