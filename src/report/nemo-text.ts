import type { NemoOutcome, RunSummary } from '../results/index.js';
import { SUCCESS_SIGNALS } from '../scenario/nemo/types.js';

/**
 * A NeMo scenario's verdict as text, for the list and JUnit reporters: the composite first, then one line per signal
 * with its value and reason (signals outside the whitelist marked `excluded`: computed, never deciding); and the
 * run's NeMo rates for the summary.
 */

const valueText = (v: boolean | null): string => (v === null ? 'N/A' : String(v));

export function nemoHeadline(nemo: NemoOutcome): string {
  const short = nemo.below_min_agent_turns
    ? `; ${nemo.agent_turns} agent turn(s), below --min-agent-turns ${nemo.min_agent_turns}`
    : '';
  return (
    `is_successful ${nemo.is_successful} · is_task_successful ${nemo.is_task_successful} · ` +
    `stop_reason ${nemo.stop_reason}${short}`
  );
}

export function nemoSignalLines(nemo: NemoOutcome): string[] {
  const excluded = new Set(nemo.success_breakdown.excluded);
  const lines = nemo.signals.map((s) => {
    const rate = s.pass_rate !== undefined ? ` (pass rate ${s.pass_rate.toFixed(2)})` : '';
    return `${s.signal} ${valueText(s.value)}${rate}${excluded.has(s.signal) ? ' [excluded]' : ''}: ${s.reason}`;
  });
  const computed = new Set(nemo.signals.map((s) => s.signal));
  for (const s of nemo.success_breakdown.not_applicable)
    if (!computed.has(s)) lines.push(`${s} N/A: no value for it in this run`);
  if (nemo.summary_error !== undefined) lines.push(`bot summary: none (${nemo.summary_error})`);
  return lines;
}

/** The failed whitelisted signals, for a JUnit failure message. */
export function nemoFailedSignals(nemo: NemoOutcome): string[] {
  const failed = new Set(nemo.success_breakdown.failed);
  return nemo.signals.filter((s) => failed.has(s.signal)).map((s) => `${s.signal}: ${s.reason}`);
}

const pct = (rate: number | null): string => (rate === null ? '–' : `${Math.round(rate * 100)}%`);

export function nemoSummaryLines(summary: RunSummary): string[] {
  const n = summary.nemo;
  if (!n) return [];
  const c = n.composite;
  const lines = [
    'NeMo success rates:',
    `  composite ${c.successful}/${c.successful + c.failed} (${pct(c.rate)})` +
      `${c.short ? `, ${c.short} short run(s) counted failed` : ''}` +
      `${c.not_applicable ? `, ${c.not_applicable} N/A left out` : ''} · task ${pct(n.task_success_rate)}`,
  ];
  const rates = SUCCESS_SIGNALS.flatMap((key) => {
    const s = n.signals[key];
    return s
      ? [
          `${key} ${s.passed}/${s.passed + s.failed} (${pct(s.rate)})` +
            (s.not_applicable ? ` N/A ${s.not_applicable}` : ''),
        ]
      : [];
  });
  if (rates.length) lines.push(`  ${rates.join(' · ')}`);
  return lines;
}
