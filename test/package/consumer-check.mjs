// Runs inside a temporary project that has earshot installed from its packed
// tarball (see pack.test.ts): a user's ESM script, importing earshot by name.
// Prints one JSON line with what it observed; the test asserts on it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import * as earshot from 'earshot';
import { runScenarios, startRefbot, EarshotError } from 'earshot';

const require = createRequire(import.meta.url);

async function importError(specifier) {
  try {
    await import(specifier);
    return null;
  } catch (err) {
    return err.code ?? String(err);
  }
}

const hooks = [];
/** A reporter of the user's own, next to the built-in ones. */
const recorder = {
  name: 'recorder',
  printsToTerminal: false,
  onBegin: (run) => hooks.push(`begin:${run.total}`),
  onScenarioStart: (info) => hooks.push(`start:${info.name}`),
  onTurnEnd: (_scenario, turn, failures) => hooks.push(`turn:${turn.index}:${turn.status}:${failures.length}`),
  onScenarioEnd: (result) => hooks.push(`end:${result.name}:${result.status}`),
  onEnd: (summary) => hooks.push(`summary:${summary.ok}`),
};

let terminal = '';
const bot = await startRefbot({ port: 0 });
let outcome;
let exit;
try {
  outcome = await runScenarios({
    paths: ['scenarios'],
    url: bot.url,
    outDir: 'out',
    reporter: 'dot,junit',
    reporters: [recorder],
    stdout: {
      write: (chunk) => {
        terminal += chunk;
        return true;
      },
    },
  });
} finally {
  exit = await bot.close();
}

let usageError = null;
try {
  await runScenarios({ paths: ['scenarios'], url: bot.url, outDir: 'out-bad', reporter: 'nope' });
} catch (err) {
  usageError = { isEarshotError: err instanceof EarshotError, exitCode: err.exitCode, message: err.message };
}

const schema = fileURLToPath(import.meta.resolve('earshot/schema/scenario.schema.json'));
console.log(
  JSON.stringify({
    exports: Object.keys(earshot).sort(),
    reporters: Object.keys(earshot.REPORTERS),
    version: require('earshot/package.json').version,
    schemaTitle: JSON.parse(readFileSync(schema, 'utf8')).title ?? null,
    internalImport: await importError('earshot/dist/refbot/index.js'),
    botUrl: bot.url,
    exit,
    outDir: outcome.outDir,
    interrupted: outcome.interrupted,
    results: outcome.results.map((r) => ({
      name: r.name,
      status: r.status,
      failures: r.failures,
      turns: r.turns.map((t) => t.status),
    })),
    summary: outcome.summary,
    hooks,
    terminal,
    files: ['out/results.jsonl', 'out/summary.json', 'out/junit.xml'].filter((f) => existsSync(f)),
    usageError,
  }),
);
