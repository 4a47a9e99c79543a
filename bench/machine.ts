import { readdirSync, readFileSync } from 'node:fs';

/**
 * Linux pressure-stall total for CPU (`some`: time during which at least one
 * runnable task waited for a CPU), in µs since boot; null where
 * /proc/pressure is missing. Benchmarks take it before and after a run to say
 * how busy the machine was.
 */
export function cpuStallUs(): number | null {
  try {
    const m = /some .*total=(\d+)/.exec(readFileSync('/proc/pressure/cpu', 'utf8'));
    return m ? Number(m[1]) : null;
  } catch {
    return null;
  }
}

/** This process's threads (Linux `/proc/self/task`), by id; empty elsewhere. */
export function threadIds(): Set<string> {
  try {
    return new Set(readdirSync('/proc/self/task'));
  } catch {
    return new Set();
  }
}

/** CPU time (user + system, ms) the given threads of this process have used; null where /proc is missing. */
export function threadCpuMs(ids: Iterable<string>): number | null {
  let ticks = 0;
  try {
    for (const id of ids) {
      const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
    }
  } catch {
    return null;
  }
  // USER_HZ is 100 on every Linux this runs on.
  return ticks * 10;
}
