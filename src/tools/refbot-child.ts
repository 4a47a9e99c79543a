import type { Clock } from '../core/clock.js';
import { EarshotError } from '../core/errors.js';
import { BotProcess, describeExit, resolveSelfCommand, type PortAllocator } from '../bots/index.js';

export interface RefbotChildOptions {
  ports: PortAllocator;
  /** `earshot refbot` flags after `--port` (wire, brain, delays, truth log...). */
  args: readonly string[];
  /** The bot's stdout and stderr go here (redacted). */
  logFile: string;
  /** How to run `earshot`; default this package's built CLI. */
  selfCommand?: readonly string[];
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  /** How long the bot may take to accept connections (default 30 s). */
  spawnTimeoutMs?: number;
  signal?: AbortSignal;
  /**
   * Names the bot in the error when it does not start, e.g. `calibrate: the reference bot (protobuf, delay 300 ms)`.
   */
  label?: string;
}

export interface RefbotChild {
  url: string;
  port: number;
  /** SIGTERM (the bot leaves cleanly), SIGKILL only if it hangs; frees the port. */
  stop(): Promise<void>;
}

/**
 * The reference bot as a subprocess of the tools that measure through it
 * (`earshot demo`, `earshot calibrate`): its own process, so its real-time
 * audio and the harness's do not share an event loop. Resolves once it accepts
 * connections on a port of `ports`; a bot that exits or stays deaf first is an
 * EarshotError with the end of its log, and is stopped.
 */
export async function startRefbotChild(options: RefbotChildOptions): Promise<RefbotChild> {
  const port = await options.ports.acquire();
  const [command, ...prefix] = options.selfCommand ?? resolveSelfCommand();
  const bot = BotProcess.spawn({
    command,
    args: [...prefix, 'refbot', '--port', String(port), ...options.args],
    logFile: options.logFile,
    clock: options.clock,
    env: options.env,
  });
  const stop = async (): Promise<void> => {
    await bot.stop({ graceMs: 0, termGraceMs: 5000 });
    options.ports.release(port);
  };
  try {
    const ready = await bot.waitReady({
      host: '127.0.0.1',
      port,
      timeoutMs: options.spawnTimeoutMs ?? 30_000,
      signal: options.signal,
    });
    if (!ready.ready) {
      const why =
        ready.why === 'exited' ? describeExit(ready.exit) : `did not listen on port ${port} within ${ready.afterMs} ms`;
      throw new EarshotError(
        `${options.label ?? 'the reference bot'} ${why}; see ${options.logFile}:\n${bot.logTail(8)}`,
      );
    }
  } catch (err) {
    await stop();
    throw err;
  }
  return { url: `ws://127.0.0.1:${port}`, port, stop };
}
