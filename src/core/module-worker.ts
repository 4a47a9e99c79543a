import { type ChildProcess, fork } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';

/**
 * Starts a worker thread on the module `name` beside `callerUrl` (pass
 * `import.meta.url`): the built `.js`, or under tsx and vitest the `.ts`
 * source, loaded through tsx's loader registered inside the worker (a
 * `--import tsx` in the worker's execArgv does not reach its entry module).
 */
export function startModuleWorker(callerUrl: string, name: string, workerData: unknown): Worker {
  if (!callerUrl.endsWith('.ts')) return new Worker(new URL(`./${name}.js`, callerUrl), { workerData });
  // tsx's ESM API (its `import` build, beside the `require` one that resolves here).
  const api = pathToFileURL(
    createRequire(callerUrl)
      .resolve('tsx/esm/api')
      .replace(/\.cjs$/, '.mjs'),
  ).href;
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const boot =
    `import(${JSON.stringify(api)})` +
    `.then((t) => t.tsImport(${JSON.stringify(entry)}, ${JSON.stringify(callerUrl)}))`;
  return new Worker(boot, { eval: true, workerData });
}

/**
 * Forks a Node process on the module `name` beside `callerUrl`, with an IPC
 * channel using the structured clone (typed arrays travel as such): the built
 * `.js`, or under tsx and vitest the `.ts` source with tsx's loader. stderr is
 * piped, so the caller decides what of it a user sees.
 */
export function forkModule(callerUrl: string, name: string): ChildProcess {
  const source = callerUrl.endsWith('.ts');
  const entry = fileURLToPath(new URL(`./${name}.${source ? 'ts' : 'js'}`, callerUrl));
  const execArgv = source ? ['--import', pathToFileURL(createRequire(callerUrl).resolve('tsx')).href] : [];
  return fork(entry, [], { execArgv, serialization: 'advanced', stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
}
