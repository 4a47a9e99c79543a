import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../results/index.js';
import { loadScenario } from '../../scenario/index.js';
import { planConditionRuns } from './bench.js';
import { conditionPoints, parseConditionSweep, withConditionLevel } from './condition-sweep.js';
import { renderBenchReport, summarizeBench, type BenchRun } from './report.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-csweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string, text: string): string => {
  writeFileSync(join(dir, name), text);
  return join(dir, name);
};

const AUDIO = `name: a
user: { modality: audio, speech: { service: flite } }
conditions: { noise: { type: pink, snr_db: 40 }, seed: 3 }
turns:
  - user: hello there
  - user: what time is it
    conditions: { gain: { gain_db: 6 } }
`;

describe('--sweep-condition', () => {
  it('parses names and levels, checking each level as --condition does', () => {
    expect(parseConditionSweep('snr=30,20,10,5')).toEqual({
      name: 'snr',
      key: 'noise.snr_db',
      values: [30, 20, 10, 5],
    });
    expect(parseConditionSweep('loss=0, 0.05,0.1')).toEqual({ name: 'loss', key: 'loss.rate', values: [0, 0.05, 0.1] });
    expect(parseConditionSweep('gain.gain_db=0,12')).toEqual({
      name: 'gain.gain_db',
      key: 'gain.gain_db',
      values: [0, 12],
    });
    expect(() => parseConditionSweep('snr')).toThrow(/NAME=V1,V2/);
    expect(() => parseConditionSweep('loss=0.1,2')).toThrow(
      '--sweep-condition loss=0.1,2: level "2": loss.rate must be a number >= 0 and <= 1',
    );
    expect(() => parseConditionSweep('snr=10,,5')).toThrow(/list the levels/);
    expect(() => parseConditionSweep('snr=10,10')).toThrow(/twice/);
  });

  it('sets the level on the scenario and on turns with conditions of their own, keeping the rest', async () => {
    const s = await loadScenario(file('a.yaml', AUDIO));
    const v = withConditionLevel(s, parseConditionSweep('snr=10'), 10);
    expect(v.conditions).toEqual({ noise: { type: 'pink', snr_db: 10 }, seed: 3 });
    expect(v.turns[1].conditions).toEqual({ gain: { gain_db: 6, clip_dbfs: 0 }, noise: { type: 'white', snr_db: 10 } });
    expect(s.conditions?.noise?.snr_db).toBe(40);
    const plan = planConditionRuns(s, 2, parseConditionSweep('snr=30,5'));
    expect(plan.runs.map((r) => [r.run, r.level, r.scenario.conditions?.noise?.snr_db])).toEqual([
      [0, 30, 30],
      [1, 5, 5],
      [2, 30, 30],
      [3, 5, 5],
    ]);
  });

  it('refuses a typed scenario', async () => {
    const s = await loadScenario(file('t.yaml', 'name: t\nturns: [{ user: hi }]\n'));
    expect(() => withConditionLevel(s, parseConditionSweep('snr=10'), 10)).toThrow(/user.modality: text/);
  });

  it('reports pass rate, latency and user_wer per level, in the order given', () => {
    const result = (status: ScenarioResult['status'], v2v: number, wer: number): ScenarioResult =>
      ({
        name: 'a',
        file: 'a.yaml',
        status,
        started_at: '',
        duration_ms: 1,
        failures: [],
        turns: [{ index: 0, status: 'passed', expectations: [], metrics: { voice_to_voice_ms: v2v, user_wer: wer } }],
      }) as unknown as ScenarioResult;
    const runs: BenchRun[] = [
      { run: 0, level: 30, result: result('passed', 400, 0) },
      { run: 1, level: 5, result: result('failed', 900, 0.6) },
      { run: 2, level: 30, result: result('passed', 420, 0.1) },
      { run: 3, level: 5, result: result('passed', 950, 0.4) },
    ];
    const sweep = parseConditionSweep('snr=30,5');
    const curve = conditionPoints(runs, sweep);
    expect(
      curve.points.map((p) => [p.level, p.runs, p.passed, p.pass_rate, p.voice_to_voice_ms?.p50, p.user_wer?.max]),
    ).toEqual([
      [30, 2, 2, 1, 400, 0.1],
      [5, 2, 1, 0.5, 900, 0.6],
    ]);
    const text = renderBenchReport(
      summarizeBench(runs, {
        url: 'ws://x',
        wire: 'pipecat-eval',
        repeat: 2,
        concurrency: 1,
        duration_ms: 1,
        conditionSweep: sweep,
      }),
    );
    expect(text).toContain('× 2 levels');
    expect(text).toMatch(
      /condition curve \(snr: noise\.snr_db\):\n\s+noise\.snr_db\s+runs\s+passed\s+pass_rate[^\n]*\n\s+30\s+2\s+2\s+100\.0%\s+400\.0/,
    );
  });
});
