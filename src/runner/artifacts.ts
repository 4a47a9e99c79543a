import { writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { ScenarioResult } from '../results/index.js';

/** `runs/2026-11-30T22-45-01` — sortable, filesystem-safe. */
export function defaultOutDir(now = new Date()): string {
  return join('runs', now.toISOString().slice(0, 19).replace(/:/g, '-'));
}

/**
 * A file name for a scenario's artifacts: its name (`weather/rain` → `weather__rain`), made safe, with the run's
 * ordinal to keep it unique.
 */
export function artifactStem(name: string, ordinal: number): string {
  return `${String(ordinal + 1).padStart(3, '0')}-${safeName(name, 80) || 'scenario'}`;
}

/** A name as a file name: a scenario id's `/` becomes `__` (as Pipecat names its files), anything else unsafe `_`. */
export function safeName(name: string, max: number): string {
  return name
    .replace(/\//g, '__')
    .replace(/[^A-Za-z0-9._-]+/g, '_')
    .slice(0, max);
}

/**
 * Writes a run's trace as `<stem>.trace.log` beside results.jsonl and points
 * the result's artifacts at it, at `extra` (a bot log) and at the recording,
 * each relative to the out dir so the folder can move.
 */
export async function keepArtifacts(
  outDir: string,
  stem: string,
  result: ScenarioResult,
  trace: string,
  recording: string | undefined,
  extra: NonNullable<ScenarioResult['artifacts']> = {},
): Promise<ScenarioResult> {
  const traceFile = join(outDir, `${stem}.trace.log`);
  await writeFile(traceFile, trace);
  return {
    ...result,
    artifacts: {
      ...result.artifacts,
      trace: relative(outDir, traceFile),
      ...extra,
      ...(recording ? { recording: relative(outDir, recording) } : {}),
    },
  };
}
