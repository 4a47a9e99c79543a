import type { DriverRuntime } from '../session/index.js';

/**
 * Waits for the bot to stop speaking before the caller's next line, so the line does not talk over the reply; a bot
 * still speaking after `botQuietMaxWaitMs` is logged and the turn goes on (a long reply must not stall the run).
 * Shared by the script and GAIA drivers; `why` is the log line saying what the wait is for.
 */
export async function waitBotQuiet(rt: DriverRuntime, why: string): Promise<void> {
  if (!rt.stream.speaking) return;
  rt.log(why);
  const maxWait = rt.config.botQuietMaxWaitMs;
  if (!(await rt.stream.waitQuiet(maxWait))) rt.log(`send: bot still speaking after ${maxWait}ms, going on`);
}
