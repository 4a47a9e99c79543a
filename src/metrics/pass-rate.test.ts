import { describe, expect, it } from 'vitest';
import { turnPassRates } from './pass-rate.js';

describe('turnPassRates', () => {
  it('counts per turn over runs, a turn a run never reached counting as not run', () => {
    const runs = [
      [
        { index: 0, status: 'passed' },
        { index: 1, status: 'passed' },
        { index: 2, status: 'passed' },
      ],
      [
        { index: 0, status: 'passed' },
        { index: 1, status: 'failed' },
        { index: 2, status: 'not_run' },
      ],
      [{ index: 0, status: 'failed' }],
    ];
    expect(turnPassRates(runs)).toEqual([
      { turn_index: 0, runs: 3, passed: 2, failed: 1, inconclusive: 0, not_run: 0, pass_rate: 0.6667 },
      { turn_index: 1, runs: 3, passed: 1, failed: 1, inconclusive: 0, not_run: 1, pass_rate: 0.3333 },
      { turn_index: 2, runs: 3, passed: 1, failed: 0, inconclusive: 0, not_run: 2, pass_rate: 0.3333 },
    ]);
  });

  it('leaves a run in which the turn was inconclusive out of its pass rate', () => {
    const runs = [
      [{ index: 0, status: 'passed' }],
      [{ index: 0, status: 'inconclusive' }],
      [{ index: 0, status: 'failed' }],
    ];
    expect(turnPassRates(runs)).toEqual([
      { turn_index: 0, runs: 3, passed: 1, failed: 1, inconclusive: 1, not_run: 0, pass_rate: 0.5 },
    ]);
    expect(turnPassRates([[{ index: 0, status: 'inconclusive' }]])[0]).toMatchObject({ inconclusive: 1, pass_rate: 0 });
  });

  it('gives no rows for no runs, and rows for turns only some runs reported', () => {
    expect(turnPassRates([])).toEqual([]);
    expect(
      turnPassRates([[], [{ index: 1, status: 'passed' }]]).map((r) => [r.turn_index, r.passed, r.not_run]),
    ).toEqual([
      [0, 0, 2],
      [1, 1, 1],
    ]);
  });
});
