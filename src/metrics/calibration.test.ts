import { describe, expect, it } from 'vitest';
import {
  calibrationErrorTable,
  calibrationFailures,
  renderCalibrationTable,
  type CalibrationSample,
} from './calibration.js';

const sample = (
  codec: string,
  metric: string,
  delay_ms: number,
  measured_ms: number | null,
  truth_ms: number | null,
): CalibrationSample => ({
  codec,
  metric,
  delay_ms,
  measured_ms,
  truth_ms,
});

describe('calibrationErrorTable', () => {
  it('groups by codec, metric and delay and takes nearest-rank percentiles of |measured − truth|', () => {
    const samples: CalibrationSample[] = [];
    // errors 1..20 ms, half of them measured early: p50 = rank 10 → 10, p95 = rank 19 → 19, max 20
    for (let e = 1; e <= 20; e++)
      samples.push(sample('protobuf', 'voice_to_voice_ms', 300, e % 2 ? 1300 + e : 1300 - e, 1300));
    samples.push(sample('json', 'voice_to_voice_ms', 0, 512.5, 510));
    samples.push(sample('json', 'voice_to_voice_ms', 0, null, 505));
    samples.push(sample('json', 'interruption_ms', 800, 300, 298));
    expect(calibrationErrorTable(samples)).toEqual([
      { codec: 'json', metric: 'interruption_ms', delay_ms: 800, n: 1, p50_ms: 2, p95_ms: 2, max_ms: 2, missing: 0 },
      {
        codec: 'json',
        metric: 'voice_to_voice_ms',
        delay_ms: 0,
        n: 1,
        p50_ms: 2.5,
        p95_ms: 2.5,
        max_ms: 2.5,
        missing: 1,
      },
      {
        codec: 'protobuf',
        metric: 'voice_to_voice_ms',
        delay_ms: 300,
        n: 20,
        p50_ms: 10,
        p95_ms: 19,
        max_ms: 20,
        missing: 0,
      },
    ]);
  });

  it('orders delays numerically', () => {
    const rows = calibrationErrorTable(
      [1500, 0, 800, 300].map((d) => sample('json', 'voice_to_voice_ms', d, d + 1, d)),
    );
    expect(rows.map((r) => r.delay_ms)).toEqual([0, 300, 800, 1500]);
  });
});

describe('calibrationFailures', () => {
  it('fails rows whose p95 error is above the limit, and rows with nothing measured', () => {
    const rows = calibrationErrorTable([
      sample('json', 'voice_to_voice_ms', 0, 110, 100),
      sample('json', 'voice_to_voice_ms', 300, 411, 400),
      sample('json', 'voice_to_voice_ms', 800, null, 800),
    ]);
    expect(calibrationFailures(rows).map((r) => r.delay_ms)).toEqual([300, 800]);
    expect(calibrationFailures(rows, 20).map((r) => r.delay_ms)).toEqual([800]);
  });
});

describe('renderCalibrationTable', () => {
  it('prints an aligned table with a header and a dash for empty cells', () => {
    const rows = calibrationErrorTable([
      sample('json', 'voice_to_voice_ms', 0, 103.26, 100),
      sample('protobuf', 'interruption_ms', 1500, null, 1500),
    ]);
    expect(renderCalibrationTable(rows).split('\n')).toEqual([
      'codec     metric             delay_ms  n  p50_ms  p95_ms  max_ms  missing',
      '--------  -----------------  --------  -  ------  ------  ------  -------',
      'json      voice_to_voice_ms         0  1     3.3     3.3     3.3        0',
      'protobuf  interruption_ms        1500  0       -       -       -        1',
    ]);
  });
});
