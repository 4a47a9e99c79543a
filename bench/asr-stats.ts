/**
 * The pure part of `npm run bench:asr` (bench/asr.ts): percentiles, the token
 * budget of a random-weight decoder, the choice of utterances, the simulated
 * call schedule and its verdict, the search for the largest sustained level,
 * and the report's JSON shape. No model, no process, no clock: the unit test
 * (test/integration/bench/asr-stats.test.ts) drives all of it.
 */
import { seededRandom } from '../src/core/random.js';

/** Real Whisper emits about this many tokens per second of English speech. */
export const TOKENS_PER_SECOND = 3;

/** Nearest-rank quantile (the one bench/concurrency.ts reports), null for no samples. */
export function quantile(xs: readonly number[], q: number): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))];
}

export function round(x: number | null, digits = 3): number | null {
  if (x === null || !Number.isFinite(x)) return null;
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

/**
 * Random weights never pick the end token on purpose: the decoder is held to
 * the length real speech would give, so each call pays a realistic number of
 * decoder steps (`max_new_tokens` = `min_new_tokens` = this).
 */
export function tokenBudget(speechSeconds: number, perSecond = TOKENS_PER_SECOND): number {
  if (!(speechSeconds > 0)) throw new Error(`tokenBudget: expected seconds > 0, got ${speechSeconds}`);
  return Math.max(1, Math.ceil(perSecond * speechSeconds));
}

export interface Candidate {
  text: string;
  seconds: number;
}

/**
 * `count` candidates spread over [minS, maxS]: for targets evenly spaced in
 * that range, the nearest unused candidate inside it. Deterministic, so two
 * runs (and two machines) time the same utterances.
 */
export function pickUtterances<T extends Candidate>(candidates: readonly T[], count: number, minS = 2, maxS = 8): T[] {
  const inside = candidates.filter((c) => c.seconds >= minS && c.seconds <= maxS);
  if (inside.length < count) {
    throw new Error(`only ${inside.length} utterances of ${minS}–${maxS} s, wanted ${count}`);
  }
  const picked: T[] = [];
  const used = new Set<number>();
  for (let i = 0; i < count; i++) {
    const target = count === 1 ? (minS + maxS) / 2 : minS + ((maxS - minS) * (i + 0.5)) / count;
    let best = -1;
    for (let j = 0; j < inside.length; j++) {
      if (used.has(j)) continue;
      if (best < 0 || Math.abs(inside[j].seconds - target) < Math.abs(inside[best].seconds - target)) best = j;
    }
    used.add(best);
    picked.push(inside[best]);
  }
  return picked.sort((a, b) => a.seconds - b.seconds);
}

export interface Reply {
  session: number;
  /** Index into the utterances. */
  utterance: number;
  /** When the bot's reply ends and its transcription is asked for, seconds from the start. */
  endS: number;
  seconds: number;
}

export interface ScheduleOptions {
  sessions: number;
  /** Replies end within this many seconds; the run then drains. */
  durationS: number;
  /** Share of a call's time the bot speaks: a reply of s seconds every s / duty seconds. */
  duty: number;
  lengthsS: readonly number[];
  seed: number;
}

/**
 * N independent calls: each starts at a random phase within its first cycle
 * (calls do not line up on a real system), then the bot replies with the
 * utterances in turn (each session from its own starting one), a reply of s
 * seconds every s / duty seconds. Sorted by the time each reply ends.
 */
export function replySchedule(o: ScheduleOptions): Reply[] {
  if (!(o.duty > 0 && o.duty <= 1)) throw new Error(`duty: expected a share in (0, 1], got ${o.duty}`);
  if (o.lengthsS.length === 0) throw new Error('replySchedule: no utterances');
  const random = seededRandom(o.seed);
  const out: Reply[] = [];
  for (let k = 0; k < o.sessions; k++) {
    let i = k % o.lengthsS.length;
    let t = random() * (o.lengthsS[i] / o.duty);
    for (;;) {
      const s = o.lengthsS[i];
      if (t + s > o.durationS) break;
      out.push({ session: k, utterance: i, endS: t + s, seconds: s });
      t += s / o.duty;
      i = (i + 1) % o.lengthsS.length;
    }
  }
  return out.sort((a, b) => a.endS - b.endS);
}

export interface Transcript {
  /** Seconds from the reply's end to its transcript. */
  latencyS: number;
  /** The reply's length. */
  seconds: number;
}

export interface LevelOutcome {
  /** One per reply transcribed; refused or failed replies are absent. */
  transcripts: Transcript[];
  replies: number;
  /** Replies the transcriber refused (its queue full) or failed. */
  failed: number;
}

export interface LevelVerdict {
  sessions: number;
  replies: number;
  failed: number;
  latency_p50_s: number | null;
  latency_p95_s: number | null;
  latency_max_s: number | null;
  /** The largest latency / reply length: at most the deadline factor when sustained. */
  lag_max: number | null;
  late: number;
  sustained: boolean;
}

/**
 * Sustained: every reply transcribed, each within `factor` × its own length
 * after it ended (factor 1: the transcript is never later than the reply was
 * long, "in real time" counting the wait in the queue). A backlog that grows,
 * the transcriber slower than the replies arrive, pushes the latest
 * transcripts past such a bound within a run of a minute, so one bound
 * decides both "keeps up" and "in time".
 */
export function judgeLevel(sessions: number, o: LevelOutcome, factor: number): LevelVerdict {
  const latencies = o.transcripts.map((t) => t.latencyS);
  const lags = o.transcripts.map((t) => t.latencyS / t.seconds);
  const late = lags.filter((l) => l > factor).length;
  return {
    sessions,
    replies: o.replies,
    failed: o.failed,
    latency_p50_s: round(quantile(latencies, 0.5)),
    latency_p95_s: round(quantile(latencies, 0.95)),
    latency_max_s: round(latencies.length ? Math.max(...latencies) : null),
    lag_max: round(lags.length ? Math.max(...lags) : null),
    late,
    sustained: o.failed === 0 && o.replies > 0 && o.transcripts.length === o.replies && late === 0,
  };
}

/**
 * The largest N for which `holds(N)` is true, assuming a level that fails
 * fails above too: doubling from 1 until one fails (or `maxN`), then
 * bisecting between the last that held and the first that failed. Measures
 * each level at most once; every level tried is in `tried`, in order.
 */
export async function largestSustained(
  holds: (n: number) => Promise<boolean>,
  maxN: number,
): Promise<{ max: number; tried: number[] }> {
  const tried: number[] = [];
  const test = async (n: number): Promise<boolean> => {
    tried.push(n);
    return holds(n);
  };
  let good = 0;
  let bad = 0;
  for (let n = 1; n <= maxN; n *= 2) {
    if (await test(n)) good = n;
    else {
      bad = n;
      break;
    }
  }
  if (bad === 0) {
    if (good < maxN && (await test(maxN))) good = maxN;
    else if (good < maxN) bad = maxN;
  }
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (await test(mid)) good = mid;
    else bad = mid;
  }
  return { max: good, tried };
}

/** One cell of the table, one run: what a child process measured. */
export interface CellRun {
  rtfs: number[];
  load_ms: number;
  rss_mb: number;
  tokens_per_call: number | null;
  os_threads: number | null;
  /** CPU time over wall time during the timed calls. */
  cores_busy: number | null;
  audio_s_per_call: number;
}

export interface ModelRow {
  name: string;
  /** `fp32`, `q8`, or `default` (the registry's default: encoder fp32, decoder q8). */
  dtype: string;
  /** ONNX Runtime's intra-op threads; 0 = its own default (what earshot's providers get). */
  threads: number;
  rtf_p50: number | null;
  rtf_p95: number | null;
  rss_mb: number;
  load_ms: number;
  tokens_per_call: number | null;
  calls: number;
  /** Seconds of speech per call (Kokoro: of audio it made, which random weights decide). */
  audio_s_per_call: number;
  /** Median over runs of CPU time / wall time during the calls: the cores ONNX Runtime kept busy. */
  cores_busy: number | null;
  runs: {
    rtf_p50: number | null;
    rtf_p95: number | null;
    rss_mb: number;
    load_ms: number;
    os_threads: number | null;
    cores_busy: number | null;
  }[];
}

/** Pools the calls of every run for the percentiles; load and RSS are the median run's; `runs` keeps the spread. */
export function modelRow(name: string, dtype: string, threads: number, runs: readonly CellRun[]): ModelRow {
  if (runs.length === 0) throw new Error(`${name} ${dtype} ${threads}: no runs`);
  const all = runs.flatMap((r) => r.rtfs);
  const median = (xs: number[]): number => quantile(xs, 0.5) ?? 0;
  const tokens = runs.map((r) => r.tokens_per_call).filter((t): t is number => t !== null);
  const cores = runs.map((r) => r.cores_busy).filter((c): c is number => c !== null);
  return {
    name,
    dtype,
    threads,
    rtf_p50: round(quantile(all, 0.5)),
    rtf_p95: round(quantile(all, 0.95)),
    rss_mb: round(median(runs.map((r) => r.rss_mb)), 1) ?? 0,
    load_ms: Math.round(median(runs.map((r) => r.load_ms))),
    tokens_per_call: tokens.length ? round(median(tokens), 1) : null,
    calls: all.length,
    audio_s_per_call: round(median(runs.map((r) => r.audio_s_per_call)), 2) ?? 0,
    cores_busy: cores.length ? round(median(cores), 2) : null,
    runs: runs.map((r) => ({
      rtf_p50: round(quantile(r.rtfs, 0.5)),
      rtf_p95: round(quantile(r.rtfs, 0.95)),
      rss_mb: round(r.rss_mb, 1) ?? 0,
      load_ms: Math.round(r.load_ms),
      os_threads: r.os_threads,
      cores_busy: round(r.cores_busy, 2),
    })),
  };
}

/** `0.12 (0.11–0.13)`: the pooled figure and its range over runs, when there is more than one. */
export function withSpread(value: number | null, perRun: readonly (number | null)[], digits = 3): string {
  if (value === null) return '–';
  const xs = perRun.filter((x): x is number => x !== null);
  if (xs.length < 2) return value.toFixed(digits);
  return `${value.toFixed(digits)} (${Math.min(...xs).toFixed(digits)}–${Math.max(...xs).toFixed(digits)})`;
}

const ROW_NUMBERS = ['threads', 'rss_mb', 'load_ms'] as const;

/** Checks the report's documented shape; returns the problems (none: empty). */
export function reportProblems(report: unknown): string[] {
  const problems: string[] = [];
  if (typeof report !== 'object' || report === null) return ['report: not an object'];
  const r = report as Record<string, unknown>;
  if (!Array.isArray(r.models)) problems.push('models: not an array');
  else {
    r.models.forEach((m: unknown, i) => {
      const row = (m ?? {}) as Record<string, unknown>;
      if (typeof row.name !== 'string' || typeof row.dtype !== 'string') problems.push(`models[${i}]: name/dtype`);
      for (const k of ROW_NUMBERS) if (typeof row[k] !== 'number') problems.push(`models[${i}].${k}: not a number`);
      for (const k of ['rtf_p50', 'rtf_p95'])
        if (typeof row[k] !== 'number' && row[k] !== null) problems.push(`models[${i}].${k}: not a number`);
    });
  }
  if (typeof r.sessions !== 'object' || r.sessions === null) problems.push('sessions: not an object');
  return problems;
}
