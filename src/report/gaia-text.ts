import type { GaiaResult, GaiaTurnScore, RunSummary } from '../results/index.js';
import { SCORECARD_DIMENSIONS, type ScorecardDimension } from '../scenario/index.js';

/**
 * GAIA scores as plain text, shared by the terminal list, JUnit's system-out and the GitHub summary: the
 * turn × dimension grid, its legend, a scenario's `[category · severity]` tag and the run's summary groups. Plain
 * strings without colour: each reporter makes them safe for where it writes them.
 */

/** GAIA's dimensions in grid order, with the column heads the grid uses. */
export const DIMENSION_ABBREVIATIONS: Readonly<Record<ScorecardDimension, string>> = Object.freeze({
  correctness: 'C',
  tool_selection: 'T',
  context_retention: 'R',
  completeness: 'Cm',
  efficiency: 'E',
  personality: 'P',
  error_recovery: 'ER',
});

const NOT_APPLICABLE = 'n/a';

export function dimensionLegend(): string {
  return (
    SCORECARD_DIMENSIONS.map((d) => `${DIMENSION_ABBREVIATIONS[d]} ${d.replace(/_/g, ' ')}`).join(' · ') +
    `; scores 0–10, ${NOT_APPLICABLE}: not applicable (the wire did not show function calls)`
  );
}

/** `[rag_quality · critical]`, `[rag_quality]`, `[critical]`, or '' when the scenario has neither. */
export function scenarioTag(s: { category?: string; severity?: string }): string {
  const parts = [s.category, s.severity].filter((x): x is string => x !== undefined && x !== '');
  return parts.length === 0 ? '' : `[${parts.join(' · ')}]`;
}

/** A score as the grid shows it: whole numbers bare, others to one decimal; `–` when the judge gave none. */
export function scoreText(score: number | null): string {
  if (score === null) return '–';
  return Number.isInteger(score) ? String(score) : score.toFixed(1);
}

/** A dimension's cell in one turn: its score, `n/a` when not applicable, blank when the turn lacks it. */
function cellText(turn: GaiaTurnScore, dimension: ScorecardDimension): string {
  const d = turn.dimensions.find((x) => x.dimension === dimension);
  if (!d) return '';
  return d.applicable ? scoreText(d.score) : NOT_APPLICABLE;
}

/** `9.29 ≥ 7` / `5.07 < 7`: a total against the pass threshold. */
function totalText(total: number, threshold: number): string {
  return `${total.toFixed(2)} ${total >= threshold ? '≥' : '<'} ${threshold}`;
}

/** Why a turn failed beyond its total: the automatic zero and the success criteria's "no". */
export function turnReasons(turn: GaiaTurnScore): string[] {
  const out: string[] = [];
  if (turn.auto_zero) out.push(`auto-zero ${turn.auto_zero.rule} (${turn.auto_zero.by}): ${turn.auto_zero.reason}`);
  if (turn.success?.verdict === 'no') out.push(`success criteria not met: ${turn.success.reason}`);
  return out;
}

const CELL = 4;

/**
 * The turn × dimension grid, one row per GAIA turn with its total against the threshold and its verdict, the reasons
 * under the row, then the scenario's total:
 *
 * ```
 * turn     C    T    R   Cm    E    P   ER  total
 * 1       10  n/a    9    8  n/a   10   10  9.29 ≥ 7  passed
 * ```
 */
export function gaiaGridLines(gaia: GaiaResult): string[] {
  const heads = SCORECARD_DIMENSIONS.map((d) => DIMENSION_ABBREVIATIONS[d].padStart(CELL + 1)).join('');
  const head = `${'turn'.padEnd(5)}${heads}  total`;
  const lines = [head];
  for (const t of gaia.turns) {
    const cells = SCORECARD_DIMENSIONS.map((d) => cellText(t, d).padStart(CELL + 1)).join('');
    lines.push(
      `${String(t.turn).padEnd(5)}${cells}  ${totalText(t.total, gaia.pass_threshold)}  ` +
        `${t.passed ? 'passed' : 'failed'}`,
    );
    for (const reason of turnReasons(t)) lines.push(`       ${reason}`);
  }
  lines.push(
    `total ${gaia.total.toFixed(2)} / 10, mean of ${gaia.turns.length} turn${gaia.turns.length === 1 ? '' : 's'} ` +
      `(pass at ${gaia.pass_threshold}, every turn must pass): ${gaia.passed ? 'passed' : 'failed'}`,
  );
  return lines;
}

/** One turn as one line (JUnit's system-out): `GAIA turn 1: C 10 · T n/a · … · total 9.29 ≥ 7: passed`. */
export function gaiaTurnLine(gaia: GaiaResult, turn: GaiaTurnScore): string {
  const cells = SCORECARD_DIMENSIONS.map((d) => `${DIMENSION_ABBREVIATIONS[d]} ${cellText(turn, d) || '–'}`);
  return (
    `GAIA turn ${turn.turn}: ${cells.join(' · ')} · total ${totalText(turn.total, gaia.pass_threshold)}: ` +
    `${turn.passed ? 'passed' : 'failed'}`
  );
}

function pct(rate: number | null): string {
  return rate === null ? '–' : `${Math.round(rate * 100)}%`;
}

/**
 * The run's groups as aligned text (the list's footer): per category runs, pass rate and mean GAIA total; per
 * dimension the mean and how many scores; per severity the pass rate. Empty when the summary has no group.
 */
export function summaryGroupLines(summary: RunSummary): string[] {
  const lines: string[] = [];
  const categories = Object.entries(summary.categories ?? {});
  if (categories.length > 0) {
    const width = Math.max(...categories.map(([name]) => [...name].length));
    lines.push('By category:');
    for (const [name, g] of categories) {
      const rated = `${g.passed}/${g.runs}`;
      lines.push(
        `  ${name.padEnd(width)}  ${rated.padStart(7)} passed  ${pct(g.pass_rate).padStart(4)}` +
          (g.mean_total === null ? '' : `  mean total ${g.mean_total.toFixed(2)}`),
      );
    }
  }
  const dimensions = SCORECARD_DIMENSIONS.filter((d) => summary.dimensions?.[d] !== undefined);
  if (dimensions.length > 0) {
    lines.push('By dimension (mean score 0–10, n scores):');
    lines.push(
      `  ${dimensions
        .map((d) => {
          const g = summary.dimensions![d]!;
          return `${DIMENSION_ABBREVIATIONS[d]} ${g.mean === null ? '–' : g.mean.toFixed(2)} (n ${g.n})`;
        })
        .join(' · ')}`,
    );
  }
  const severities = Object.entries(summary.severities ?? {});
  if (severities.length > 0) {
    lines.push('Pass rate by severity:');
    const rates = severities.map(([name, g]) => `${name} ${g.passed}/${g.runs} (${pct(g.pass_rate)})`);
    lines.push(`  ${rates.join(' · ')}`);
  }
  return lines;
}

/**
 * The groups as GitHub-flavoured markdown tables (the job summary); `safe` makes a category name safe there. Empty
 * when the summary has no group.
 */
export function summaryGroupsMarkdown(summary: RunSummary, safe: (text: string) => string): string[] {
  const lines: string[] = [];
  const categories = Object.entries(summary.categories ?? {});
  if (categories.length > 0) {
    lines.push('', '| category | runs | passed | pass rate | mean GAIA total |', '|---|---|---|---|---|');
    for (const [name, g] of categories)
      lines.push(
        `| ${safe(name)} | ${g.runs} | ${g.passed} | ${pct(g.pass_rate)} | ` +
          `${g.mean_total === null ? '–' : g.mean_total.toFixed(2)} |`,
      );
  }
  const dimensions = SCORECARD_DIMENSIONS.filter((d) => summary.dimensions?.[d] !== undefined);
  if (dimensions.length > 0) {
    lines.push('', '| dimension | mean (0–10) | scores |', '|---|---|---|');
    for (const d of dimensions) {
      const g = summary.dimensions![d]!;
      lines.push(
        `| ${DIMENSION_ABBREVIATIONS[d]} ${d.replace(/_/g, ' ')} | ` +
          `${g.mean === null ? '–' : g.mean.toFixed(2)} | ${g.n} |`,
      );
    }
  }
  const severities = Object.entries(summary.severities ?? {});
  if (severities.length > 0) {
    lines.push('', '| severity | runs | passed | pass rate |', '|---|---|---|---|');
    for (const [name, g] of severities) lines.push(`| ${name} | ${g.runs} | ${g.passed} | ${pct(g.pass_rate)} |`);
  }
  return lines;
}
