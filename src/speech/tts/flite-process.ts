import { spawn, type ChildProcess } from 'node:child_process';

/**
 * The process that runs Flite. `wasi.start()` is synchronous and a sentence
 * takes 30–150 ms, long enough to make a 20 ms audio pacer stutter, so
 * synthesis runs off the main thread. It runs in a child Node process rather
 * than a worker thread: on Node 20, instantiating this 21 MB WASI module
 * again and again in a worker thread segfaulted about one run in four
 * (100 sentences per run), taking the whole harness down; a crashed child is
 * restarted instead.
 *
 * The source is inline plain JavaScript so that it runs the same from `src/`
 * under tsx/vitest and from `dist/`. The child compiles the module once,
 * instantiates it per call (a Flite run is a whole program: fresh memory each
 * time) and answers with the WAV bytes over the IPC channel.
 *
 * `node:wasi` emits an ExperimentalWarning when first loaded; the child
 * filters exactly that warning in its own process, so the embedding
 * application's warnings are untouched.
 */
const CHILD_SOURCE = `
const fs = require('node:fs');
const path = require('node:path');
const originalEmitWarning = process.emitWarning;
process.emitWarning = function (warning, ...rest) {
  const type = typeof rest[0] === 'string' ? rest[0] : rest[0] && rest[0].type;
  if (type === 'ExperimentalWarning' && String(warning).includes('WASI')) return;
  return originalEmitWarning.call(process, warning, ...rest);
};
const { WASI } = require('node:wasi');
process.emitWarning = originalEmitWarning;

const [wasmPath, outDir] = process.argv.slice(-2);
const compiled = WebAssembly.compile(fs.readFileSync(wasmPath));
process.on('disconnect', () => process.exit(0));
process.on('message', async (job) => {
  const wavPath = path.join(outDir, 'u' + job.id + '.wav');
  const logPath = path.join(outDir, 'u' + job.id + '.log');
  let logFd = -1;
  try {
    logFd = fs.openSync(logPath, 'w');
    const wasi = new WASI({
      version: 'preview1',
      args: ['flite', '-voice', job.voice, '-t', job.text, '-o', '/out/u' + job.id + '.wav'],
      env: {},
      preopens: { '/out': outDir },
      stdout: logFd,
      stderr: logFd,
      returnOnExit: true,
    });
    const instance = await WebAssembly.instantiate(await compiled, wasi.getImportObject());
    const exitCode = wasi.start(instance);
    fs.closeSync(logFd);
    logFd = -1;
    const log = fs.readFileSync(logPath, 'utf8');
    if (exitCode !== 0 || !fs.existsSync(wavPath)) {
      process.send({ id: job.id, error: 'flite exited with code ' + exitCode + (log ? ': ' + log.trim() : '') });
      return;
    }
    process.send({ id: job.id, wav: new Uint8Array(fs.readFileSync(wavPath)) });
  } catch (err) {
    process.send({ id: job.id, error: String(err && err.message ? err.message : err) });
  } finally {
    if (logFd >= 0) fs.closeSync(logFd);
    fs.rmSync(wavPath, { force: true });
    fs.rmSync(logPath, { force: true });
  }
});
`;

export interface FliteJob {
  id: number;
  voice: string;
  text: string;
}

export type FliteReply = { id: number; wav: Uint8Array } | { id: number; error: string };

export function startFliteProcess(wasmPath: string, outDir: string): ChildProcess {
  return spawn(process.execPath, ['-e', CHILD_SOURCE, '--', wasmPath, outDir], {
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    serialization: 'advanced',
    env: {},
  });
}
