import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { nemoMetrics, type ScenarioResult } from '../results/index.js';

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
 * Writes a run's trace as `<stem>.trace.log` beside results.jsonl (and a NeMo scenario's `<stem>.metrics.json`) and
 * points the result's artifacts at it, at `extra` (a bot log) and at the recording,
 * each relative to the out dir so the folder can move.
 */
export async function keepArtifacts(
  outDir: string,
  stem: string,
  result: ScenarioResult,
  trace: string,
  recording: string | undefined,
  extra: NonNullable<ScenarioResult['artifacts']> = {},
  evidence?: Record<string, unknown>,
): Promise<ScenarioResult> {
  const traceFile = join(outDir, `${stem}.trace.log`);
  await writeFile(traceFile, trace);
  const gaiaTrace = result.gaia ? await writeGaiaTrace(outDir, result, evidence) : null;
  // A NeMo scenario's metrics under NeMo's field names, beside its trace.
  const metrics = nemoMetrics(result);
  const metricsFile = metrics ? join(outDir, `${stem}.metrics.json`) : null;
  if (metricsFile) await writeFile(metricsFile, `${JSON.stringify(metrics, null, 2)}\n`);
  return {
    ...result,
    artifacts: {
      ...result.artifacts,
      trace: relative(outDir, traceFile),
      ...(gaiaTrace ? { gaia_trace: relative(outDir, gaiaTrace) } : {}),
      ...(metricsFile ? { metrics: relative(outDir, metricsFile) } : {}),
      ...extra,
      ...(recording ? { recording: relative(outDir, recording) } : {}),
    },
  };
}

/**
 * A GAIA scenario's `traces/<id>.json` (GAIA's own trace name): its scores, the call's transcript and the judge's
 * raw answers, as the result and the driver's evidence hold them (both redacted already). A second run of the same
 * id in one out dir (a repeat, another bot) gets `<id>.2.json`, and so on.
 */
export async function writeGaiaTrace(
  outDir: string,
  result: ScenarioResult,
  evidence: Record<string, unknown> = {},
): Promise<string | null> {
  if (!result.gaia) return null;
  const dir = join(outDir, 'traces');
  await mkdir(dir, { recursive: true });
  const body = `${JSON.stringify({ ...result.gaia, status: result.status, ...evidence }, null, 2)}\n`;
  const base = safeName(result.gaia.id, 100) || 'scenario';
  for (let n = 1; ; n++) {
    const file = join(dir, n === 1 ? `${base}.json` : `${base}.${n}.json`);
    try {
      await writeFile(file, body, { flag: 'wx' });
      return file;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
  }
}
