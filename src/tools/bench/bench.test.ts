import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario } from '../../scenario/index.js';
import { planRuns, runBench } from './bench.js';
import { NoBargeInTurnError } from './sweep.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-bench-plan-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const BARGE_IN = file(
  'barge.yaml',
  `name: barge
turns:
  - user: "Tell me a story"
    expect: [{ event: llm_started }]
  - user: "Stop"
    send_after: { event: llm_started, delay_ms: 300 }
    expect: [{ event: bot_interrupted }]
`,
);

describe('planRuns', () => {
  it('without a sweep: the scenario itself, repeat times', async () => {
    const scenario = await loadScenario(BARGE_IN);
    const plan = planRuns(scenario, 3);
    expect(plan.runs.map((r) => [r.run, r.offset_ms, r.scenario === scenario])).toEqual([
      [0, undefined, true],
      [1, undefined, true],
      [2, undefined, true],
    ]);
    expect(plan.sweep).toBeUndefined();
  });

  it('with a sweep: every offset once per repeat, interleaved, each run with its own offset', async () => {
    const scenario = await loadScenario(BARGE_IN);
    const plan = planRuns(scenario, 2, { from_ms: 100, to_ms: 300, step_ms: 100 });
    expect(plan.runs.map((r) => [r.run, r.offset_ms, r.scenario.turns[1].send_after?.delay_ms])).toEqual([
      [0, 100, 100],
      [1, 200, 200],
      [2, 300, 300],
      [3, 100, 100],
      [4, 200, 200],
      [5, 300, 300],
    ]);
    expect(plan.sweep).toEqual({
      turn_index: 1,
      event: 'llm_started',
      range: { from_ms: 100, to_ms: 300, step_ms: 100 },
    });
  });

  it('refuses a sweep of a scenario with no barge-in turn', async () => {
    const scenario = await loadScenario(
      file('plain.yaml', 'name: plain\nturns:\n  - user: "hi"\n    expect: [{ event: response }]\n'),
    );
    expect(() => planRuns(scenario, 1, { from_ms: 0, to_ms: 100, step_ms: 50 })).toThrow(NoBargeInTurnError);
  });
});

describe('runBench input checks', () => {
  it('rejects a non-positive repeat or concurrency before connecting anywhere', async () => {
    await expect(runBench({ path: BARGE_IN, url: 'ws://127.0.0.1:1', repeat: 0 })).rejects.toThrow(
      '--repeat must be a whole number ≥ 1, got 0',
    );
    await expect(runBench({ path: BARGE_IN, url: 'ws://127.0.0.1:1', concurrency: 1.5 })).rejects.toThrow(
      '--concurrency must be a whole number ≥ 1, got 1.5',
    );
  });

  it('takes one file, not a folder', async () => {
    await expect(runBench({ path: dir, url: 'ws://127.0.0.1:1' })).rejects.toThrow(
      /earshot bench takes one scenario file, not a folder/,
    );
  });

  it('says which scenarios a file holds when -s matches none of its scripted ones, before connecting anywhere', async () => {
    const list = file(
      'list.yaml',
      'name: pair\nscenarios:\n  - name: a\n    turns: [{ user: "hi", expect: [{ event: response }] }]\n  - name: b\n    persona: "a caller"\n    goal: "ask"\n    success: "answered"\n    simulator: { service: openai, model: m }\n',
    );
    const stderr = {
      text: '',
      write(s: string) {
        this.text += s;
        return true;
      },
    };
    await expect(runBench({ path: list, scenario: 'b', url: 'ws://127.0.0.1:1', stderr })).rejects.toThrow(
      /list\.yaml: no scripted scenario matches -s "b" \(it holds: pair\/a, pair\/b \(simulation\)\); simulations and GAIA scenarios are not benched/,
    );
  });
});
