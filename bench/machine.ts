import { readFileSync } from 'node:fs';

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
