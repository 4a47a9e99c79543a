import { cpus, release, totalmem, type as osType } from 'node:os';
import { percentile, renderCalibrationTable } from '../../metrics/index.js';
import {
  CalibrationSetupError,
  CALIBRATION_WIRES,
  type CalibrationOutcome,
  type CalibrationSampleRecord,
  type CalibrationWire,
} from './calibrate.js';

/** `0,300,800,1500` → [0, 300, 800, 1500]: ms ≥ 0, no duplicates. */
export function parseDelayList(text: string): number[] {
  const parts = text.split(',').map((p) => p.trim());
  const out: number[] = [];
  for (const p of parts) {
    const n = p === '' ? Number.NaN : Number(p);
    if (!Number.isFinite(n) || n < 0)
      throw new CalibrationSetupError(
        `--delays ${JSON.stringify(text)}: ${JSON.stringify(p)} is not a number of ms >= 0 ` +
          `(expected e.g. 0,300,800,1500)`,
      );
    if (out.includes(n)) throw new CalibrationSetupError(`--delays ${JSON.stringify(text)}: ${n} is listed twice`);
    out.push(n);
  }
  return out;
}

/** `pipecat-eval,protobuf` → the wires, each known, none twice. */
export function parseWireList(text: string): CalibrationWire[] {
  const out: CalibrationWire[] = [];
  for (const raw of text.split(',')) {
    const w = raw.trim();
    if (!(CALIBRATION_WIRES as readonly string[]).includes(w)) {
      throw new CalibrationSetupError(
        `--wires ${JSON.stringify(text)}: unknown wire ${JSON.stringify(w)} (expected ${CALIBRATION_WIRES.join(', ')})`,
      );
    }
    if (out.includes(w as CalibrationWire))
      throw new CalibrationSetupError(`--wires ${JSON.stringify(text)}: ${w} is listed twice`);
    out.push(w as CalibrationWire);
  }
  return out;
}

export interface MachineInfo {
  cpu: string;
  cores: number;
  memory_gib: number;
  os: string;
  node: string;
}

export function describeMachine(): MachineInfo {
  const cpu = cpus();
  return {
    cpu: cpu[0]?.model.trim() ?? 'unknown',
    cores: cpu.length,
    memory_gib: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    os: `${osType()} ${release()}`,
    node: process.version,
  };
}

/**
 * Where the errors come from: per codec and metric, the median offset of each edge, earshot − bot, on the shared
 * clock.
 */
export interface ErrorSource {
  codec: string;
  metric: string;
  n: number;
  /** earshot's user speech edge − the bot's: negative when the bot heard it later than earshot's schedule said. */
  user_edge_p50_ms: number | null;
  /** earshot's bot audio edge − the bot's send time: transit plus earshot's receive delay. */
  bot_edge_p50_ms: number | null;
}

export function errorSources(samples: readonly CalibrationSampleRecord[]): ErrorSource[] {
  const groups = new Map<string, CalibrationSampleRecord[]>();
  for (const s of samples) {
    if (s.error_ms === null) continue;
    const key = `${s.codec}\u0000${s.metric}`;
    groups.set(key, [...(groups.get(key) ?? []), s]);
  }
  const median = (xs: Array<number | null>): number | null => {
    const v = xs.filter((x): x is number => x !== null).sort((a, b) => a - b);
    return v.length ? percentile(v, 50) : null;
  };
  return [...groups.values()].map((g) => ({
    codec: g[0].codec,
    metric: g[0].metric,
    n: g.length,
    user_edge_p50_ms: median(g.map((s) => s.user_edge_offset_ms)),
    bot_edge_p50_ms: median(g.map((s) => s.bot_edge_offset_ms)),
  }));
}

/** The table, the verdict and the error sources, as the terminal shows them. */
export function renderCalibration(outcome: CalibrationOutcome): string {
  const mode =
    outcome.sentence_gap_ms === undefined
      ? ''
      : `, the bot speaking with ${outcome.sentence_gap_ms} ms sentence gaps and the barge-in starting in one`;
  const lines = [
    `|measured − truth| per codec, metric and bot response delay (ms)${mode}:`,
    '',
    renderCalibrationTable(outcome.rows),
    '',
  ];
  const sources = errorSources(outcome.samples);
  if (sources.length) {
    const fmt = (v: number | null): string => (v === null ? '-' : `${v >= 0 ? '+' : ''}${v.toFixed(1)}`);
    lines.push('where it comes from (median, earshot − bot on the shared clock; error ≈ bot edge − user edge):');
    const width = Math.max(...sources.map((s) => `${s.codec}  ${s.metric}`.length));
    for (const s of sources)
      lines.push(
        `  ${`${s.codec}  ${s.metric}`.padEnd(width)}  user edge ${fmt(s.user_edge_p50_ms)} ms  bot edge ` +
          `${fmt(s.bot_edge_p50_ms)} ms`,
      );
    lines.push('');
  }
  const unmatched = outcome.samples.filter((s) => s.error_ms === null);
  for (const s of unmatched.slice(0, 10)) {
    lines.push(
      `missing: ${s.codec} delay ${s.delay_ms} ms run ${s.run}` +
        `${s.turn_index === null ? '' : ` turn ${s.turn_index + 1}`} ${s.metric}: ${s.note ?? 'no pair'}`,
    );
  }
  if (unmatched.length > 10) lines.push(`missing: … and ${unmatched.length - 10} more (see --json)`);
  const cores = describeMachine().cores;
  lines.push(
    `machine load (1-minute average) ${outcome.load_average.start[0]} at the start, ` +
      `${outcome.load_average.end[0]} at the end, on ${cores} cores`,
  );
  if (outcome.interrupted)
    lines.push('calibration INTERRUPTED: the table covers only the configurations that finished');
  if (outcome.passed) lines.push(`calibration passed: every p95 |error| ≤ ${outcome.p95_limit_ms} ms`);
  else if (outcome.failures.length) {
    const bad = outcome.failures.map(
      (r) =>
        `${r.codec} ${r.metric} delay ${r.delay_ms} ms (${r.p95_ms === null ? 'no sample' : `p95 ${r.p95_ms} ms`})`,
    );
    lines.push(`calibration FAILED: p95 |error| over ${outcome.p95_limit_ms} ms or no sample: ${bad.join('; ')}`);
  }
  return lines.join('\n');
}

/**
 * What `--json FILE` holds: the table rows (`n`, `p50_ms`, `p95_ms`, `max_ms`, ...) and everything needed to reproduce
 * and diagnose it.
 */
export function calibrationJson(
  outcome: CalibrationOutcome,
  command: string,
  machine: MachineInfo = describeMachine(),
): Record<string, unknown> {
  return {
    command,
    machine,
    load_average: outcome.load_average,
    p95_limit_ms: outcome.p95_limit_ms,
    ...(outcome.sentence_gap_ms !== undefined ? { sentence_gap_ms: outcome.sentence_gap_ms } : {}),
    passed: outcome.passed,
    interrupted: outcome.interrupted,
    rows: outcome.rows,
    failures: outcome.failures,
    error_sources: errorSources(outcome.samples),
    configs: outcome.configs,
    samples: outcome.samples,
  };
}
