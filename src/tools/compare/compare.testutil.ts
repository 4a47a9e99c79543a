import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ScenarioResult, TurnResult } from '../../results/index.js';
import type { LatencyMetric } from '../../scenario/index.js';

/** One run of a scenario, as results.jsonl holds it: its status and, per turn, a status and the metrics given. */
export interface RunSpec {
  file?: string;
  name?: string;
  bot?: string;
  status?: ScenarioResult['status'];
  /** Per turn: its status (default passed) and metrics. */
  turns: Array<{ status?: TurnResult['status']; metrics?: Partial<Record<LatencyMetric, number | null>> }>;
}

export function runResult(spec: RunSpec, repeat_index: number): ScenarioResult {
  return {
    name: spec.name ?? 'capital',
    file: spec.file ?? '/repo/scenarios/capital.yaml',
    status: spec.status ?? 'passed',
    started_at: '2026-12-01T00:00:00.000Z',
    duration_ms: 1000,
    turns: spec.turns.map((t, index) => ({
      index,
      status: t.status ?? 'passed',
      duration_ms: 500,
      input: {},
      expectations: [],
      metrics: { ...t.metrics },
    })),
    failures: [],
    run: { repeat_index, ...(spec.bot ? { bot: spec.bot } : {}) },
  };
}

/** Runs of one scenario whose second turn measured `voice_to_voice_ms` = each value given. */
export function v2vRuns(values: readonly number[], spec: Partial<RunSpec> = {}): ScenarioResult[] {
  return values.map((v, i) =>
    runResult({ ...spec, turns: [{}, { metrics: { voice_to_voice_ms: v, llm_ttfb_ms: 12 + (i % 3) } }] }, i),
  );
}

/** A run output folder holding these results. */
export function resultsDir(results: readonly ScenarioResult[], tail = ''): string {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-compare-'));
  writeFileSync(join(dir, 'results.jsonl'), results.map((r) => `${JSON.stringify(r)}\n`).join('') + tail);
  return dir;
}

/** n values around `centre`, spread ±`spread`, in a fixed shuffled order. */
export function around(centre: number, n: number, spread = 20): number[] {
  return Array.from({ length: n }, (_, i) => centre + (((i * 7) % n) / Math.max(1, n - 1) - 0.5) * 2 * spread);
}
