import { argsSubset } from '../core/equal.js';
import type {
  ScenarioResult,
  SimulationEntry,
  SimulationMetricScore,
  SimulationTurnVerdict,
} from '../results/index.js';
import type { ExpectedCall, SimulationMetric } from '../scenario/index.js';

/**
 * Pipecat's metrics over one finished simulation run: judged metrics scored
 * from the judge's per-reply verdicts, measured metrics computed from the run
 * with no judge (`turns`, `duration`, `words`, `latency`, `function_calls`).
 * Pure functions of the transcript and the session result.
 */

/** What the measures read. */
export interface RunFacts {
  transcript: readonly SimulationEntry[];
  personaTurns: number;
  durationS: number;
  /** Each timed reply's latency, seconds, and what was timed (the two modalities time different things). */
  latency: { valuesS: number[]; timed: string };
}

export interface MadeCall {
  name?: string;
  args: Record<string, unknown>;
}

/** The bot's calls in order, less those it cancelled: a cancelled call did not happen. */
export function madeCalls(transcript: readonly SimulationEntry[]): MadeCall[] {
  return transcript.flatMap((e) =>
    e.kind === 'call' && !e.cancelled
      ? [{ ...(e.name !== undefined ? { name: e.name } : {}), args: e.args ?? {} }]
      : [],
  );
}

/** Same name, and every `args` key of the spec present in the call with the same value. */
export function callMatches(spec: ExpectedCall, call: MadeCall): boolean {
  if (spec.name !== undefined && spec.name !== call.name) return false;
  return spec.args === undefined || argsSubset(call.args, spec.args);
}

export function callSignature(call: ExpectedCall | MadeCall): string {
  const args = call.args && Object.keys(call.args).length ? `(${JSON.stringify(call.args)})` : '';
  return `${call.name ?? '?'}${args}`;
}

export function scoreJudgedMetric(metric: SimulationMetric, verdicts: SimulationTurnVerdict[]): SimulationMetricScore {
  const base = {
    name: metric.name,
    kind: 'judged' as const,
    verdicts,
    ...(metric.min_score !== undefined ? { min_score: metric.min_score } : {}),
  };
  if (verdicts.length === 0) return { ...base, score: null, passed: true, reason: 'no bot reply to judge' };
  const failed = verdicts.filter((v) => v.verdict !== 'yes');
  const score = (verdicts.length - failed.length) / verdicts.length;
  const passed = metric.min_score === undefined || score >= metric.min_score;
  const reason =
    failed.length === 0
      ? `all ${verdicts.length} replies`
      : failed
          .map((v) => `reply ${v.turn}: ${v.verdict === 'none' ? `(no verdict) ${v.reason}` : v.reason}`)
          .join('; ');
  const out: SimulationMetricScore = { ...base, score, passed, reason };
  if (!passed) out.failure_kind = failed.some((v) => v.verdict === 'no') ? 'judge_no' : 'judge_no_verdict';
  return out;
}

export function measureMetric(metric: SimulationMetric, facts: RunFacts): SimulationMetricScore {
  const base = { name: metric.name, kind: 'measured' as const };
  if (metric.measure === 'function_calls') {
    const made = madeCalls(facts.transcript);
    const expected = metric.calls ?? [];
    const missing = expected.filter((spec) => !made.some((c) => callMatches(spec, c)));
    const unlisted = made.filter((c) => !expected.some((spec) => callMatches(spec, c)));
    const passed = missing.length === 0 && unlisted.length === 0;
    const reason =
      `${made.map(callSignature).join(', ') || 'no calls'}, expected ` +
      `${expected.map(callSignature).join(', ') || 'none'}`;
    return {
      ...base,
      score: passed ? 1 : 0,
      passed,
      reason,
      value: made.length,
      ...(passed ? {} : { failure_kind: 'function_calls' as const }),
    };
  }
  const { value, described } = measurement(metric.measure, facts);
  const low = metric.min_value;
  const high = metric.max_value;
  const bound =
    low !== undefined && high !== undefined
      ? `between ${low} and ${high}`
      : high !== undefined
        ? `at most ${high}`
        : `at least ${low}`;
  const bounds = {
    ...(low !== undefined ? { min_value: low } : {}),
    ...(high !== undefined ? { max_value: high } : {}),
  };
  const reason = `${described}, ${bound}`;
  if (value === null) return { ...base, ...bounds, score: null, passed: true, reason, value };
  const inside = (low === undefined || value >= low) && (high === undefined || value <= high);
  return {
    ...base,
    ...bounds,
    score: inside ? 1 : 0,
    passed: inside,
    reason,
    value,
    ...(inside ? {} : { failure_kind: 'out_of_range' as const }),
  };
}

function measurement(
  measure: SimulationMetric['measure'],
  facts: RunFacts,
): { value: number | null; described: string } {
  switch (measure) {
    case 'turns':
      return { value: facts.personaTurns, described: `${facts.personaTurns} persona turn(s)` };
    case 'duration':
      return { value: facts.durationS, described: `${facts.durationS.toFixed(1)} s` };
    case 'words': {
      const counts = facts.transcript.flatMap((e) =>
        e.kind === 'bot' ? [e.text.split(/\s+/).filter(Boolean).length] : [],
      );
      if (!counts.length) return { value: null, described: 'no reply to measure' };
      const longest = Math.max(...counts);
      return { value: longest, described: `longest reply ${longest} words` };
    }
    case 'latency': {
      if (!facts.latency.valuesS.length) return { value: null, described: 'no reply to time' };
      const slowest = Math.max(...facts.latency.valuesS);
      return { value: slowest, described: `slowest reply ${slowest.toFixed(2)} s ${facts.latency.timed}` };
    }
    default:
      throw new Error(`unknown measure ${String(measure)}`);
  }
}

export const LATENCY_TIMED = {
  text: 'to the first token',
  audio: 'from the persona stopping to the first spoken sentence',
} as const;

/**
 * Seconds from each caller turn to the bot's first word of the reply, as
 * Pipecat times it: in text mode from the send to the first LLM token (the
 * turn's `first_token_ms`); in audio mode from the bot's report that the
 * caller stopped speaking to its first spoken sentence (`tts_response`), so
 * the two are not comparable and the reason says which it was.
 */
export function replyLatencies(
  result: Pick<ScenarioResult, 'turns' | 'events'>,
  transcript: readonly SimulationEntry[],
  botAudio: boolean,
): RunFacts['latency'] {
  const callers = transcript.filter((e): e is Extract<SimulationEntry, { kind: 'caller' }> => e.kind === 'caller');
  const valuesS: number[] = [];
  if (!botAudio) {
    for (const c of callers) {
      const ms = result.turns[c.turn_index]?.metrics?.first_token_ms;
      if (typeof ms === 'number') valuesS.push(round3(Math.max(0, ms) / 1000));
    }
    return { valuesS, timed: LATENCY_TIMED.text };
  }
  const events = result.events ?? [];
  callers.forEach((c, i) => {
    const until = callers[i + 1]?.at_ms ?? Infinity;
    const stopped = events.find((e) => e.name === 'user_stopped_speaking' && e.at_ms >= c.at_ms && e.at_ms < until);
    if (!stopped) return;
    const spoke = events.find((e) => e.name === 'tts_response' && e.at_ms >= stopped.at_ms && e.at_ms < until);
    if (spoke) valuesS.push(round3((spoke.at_ms - stopped.at_ms) / 1000));
  });
  return { valuesS, timed: LATENCY_TIMED.audio };
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
