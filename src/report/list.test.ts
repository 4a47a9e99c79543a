import { afterEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { summarize, type ScenarioResult } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { ListReporter } from './list.js';
import { startOf } from './format.js';
import { VirtualTerminal } from './terminal.testutil.js';

function setup(
  isTTY: boolean,
  env: NodeJS.ProcessEnv = {},
): { term: VirtualTerminal; clock: ManualClock; list: ListReporter } {
  const term = new VirtualTerminal(isTTY, 100);
  const clock = new ManualClock(0);
  const list = new ListReporter({
    stdout: term,
    stderr: new VirtualTerminal(false),
    env,
    clock,
    redactor: new Redactor({ OPENAI_API_KEY: 'sk-secret-value-123' }),
  });
  return { term, clock, list };
}

function play(list: ListReporter, clock: ManualClock, r: ScenarioResult): void {
  const info = startOf(r);
  list.onScenarioStart(info);
  for (const t of r.turns) {
    clock.advance(t.duration_ms);
    list.onTurnEnd(
      info,
      t,
      r.failures.filter((f) => f.turn_index === t.index),
    );
  }
  list.onScenarioEnd(r);
}

let live: ListReporter | undefined;
afterEach(() => {
  live?.onEnd(summarize([]));
  live = undefined;
});

describe('list reporter, not a TTY (CI logs)', () => {
  it('ends a run with repeats with each scenario’s pass rate and its Wilson 95 % interval', () => {
    const { term, list } = setup(false);
    const runs = [
      ...[0, 1, 2, 3, 4].map((i) => makeResult({ file: 'steady.yaml', name: 'steady', repeat_index: i })),
      ...[0, 1, 2, 3, 4].map((i) =>
        makeResult({
          file: 'wobbly.yaml',
          name: 'wobbly',
          bot: 'bot.py',
          repeat_index: i,
          status: i < 3 ? 'passed' : 'failed',
        }),
      ),
    ];
    list.onEnd(summarize(runs, { wall_ms: 1000 }));
    expect(term.screen().slice(-5)).toEqual([
      '  flaky  wobbly [bot.py] 3/5 passed wobbly.yaml',
      'Pass rates (95% Wilson interval):',
      '  steady               5/5  100%  (57–100%)',
      '  wobbly [bot.py]      3/5   60%  (23–88%)',
      '8 passed · 2 failed · 1 flaky (10 runs in 1.0 s)',
    ]);
    // One run each says nothing an interval would add.
    const single = setup(false);
    single.list.onEnd(summarize([makeResult({ file: 'a.yaml' })], { wall_ms: 1000 }));
    expect(single.term.screen().join('\n')).not.toContain('Pass rates');
  });

  it('prints one plain line per turn as it resolves and one per scenario, with progress', () => {
    const { term, clock, list } = setup(false);
    list.onBegin({ started_at: '', total: 2, concurrency: 1 });
    const a = makeResult({ file: 'a.yaml' });
    const b = makeResult({ file: 'b.yaml', status: 'failed', bot: 'bot.py', repeat_index: 1 });
    play(list, clock, a);
    play(list, clock, b);
    list.onEnd(summarize([a, b], { wall_ms: 8000 }));
    expect(term.raw).not.toMatch(/\u001b/);
    expect(term.screen()).toEqual([
      'Running 2 scenario runs',
      '▶ a',
      '  ✓ turn 1 "Hello there" 900 ms · voice-to-voice 640 ms',
      '  ✓ turn 2 "What is the capital of France?" 901 ms · voice-to-voice 650 ms',
      '✓ [1/2] a (4.0 s)',
      '▶ b [bot.py] #2',
      '  ✓ turn 1 "Hello there" 900 ms · voice-to-voice 640 ms',
      '  ✗ turn 2 "What is the capital of France?" 1.5 s · voice-to-voice 700 ms',
      '      ✗ response text_mismatch: response did not contain "Paris": got "Paris is the capital of France."',
      '      · function_call',
      '✗ [2/2] b [bot.py] #2 (4.0 s)',
      '',
      'Not passing:',
      '  failed b [bot.py] b.yaml',
      '1 passed · 1 failed (2 runs in 8.0 s)',
    ]);
  });

  it('prints scenario-level failures with kind and reason', () => {
    const { term, clock, list } = setup(false);
    play(list, clock, makeResult({ file: 'c.yaml', status: 'error' }));
    expect(term.screen()).toContain(
      '    connect_failed: nothing listens on ws://127.0.0.1:1 (ECONNREFUSED) after 3 attempts',
    );
  });

  it('says how a simulated call ended, and how often the caller spoke', () => {
    const { term, clock, list } = setup(false);
    const simulation = {
      ended_by: 'max_turns' as const,
      end_detail: 'the caller reached max_turns (3)',
      persona_turns: 3,
      duration_s: 2.5,
      transcript: [],
      success: { criterion: 'parking', verdict: 'no' as const, reason: 'never said' },
      metrics: [],
      passed: false,
      simulator: 'openai/m',
    };
    play(list, clock, { ...makeResult({ file: 'sim.yaml', status: 'failed' }), simulation });
    expect(term.screen()).toContain(
      '    call ended by max_turns after 3 caller turn(s): the caller reached max_turns (3)',
    );
  });

  it('names the scenario on turn lines while several run at once', () => {
    const { term, list } = setup(false);
    const a = startOf(makeResult({ file: 'a.yaml' }));
    const b = startOf(makeResult({ file: 'b.yaml' }));
    list.onScenarioStart(a);
    list.onScenarioStart(b);
    list.onTurnEnd(b, makeResult({ file: 'b.yaml' }).turns[0], []);
    expect(term.screen()).toContain('  ✓ b › turn 1 "Hello there" 900 ms · voice-to-voice 640 ms');
  });

  it('never lets bot text drive the terminal or leak a secret', () => {
    const { term, clock, list } = setup(false);
    const r = makeResult({ file: 'a.yaml', status: 'failed', reply: 'x' });
    r.failures[0].reason = 'got "\u001b[2J\u001b]0;pwned\u0007 sk-secret-value-123\nline two\r\u202eevil"';
    play(list, clock, r);
    expect(term.raw).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/);
    expect(term.raw).toContain('got " [redacted] line two evil"');
  });
});

describe('list reporter on a TTY', () => {
  it('keeps a live region: a spinner line per running scenario with elapsed time, and a progress bar', () => {
    const { term, clock, list } = setup(true, { NO_COLOR: '1' });
    live = list;
    list.onBegin({ started_at: '', total: 4 });
    const a = makeResult({ file: 'a.yaml' });
    const info = startOf(a);
    list.onScenarioStart(info);
    clock.advance(2500);
    list.onTurnEnd(info, a.turns[0], []);
    const screen = term.screen();
    expect(screen.slice(0, 2)).toEqual([
      'Running 4 scenario runs',
      '  ✓ turn 1 "Hello there" 900 ms · voice-to-voice 640 ms',
    ]);
    expect(screen[2]).toMatch(/^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] a turn 2\/2 2\.5 s$/);
    expect(screen[3]).toMatch(/^░{24} 0\/4 0 ✓ 0 ✗ 2\.5 s$/);
    expect(screen).toHaveLength(4);
    list.onScenarioEnd(a);
    expect(term.screen().slice(2)).toEqual([
      '✓ [1/4] a (4.0 s)',
      `${'█'.repeat(6)}${'░'.repeat(18)} 1/4 1 ✓ 0 ✗ 2.5 s`,
    ]);
  });

  it('redraws the spinner on its own while a scenario runs', async () => {
    const { term, list } = setup(true, { NO_COLOR: '1' });
    live = list;
    list.onScenarioStart(startOf(makeResult({ file: 'slow.yaml' })));
    const before = term.raw.length;
    await new Promise((r) => setTimeout(r, 350));
    expect(term.raw.length).toBeGreaterThan(before);
    expect(term.raw.slice(before)).toContain('\u001b[1F\u001b[0J');
  });

  it('leaves only permanent lines on screen when the run ends', () => {
    const { term, clock, list } = setup(true, { NO_COLOR: '1' });
    list.onBegin({ started_at: '', total: 2 });
    const a = makeResult({ file: 'a.yaml' });
    play(list, clock, a);
    list.onEnd(summarize([a], { wall_ms: 1000 }));
    const screen = term.screen();
    expect(screen.some((l) => /[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏░█]/.test(l))).toBe(false);
    expect(screen.at(-1)).toBe('1 passed (1 run in 1.0 s)');
  });

  it('cuts live lines to the terminal width so redraws stay aligned', () => {
    const term = new VirtualTerminal(true, 30);
    const list = new ListReporter({
      stdout: term,
      stderr: term,
      env: { NO_COLOR: '1' },
      clock: new ManualClock(),
      redactor: new Redactor({}),
    });
    live = list;
    list.onScenarioStart(startOf(makeResult({ file: 'a-scenario-with-a-very-long-name-indeed.yaml' })));
    for (const line of term.screen()) expect([...line].length).toBeLessThanOrEqual(29);
  });

  it('colours statuses on a TTY and not when NO_COLOR is set', () => {
    const colored = setup(true, {});
    colored.list.onEnd(summarize([makeResult({ file: 'a.yaml' })]));
    expect(colored.term.raw).toContain('\u001b[32m1 passed\u001b[39m');
    const plain = setup(true, { NO_COLOR: '1' });
    plain.list.onEnd(summarize([makeResult({ file: 'a.yaml' })]));
    expect(plain.term.raw).not.toContain('\u001b[32m');
  });
});
