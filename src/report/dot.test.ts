import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { summarize } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { createDotReporter } from './dot.js';
import { VirtualTerminal } from './terminal.testutil.js';

describe('dot reporter', () => {
  it('prints one mark per scenario run, then each failure with kind and reason, then a tally', () => {
    const stdout = new VirtualTerminal(false);
    const dot = createDotReporter({
      stdout,
      stderr: stdout,
      env: {},
      clock: new ManualClock(),
      redactor: new Redactor({}),
    });
    const results = [
      makeResult({ file: 'a.yaml' }),
      makeResult({ file: 'b.yaml', status: 'failed' }),
      makeResult({ file: 'c.yaml', status: 'error' }),
      makeResult({ file: 'd.yaml', status: 'skipped' }),
    ];
    for (const r of results) dot.onScenarioEnd?.(r);
    expect(stdout.raw).toBe('·FE-');
    dot.onEnd?.(summarize(results, { wall_ms: 3000 }));
    expect(stdout.screen()).toEqual([
      '·FE-',
      '',
      '1) b b.yaml',
      '   text_mismatch turn 2.1 response: response did not contain "Paris": got "Paris is the capital of France."',
      '',
      '2) c c.yaml',
      '   connect_failed: nothing listens on ws://127.0.0.1:1 (ECONNREFUSED) after 3 attempts',
      '',
      '1 passed, 1 failed, 1 errored, 1 skipped in 3.0 s',
    ]);
  });

  it('wraps long runs of marks at the terminal width', () => {
    const stdout = new VirtualTerminal(false, 21);
    const dot = createDotReporter({
      stdout,
      stderr: stdout,
      env: {},
      clock: new ManualClock(),
      redactor: new Redactor({}),
    });
    for (let i = 0; i < 45; i++) dot.onScenarioEnd?.(makeResult({ file: `s${i}.yaml` }));
    expect(stdout.screen().map((l) => l.length)).toEqual([20, 20, 5]);
  });
});
