import { describe, expect, it } from 'vitest';
import { calibrationErrorTable, calibrationFailures } from '../../metrics/index.js';
import type { CalibrationOutcome, CalibrationSampleRecord } from './calibrate.js';
import { CalibrationSetupError, withEmptyRows } from './calibrate.js';
import { calibrationJson, errorSources, parseDelayList, parseWireList, renderCalibration } from './report.js';

function sample(
  codec: 'pipecat-eval' | 'protobuf',
  delay_ms: number,
  measured: number | null,
  truth: number | null,
  edges: [number, number] = [-1, 0.5],
): CalibrationSampleRecord {
  return {
    codec,
    delay_ms,
    run: 1,
    metric: 'voice_to_voice_ms',
    turn_index: 1,
    conn: 1,
    bot_turn: 1,
    measured_ms: measured,
    truth_ms: truth,
    error_ms: measured !== null && truth !== null ? measured - truth : null,
    user_edge_offset_ms: edges[0],
    bot_edge_offset_ms: edges[1],
    ...(measured === null ? { note: 'earshot measured no voice-to-voice latency for this turn' } : {}),
  };
}

function outcome(samples: CalibrationSampleRecord[], limit = 10): CalibrationOutcome {
  const rows = calibrationErrorTable(samples);
  const failures = calibrationFailures(rows, limit);
  return {
    rows,
    failures,
    p95_limit_ms: limit,
    passed: failures.length === 0,
    samples,
    configs: [],
    interrupted: false,
    load_average: { start: [1.5, 1, 0.5], end: [2.25, 1, 0.5] },
  };
}

describe('--delays and --wires', () => {
  it('read comma lists', () => {
    expect(parseDelayList('0,300, 800,1500')).toEqual([0, 300, 800, 1500]);
    expect(parseWireList('protobuf')).toEqual(['protobuf']);
    expect(parseWireList('pipecat-eval, protobuf')).toEqual(['pipecat-eval', 'protobuf']);
  });

  it.each([
    ['0,,300', '"" is not a number of ms >= 0'],
    ['0,-5', '"-5" is not a number of ms >= 0'],
    ['300,abc', '"abc" is not a number'],
    ['300,300', '300 is listed twice'],
  ])('reject the delays %s', (text, problem) => {
    expect(() => parseDelayList(text)).toThrow(CalibrationSetupError);
    expect(() => parseDelayList(text)).toThrow(problem);
  });

  it('reject an unknown or repeated wire', () => {
    expect(() => parseWireList('protobuf,json')).toThrow('unknown wire "json" (expected pipecat-eval, protobuf)');
    expect(() => parseWireList('protobuf,protobuf')).toThrow('protobuf is listed twice');
  });
});

describe('the calibration report', () => {
  const good = [
    sample('protobuf', 0, 1001, 1000),
    sample('protobuf', 0, 1502, 1500, [-3, 1]),
    sample('protobuf', 300, 1299, 1300),
  ];

  it('gives the median edge offsets per codec and metric, to say where errors come from', () => {
    expect(errorSources(good)).toEqual([
      { codec: 'protobuf', metric: 'voice_to_voice_ms', n: 3, user_edge_p50_ms: -1, bot_edge_p50_ms: 0.5 },
    ]);
  });

  it('prints the table and a pass verdict when every p95 is within the limit', () => {
    const text = renderCalibration(outcome(good));
    expect(text).toMatch(/codec\s+metric\s+delay_ms\s+n\s+p50_ms\s+p95_ms\s+max_ms\s+missing/);
    expect(text).toMatch(/protobuf\s+voice_to_voice_ms\s+0\s+2\s+1\s+2\s+2\s+0/);
    expect(text).toContain('user edge -1.0 ms  bot edge +0.5 ms');
    expect(text).toContain('calibration passed: every p95 |error| ≤ 10 ms');
    expect(text).toMatch(/machine load \(1-minute average\) 1\.5 at the start, 2\.25 at the end, on \d+ cores/);
  });

  it('fails a row over the limit and a row without samples, and lists what was missing', () => {
    const text = renderCalibration(
      outcome([...good, sample('protobuf', 800, 1830, 1800), sample('pipecat-eval', 0, null, 1000)]),
    );
    expect(text).toContain(
      'missing: pipecat-eval delay 0 ms run 1 turn 2 voice_to_voice_ms: earshot measured no voice-to-voice latency for this turn',
    );
    expect(text).toContain(
      'calibration FAILED: p95 |error| over 10 ms or no sample: pipecat-eval voice_to_voice_ms delay 0 ms (no sample); protobuf voice_to_voice_ms delay 800 ms (p95 30 ms)',
    );
  });

  it('writes JSON rows with n, p50_ms, p95_ms and max_ms, with the command and the machine', () => {
    const json = calibrationJson(outcome(good), 'earshot calibrate --repeat 1', {
      cpu: 'x',
      cores: 2,
      memory_gib: 24,
      os: 'Linux',
      node: 'v20',
    });
    expect(json).toMatchObject({
      command: 'earshot calibrate --repeat 1',
      machine: { cores: 2 },
      load_average: { start: [1.5, 1, 0.5] },
      p95_limit_ms: 10,
      passed: true,
    });
    expect(json.rows).toEqual([
      {
        codec: 'protobuf',
        metric: 'voice_to_voice_ms',
        delay_ms: 0,
        n: 2,
        p50_ms: 1,
        p95_ms: 2,
        max_ms: 2,
        missing: 0,
      },
      {
        codec: 'protobuf',
        metric: 'voice_to_voice_ms',
        delay_ms: 300,
        n: 1,
        p50_ms: 1,
        p95_ms: 1,
        max_ms: 1,
        missing: 0,
      },
    ]);
    expect(json.samples).toHaveLength(3);
  });
});

describe('configurations without samples', () => {
  it('still get a row, with n = 0, and fail calibration', () => {
    const rows = withEmptyRows(calibrationErrorTable([sample('protobuf', 0, 1001, 1000)]), ['protobuf'], [0, 300]);
    expect(rows.map((r) => [r.metric, r.delay_ms, r.n])).toEqual([
      ['interruption_ms', 0, 0],
      ['interruption_ms', 300, 0],
      ['voice_to_voice_ms', 0, 1],
      ['voice_to_voice_ms', 300, 0],
    ]);
    expect(calibrationFailures(rows).map((r) => [r.metric, r.delay_ms])).toEqual([
      ['interruption_ms', 0],
      ['interruption_ms', 300],
      ['voice_to_voice_ms', 300],
    ]);
  });
});
