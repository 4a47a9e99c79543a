import { UsageError } from '../core/errors.js';
import {
  domainOf,
  matchesDomain,
  SCENARIO_SEVERITIES,
  type Runnable,
  type ScenarioSeverity,
} from '../scenario/index.js';

/**
 * `--category` / `--severity` (earshot extensions on GAIA's fields): which
 * scenarios and simulations a run keeps. Each is a set; a scenario matches
 * when its field is in the set, so one without the field never matches a
 * filter on it. Both given: both must match.
 */
export interface RunnableFilter {
  categories?: readonly string[];
  severities?: readonly ScenarioSeverity[];
  /** `--domain a,b` (NeMo's): a scenario whose name starts with one of these followed by `__`. */
  domains?: readonly string[];
  /** `--scenarios x,y` (NeMo's): these scenarios by name (a NeMo name, or earshot's `<file name>/<name>`). */
  names?: readonly string[];
}

type Filterable = Pick<Runnable, 'category' | 'severity'> & { name?: string; nemo?: { name: string } };

/** The name NeMo's filters read: a NeMo scenario's registry name, else earshot's. */
export function nemoName(s: { name?: string; nemo?: { name: string } }): string {
  return s.nemo?.name ?? s.name ?? '';
}

export function matchesFilter(s: Filterable, filter: RunnableFilter): boolean {
  if (filter.categories && !(s.category !== undefined && filter.categories.includes(s.category))) return false;
  if (filter.severities && !(s.severity !== undefined && filter.severities.includes(s.severity))) return false;
  if (filter.domains && !filter.domains.some((d) => matchesDomain(nemoName(s), d))) return false;
  if (filter.names && !filter.names.some((n) => n === nemoName(s) || n === s.name)) return false;
  return true;
}

/** The scenarios the filter keeps; none kept is a usage error that says what there was. */
export function selectRunnables<T extends Filterable & { name: string }>(
  all: readonly T[],
  filter: RunnableFilter,
  where: string,
): T[] {
  const unknown = (filter.names ?? []).filter((n) => !all.some((s) => n === nemoName(s) || n === s.name));
  if (unknown.length)
    throw new UsageError(
      `--scenarios: no scenario named ${unknown.join(', ')} in ${where} (there are: ${all.map(nemoName).join(', ')})`,
    );
  const kept = all.filter((s) => matchesFilter(s, filter));
  if (kept.length === 0)
    throw new UsageError(`no scenarios in ${where} match ${describeFilter(filter)} (${present(all)})`);
  return kept;
}

export function describeFilter(filter: RunnableFilter): string {
  const parts: string[] = [];
  if (filter.categories) parts.push(`--category ${filter.categories.join(',')}`);
  if (filter.severities) parts.push(`--severity ${filter.severities.join(',')}`);
  if (filter.domains) parts.push(`--domain ${filter.domains.join(',')}`);
  if (filter.names) parts.push(`--scenarios ${filter.names.join(',')}`);
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

function present(all: readonly Filterable[]): string {
  const cats = [...new Set(all.flatMap((s) => (s.category !== undefined ? [s.category] : [])))];
  const sevs = [...new Set(all.flatMap((s) => (s.severity !== undefined ? [s.severity] : [])))];
  // Domains are NeMo's (a registry name's prefix): said only when NeMo scenarios are there to have one.
  const domains = [...new Set(all.flatMap((s) => (s.nemo ? [domainOf(s.nemo.name)] : [])))];
  return (
    `categories: ${cats.join(', ') || 'none'}; severities: ${sevs.join(', ') || 'none'}` +
    (domains.length ? `; domains: ${domains.join(', ')}` : '')
  );
}

/** `--domain a,b` / `--scenarios x,y`: a comma list of names. */
export function parseNameList(flag: string, value: string): string[] {
  const list = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  if (list.length === 0) throw new UsageError(`${flag} "${value}": expected one or more names, comma-separated`);
  return list;
}

/** `--list`: the scenarios grouped by domain (the name prefix before `__`), with counts; NeMo's `--list`. */
export function listByDomain(all: readonly Filterable[]): string {
  const groups = new Map<string, Filterable[]>();
  for (const s of all) {
    const d = domainOf(nemoName(s));
    groups.set(d, [...(groups.get(d) ?? []), s]);
  }
  const lines: string[] = [];
  for (const [domain, members] of [...groups].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`${domain} (${members.length})`);
    for (const s of members) {
      const about = (s as { nemo?: { description?: string } }).nemo?.description;
      lines.push(`  ${nemoName(s)}${about ? `  ${about}` : ''}`);
    }
  }
  const n = all.length;
  lines.push('', `${n} scenario${n === 1 ? '' : 's'} in ${groups.size} domain${groups.size === 1 ? '' : 's'}`);
  return `${lines.join('\n')}\n`;
}
