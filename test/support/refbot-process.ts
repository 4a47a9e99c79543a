import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { CLI, ROOT } from './paths.js';

export interface RefbotExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RefbotProcess {
  url: string;
  /** The wire it speaks, as it printed it. */
  wire: string;
  child: ChildProcess;
  exited: Promise<RefbotExitStatus>;
  /** stdout and stderr so far, interleaved as they arrived. */
  output(): string;
  stderr(): string;
  /**
   * SIGTERM (the bot closes its connections and exits), SIGKILL if it has not
   * gone within `graceMs`; resolves with its exit code. Safe once it has exited.
   */
  stop(graceMs?: number): Promise<number | null>;
}

/**
 * The tests' one way to run the reference bot: `earshot refbot --port 0 ...args`
 * as a real subprocess of the built CLI, resolved once it prints
 * `refbot listening on URL (wire NAME)`; rejected with its output if it exits
 * first or stays silent for `timeoutMs`.
 */
export async function startRefbotProcess(args: readonly string[] = [], timeoutMs = 20_000): Promise<RefbotProcess> {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: build first (npm run build)`);
  const child = spawn(process.execPath, [CLI, 'refbot', '--port', '0', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stderr!.on('data', (d: Buffer) => {
    err += d.toString();
    out += d.toString();
  });
  const exited = new Promise<RefbotExitStatus>((r) => child.once('close', (code, signal) => r({ code, signal })));
  const listening = await new Promise<RegExpExecArray>((resolveLine, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`refbot did not print its URL within ${timeoutMs} ms:\n${out}`)),
      timeoutMs,
    );
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^refbot listening on (ws:\/\/\S+) \(wire (\S+)\)$/m.exec(out);
      if (m) {
        clearTimeout(timer);
        resolveLine(m);
      }
    });
    void exited.then((e) => {
      clearTimeout(timer);
      reject(new Error(`refbot exited (${e.code ?? e.signal}) before listening:\n${out}`));
    });
  });
  return {
    url: listening[1],
    wire: listening[2],
    child,
    exited,
    output: () => out,
    stderr: () => err,
    stop: async (graceMs = 5000) => {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(kill);
      }
      return (await exited).code;
    },
  };
}
