import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Redactor } from '../../core/redact.js';
import {
  latestAttempts,
  mapSnippets,
  redactDeep,
  scenarioKey,
  type EarshotEvent,
  type Failure,
  type GaiaResult,
  type Outcome,
  type RunSummary,
  type ScenarioResult,
  type SimulationResult,
  type TurnResult,
} from '../../results/index.js';
import { parseWav } from '../../audio/wav.js';
import { waveEnvelope, type WaveEnvelope } from './wav.js';

/** The data island the report's script renders. Everything in it is data, never markup. */
export interface ReportModel {
  version: 1;
  title: string;
  generated_at: string;
  summary: RunSummary;
  results: ReportResult[];
}

export interface ReportRecording {
  /** URL of the WAV relative to the report file (path segments percent-encoded). */
  src: string;
  started_at_ms: number;
  envelope?: WaveEnvelope;
  /** Why there is no waveform (file missing, unreadable). */
  note?: string;
}

export interface ReportResult {
  /** A DOM id made by the report (`r0`, `r1`, …), never from untrusted text. */
  id: string;
  name: string;
  file: string;
  bot?: string;
  repeat_index?: number;
  attempt?: number;
  status: ScenarioResult['status'];
  /** The verdict for this scenario across its repeats. */
  outcome: Outcome;
  started_at: string;
  duration_ms: number;
  error?: string;
  failures: Failure[];
  turns: TurnResult[];
  events: EarshotEvent[];
  /** Events left out to keep the report small (a bot flooding events). */
  events_omitted: number;
  recording?: ReportRecording;
  links: Array<{ label: string; href: string }>;
  /** Right end of the timeline, ms since session start. */
  timeline_end_ms: number;
  /** A simulated call: its conversation, end and scores, shown as a conversation. */
  simulation?: SimulationResult;
  /** A GAIA scenario's per-turn scores, shown as a turn × dimension grid. */
  gaia?: GaiaResult;
  /** The scenario's `category:` / `severity:`, shown as a tag. */
  category?: string;
  severity?: string;
}

export interface ReportLimits {
  /** Events kept per scenario; default 5000. */
  maxEvents: number;
  /** Characters kept per string; default 20000. */
  maxText: number;
  /** Waveform buckets per channel; default 1000. */
  waveformBuckets: number;
}

export interface ModelOptions {
  /** Where artifact paths in the results are relative to (the run's output dir). */
  resultsDir: string;
  /** Where the report file will be written; links are made relative to it. */
  reportDir: string;
  redactor: Redactor;
  title?: string;
  limits?: Partial<ReportLimits>;
  now?: Date;
}

const DEFAULT_LIMITS: ReportLimits = { maxEvents: 5000, maxText: 20_000, waveformBuckets: 1000 };

export function buildReportModel(
  all: readonly ScenarioResult[],
  summary: RunSummary,
  options: ModelOptions,
): ReportModel {
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const outcomes = new Map(
    summary.scenarios.map((s) => [
      scenarioKey({ file: s.file, name: s.name, run: s.bot === undefined ? {} : { bot: s.bot } }),
      s.outcome,
    ]),
  );
  const results = latestAttempts(all).map((raw, i): ReportResult => {
    const r = capStrings(redactDeep(raw, options.redactor), limits.maxText);
    const events = r.events ?? [];
    const kept = events.slice(0, limits.maxEvents);
    const out: ReportResult = {
      id: `r${i}`,
      name: r.name,
      file: r.file,
      status: r.status,
      outcome:
        outcomes.get(scenarioKey(r)) ??
        (r.status === 'passed' || r.status === 'skipped' || r.status === 'inconclusive' ? r.status : 'failed'),
      started_at: r.started_at,
      duration_ms: r.duration_ms,
      failures: r.failures,
      // Segment WAVs are linked from the report, not from the results folder.
      turns: r.turns.map((t) => mapSnippets(t, (p) => linkTo(p, options))),
      events: kept,
      events_omitted: events.length - kept.length,
      links: [],
      timeline_end_ms: 0,
    };
    if (r.run?.bot !== undefined) out.bot = r.run.bot;
    if (r.run?.repeat_index !== undefined) out.repeat_index = r.run.repeat_index;
    if (r.run?.attempt !== undefined) out.attempt = r.run.attempt;
    if (r.error !== undefined) out.error = r.error;
    if (r.simulation !== undefined) out.simulation = r.simulation;
    if (r.gaia !== undefined) out.gaia = r.gaia;
    if (r.category !== undefined) out.category = r.category;
    if (r.severity !== undefined) out.severity = r.severity;
    if (raw.artifacts?.recording) out.recording = recordingOf(raw, options, limits.waveformBuckets);
    for (const [label, path] of [
      ['trace', raw.artifacts?.trace],
      ['bot log', raw.artifacts?.bot_log],
      ['GAIA trace', raw.artifacts?.gaia_trace],
      ['NeMo metrics', raw.artifacts?.metrics],
    ] as const) {
      if (path) out.links.push({ label, href: linkTo(path, options) });
    }
    out.timeline_end_ms = timelineEnd(out);
    return out;
  });
  return {
    version: 1,
    title: options.redactor.text(options.title ?? 'earshot report'),
    generated_at: (options.now ?? new Date()).toISOString(),
    summary: redactDeep(summary, options.redactor),
    results,
  };
}

function recordingOf(r: ScenarioResult, options: ModelOptions, buckets: number): ReportRecording {
  const path = r.artifacts?.recording ?? '';
  const rec: ReportRecording = { src: linkTo(path, options), started_at_ms: r.recording_started_at_ms ?? 0 };
  const abs = resolve(options.resultsDir, path);
  if (!existsSync(abs)) {
    rec.note = `recording not found: ${options.redactor.text(path)}`;
    return rec;
  }
  try {
    rec.envelope = waveEnvelope(parseWav(readFileSync(abs), path), buckets);
  } catch (err) {
    rec.note = options.redactor.text((err as Error).message);
  }
  return rec;
}

/** A URL from the report to an artifact: relative, each segment percent-encoded (so it cannot form a scheme). */
function linkTo(path: string, options: ModelOptions): string {
  const abs = isAbsolute(path) ? path : resolve(options.resultsDir, path);
  const rel = relative(resolve(options.reportDir), abs);
  if (isAbsolute(rel)) return pathToFileURL(abs).href;
  return rel.split(sep).map(encodeURIComponent).join('/');
}

function timelineEnd(r: ReportResult): number {
  let end = Math.max(1000, r.duration_ms);
  for (const e of r.events) end = Math.max(end, e.at_ms);
  for (const t of r.turns) if (t.started_at_ms !== undefined) end = Math.max(end, t.started_at_ms + t.duration_ms);
  if (r.recording?.envelope) end = Math.max(end, r.recording.started_at_ms + r.recording.envelope.duration_ms);
  return end;
}

function capStrings<T>(value: T, max: number): T {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return v.length > max ? `${v.slice(0, max)}… [${v.length - max} more characters]` : v;
    if (Array.isArray(v)) return v.map(walk);
    if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  return walk(value) as T;
}
