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

/**
 * CPU time (ms) the given threads of this process have run, from
 * `/proc/self/task/<id>/schedstat` (the scheduler's own nanosecond count),
 * falling back to `stat`'s user + system ticks (10 ms: too coarse for a thread
 * that runs 100 µs at a time); null where /proc is missing.
 */
export function threadCpuMs(ids: Iterable<string | number>): number | null {
  let ms = 0;
  try {
    for (const id of ids) {
      try {
        ms += Number(readFileSync(`/proc/self/task/${id}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
      } catch {
        const stat = readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        // USER_HZ is 100 on every Linux this runs on.
        ms += (Number(fields[11]) + Number(fields[12])) * 10;
      }
    }
  } catch {
    return null;
  }
  return ms;
}

/** Voluntary context switches (sleeps) of the given threads so far; null where /proc is missing. */
export function threadSleeps(ids: Iterable<string | number>): number | null {
  let n = 0;
  try {
    for (const id of ids)
      n += Number(
        /^voluntary_ctxt_switches:\s+(\d+)/m.exec(readFileSync(`/proc/self/task/${id}/status`, 'utf8'))?.[1] ?? NaN,
      );
  } catch {
    return null;
  }
  return Number.isNaN(n) ? null : n;
}
