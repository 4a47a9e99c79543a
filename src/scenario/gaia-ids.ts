import { diagnosticAt, formatLocation, type Diagnostic } from './diagnostics.js';
import { nearestLocation } from './normalize.js';
import type { Runnable } from './types.js';

/**
 * GAIA: an `id` is "unique across all scenarios" (it names the result and `traces/<id>.json`). One file cannot
 * know the others, so whoever holds a run's scenarios together (validatePaths, the runner's plan) asks here.
 */
export interface GaiaIdConflict {
  /** The later scenario, whose id a scenario before it already has. */
  scenario: Runnable;
  /** An error at its `id:`, naming where the first one is. */
  diagnostic: Diagnostic;
}

/** Every GAIA scenario whose id an earlier one (in the order given) already has. */
export function gaiaIdConflicts(scenarios: readonly Runnable[]): GaiaIdConflict[] {
  const first = new Map<string, Runnable>();
  const out: GaiaIdConflict[] = [];
  for (const s of scenarios) {
    if (s.kind !== 'script' || !s.gaia) continue;
    const earlier = first.get(s.gaia.id);
    if (!earlier) {
      first.set(s.gaia.id, s);
      continue;
    }
    if (earlier.file === s.file) continue; // the same file named twice is one scenario, not a clash
    const at = nearestLocation(s.locations, s.file, 'id');
    const there = formatLocation(nearestLocation(earlier.locations, earlier.file, 'id'));
    out.push({
      scenario: s,
      diagnostic: diagnosticAt(
        'error',
        at,
        'id',
        `duplicate GAIA id '${s.gaia.id}': ${there} has it too (an id is unique across all scenarios: it names the ` +
          'result and its trace)',
      ),
    });
  }
  return out;
}
