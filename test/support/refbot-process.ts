import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..', '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');

export interface RefbotProcess {
  url: string;
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<number | null>;
}

/** Starts `earshot refbot --port 0 ...` as a real subprocess and resolves once it prints its URL. */
export function startRefbotProcess(args: readonly string[] = [], timeoutMs = 20_000): Promise<RefbotProcess> {
  const child = spawn(process.execPath, [CLI, 'refbot', '--port', '0', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`refbot did not start within ${timeoutMs} ms:\n${out}`)), timeoutMs);
    const onData = (d: Buffer): void => {
      out += d.toString();
      const m = /listening on (ws:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolvePromise({
          url: m[1],
          child,
          output: () => out,
          stop: async () => {
            if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
            return exited;
          },
        });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`refbot exited (${code}) before listening:\n${out}`));
    });
  });
}
