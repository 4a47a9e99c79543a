import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.js';
import { loadScenario } from '../../scenario/index.js';
import {
  bargeInTurnIndex,
  MAX_SWEEP_POINTS,
  NoBargeInTurnError,
  parseSweepRange,
  sweepOffsets,
  SweepRangeError,
  withInterruptOffset,
} from './sweep.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-sweep-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function scenarioFile(name: string, text: string): string {
  const file = join(dir, name);
  writeFileSync(file, text);
  return file;
}

const BARGE_IN = `name: barge
turns:
  - user: "Tell me a story"
    send_after: { delay_ms: 200 }
    expect: [{ event: llm_started }]
  - user: "Stop"
    send_after: { event: llm_started, delay_ms: 300 }
    expect: [{ event: bot_interrupted }]
  - user: "Again"
    send_after: { event: llm_started, delay_ms: 900 }
    expect: [{ event: response }]
`;

describe('parseSweepRange', () => {
  it('reads FROM:TO:STEP in milliseconds', () => {
    expect(parseSweepRange('200:1200:250')).toEqual({ from_ms: 200, to_ms: 1200, step_ms: 250 });
    expect(parseSweepRange(' 0 : 0 : 10 ')).toEqual({ from_ms: 0, to_ms: 0, step_ms: 10 });
    expect(parseSweepRange('0:1:0.5')).toEqual({ from_ms: 0, to_ms: 1, step_ms: 0.5 });
  });

  it.each([
    ['200:1200', 'expected FROM:TO:STEP'],
    ['200:1200:100:5', 'expected FROM:TO:STEP'],
    ['a:1200:100', 'FROM is not a number: "a"'],
    ['0::100', 'TO is not a number'],
    ['0:100:x', 'STEP is not a number'],
    ['-100:100:50', 'FROM must be >= 0 ms'],
    ['500:100:50', 'TO (100) is below FROM (500)'],
    ['0:100:0', 'STEP must be > 0 ms'],
    ['0:100:-5', 'STEP must be > 0 ms'],
    [`0:${MAX_SWEEP_POINTS}:1`, `makes ${MAX_SWEEP_POINTS + 1} offsets`],
  ])('rejects %s with a usage error naming the problem', (value, problem) => {
    let caught: unknown;
    try {
      parseSweepRange(value);
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(SweepRangeError);
    expect(caught).toBeInstanceOf(UsageError);
    expect((caught as SweepRangeError).message).toContain(`--sweep-interrupt ${JSON.stringify(value)}`);
    expect((caught as SweepRangeError).message).toContain(problem);
    expect((caught as SweepRangeError).value).toBe(value);
  });
});

describe('sweepOffsets', () => {
  it('includes TO when a step lands on it', () => {
    expect(sweepOffsets({ from_ms: 200, to_ms: 1000, step_ms: 200 })).toEqual([200, 400, 600, 800, 1000]);
  });

  it('stops below TO when no step lands on it', () => {
    expect(sweepOffsets({ from_ms: 0, to_ms: 1000, step_ms: 300 })).toEqual([0, 300, 600, 900]);
  });

  it('is one offset when FROM equals TO', () => {
    expect(sweepOffsets({ from_ms: 500, to_ms: 500, step_ms: 100 })).toEqual([500]);
  });

  it('does not drift on fractional steps', () => {
    const offsets = sweepOffsets({ from_ms: 0, to_ms: 1, step_ms: 0.1 });
    expect(offsets).toHaveLength(11);
    expect(offsets[3]).toBe(0.3);
    expect(offsets[10]).toBe(1);
  });
});

describe('the barge-in turn', () => {
  it('is the first turn whose send_after names an event', async () => {
    const scenario = await loadScenario(scenarioFile('barge.yaml', BARGE_IN));
    expect(bargeInTurnIndex(scenario)).toBe(1);
  });

  it('is absent when no send_after names an event', async () => {
    const scenario = await loadScenario(
      scenarioFile(
        'plain.yaml',
        'name: plain\nturns:\n  - user: "hi"\n    send_after: { delay_ms: 100 }\n    expect: [{ event: response }]\n',
      ),
    );
    expect(bargeInTurnIndex(scenario)).toBeNull();
    expect(() => withInterruptOffset(scenario, 0, 100)).toThrow(NoBargeInTurnError);
  });

  it('gets the new offset in a copy, leaving the scenario and other turns alone', async () => {
    const scenario = await loadScenario(scenarioFile('barge2.yaml', BARGE_IN));
    const variant = withInterruptOffset(scenario, 1, 750);
    expect(variant.turns[1].send_after).toEqual({ event: 'llm_started', delay_ms: 750 });
    expect(variant.turns[2].send_after).toEqual({ event: 'llm_started', delay_ms: 900 });
    expect(variant.turns[0]).toBe(scenario.turns[0]);
    expect(scenario.turns[1].send_after).toEqual({ event: 'llm_started', delay_ms: 300 });
  });
});
