import { UsageError } from '../core/errors.js';
import { SCENARIO_SEVERITIES, type Runnable, type ScenarioSeverity } from '../scenario/index.js';

/**
 * `--category` / `--severity` (earshot extensions on GAIA's fields): which
 * scenarios and simulations a run keeps. Each is a set; a scenario matches
 * when its field is in the set, so one without the field never matches a
 * filter on it. Both given: both must match.
 */
export interface RunnableFilter {
  categories?: readonly string[];
  severities?: readonly ScenarioSeverity[];
}

export function matchesFilter(s: Pick<Runnable, 'category' | 'severity'>, filter: RunnableFilter): boolean {
  if (filter.categories && !(s.category !== undefined && filter.categories.includes(s.category))) return false;
  if (filter.severities && !(s.severity !== undefined && filter.severities.includes(s.severity))) return false;
  return true;
}

/** The scenarios the filter keeps; none kept is a usage error that says what there was. */
export function selectRunnables<T extends Pick<Runnable, 'category' | 'severity' | 'name'>>(
  all: readonly T[],
  filter: RunnableFilter,
  where: string,
): T[] {
  const kept = all.filter((s) => matchesFilter(s, filter));
  if (kept.length === 0)
    throw new UsageError(`no scenarios in ${where} match ${describeFilter(filter)} (${present(all)})`);
  return kept;
}

export function describeFilter(filter: RunnableFilter): string {
  const parts: string[] = [];
  if (filter.categories) parts.push(`--category ${filter.categories.join(',')}`);
  if (filter.severities) parts.push(`--severity ${filter.severities.join(',')}`);
  return parts.join(' ');
}

/** `--category a,b`: a comma list of free-text labels. */
export function parseCategories(value: string): string[] {
  const list = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (list.length === 0) throw new UsageError(`--category "${value}": expected one or more labels, comma-separated`);
  return list;
}

/** `--severity high,critical`: a comma list of GAIA's levels. */
export function parseSeverities(value: string): ScenarioSeverity[] {
  const list = value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '');
  const bad = list.filter((l) => !(SCENARIO_SEVERITIES as readonly string[]).includes(l));
  if (list.length === 0 || bad.length) {
    throw new UsageError(
      `--severity "${value}": expected ${SCENARIO_SEVERITIES.join(', ')} ` +
        `(comma-separated)${bad.length ? `, got ${bad.join(', ')}` : ''}`,
    );
  }
  return list as ScenarioSeverity[];
}

function present(all: readonly Pick<Runnable, 'category' | 'severity'>[]): string {
  const cats = [...new Set(all.flatMap((s) => (s.category !== undefined ? [s.category] : [])))];
  const sevs = [...new Set(all.flatMap((s) => (s.severity !== undefined ? [s.severity] : [])))];
  return `categories: ${cats.join(', ') || 'none'}; severities: ${sevs.join(', ') || 'none'}`;
}
