import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult, SimulationResult } from '../../../src/results/index.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { simLlm } from '../../support/sim-llm.js';
import { earshot, livePids, readResults } from '../../suite/cli.testutil.js';
import { callerRules, judgeRules } from './booking-rules.testutil.js';

/**
 * Simulations through the built CLI: `earshot run` against a reference bot
 * subprocess, and `earshot suite` spawning one for every run, several at a
 * time, text and audio. The caller's model and the judge are the stand-in
 * LLM server in this process, reached over real HTTP through `--simulator`
 * and `--judge`, exactly as a local model would be.
 */
const here = (p: string): string => join(ROOT, 'test/e2e/sim', p);
const tmp = mkdtempSync(join(tmpdir(), 'earshot-sim-cli-'));
let server: LlmServer;
let bot: RefbotProcess;
let silentBot: RefbotProcess;

const llmFlags = (): string[] => [
  '--simulator',
  `openai:persona-model@${server.url}`,
  '--judge',
  `openai:judge-model@${server.url}`,
];
const byName = (results: ScenarioResult[]): Map<string, ScenarioResult> => new Map(results.map((r) => [r.name, r]));
const sim = (r: ScenarioResult | undefined): SimulationResult => {
  expect(r?.simulation, JSON.stringify(r)).toBeDefined();
  return r!.simulation!;
};

beforeAll(async () => {
  server = await startLlmServer(simLlm({ persona: callerRules(), judge: judgeRules }));
  [bot, silentBot] = await Promise.all([
    startRefbotProcess(['--brain', here('brain-booking.yaml')]),
    startRefbotProcess(['--brain', here('brain-booking.yaml'), '--fault', 'hang-after-turn=1']),
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), silentBot?.stop(), server?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

describe('earshot run plays simulated callers against a running bot', () => {
  it('one passes, one fails on success, one ends on max_turns; each result in results.jsonl with its conversation; exit 1', async () => {
    const out = join(tmp, 'run');
    const run = await earshot([
      'run',
      here('booking.yaml'),
      '--url',
      bot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'list,junit,html',
    ]).done;
    expect(run.code, run.stderr).toBe(1);
    const results = byName(readResults(out));
    expect([...results.keys()]).toEqual(['booking/available', 'booking/taken', 'booking/repeating']);

    const passed = results.get('booking/available')!;
    expect(passed.status, run.stderr).toBe('passed');
    const s = sim(passed);
    expect(s).toMatchObject({
      ended_by: 'end_call',
      persona_turns: 3,
      success: { verdict: 'yes' },
      passed: true,
      simulator: expect.stringContaining('persona-model'),
    });
    expect(s.transcript.filter((e) => e.kind === 'caller').map((e) => e.text)).toEqual([
      'For two people.',
      "At six o'clock.",
      'Thank you, goodbye!',
    ]);
    expect(s.transcript.every((e) => Number.isFinite(e.at_ms))).toBe(true);
    expect(s.metrics.find((m) => m.name === 'booked')).toMatchObject({ passed: true, value: 3 });
    expect(readFileSync(join(out, passed.artifacts!.trace!), 'utf8')).toContain('persona: call ended by end_call');

    const taken = results.get('booking/taken')!;
    expect(taken.status).toBe('failed');
    expect(sim(taken)).toMatchObject({ ended_by: 'end_call', success: { verdict: 'no', reason: 'scripted goal no' } });
    expect(taken.failures.map((f) => f.kind)).toEqual(['goal_not_met', 'function_calls_mismatch']);

    const repeating = results.get('booking/repeating')!;
    expect(sim(repeating)).toMatchObject({ ended_by: 'max_turns', persona_turns: 3 });
    expect(repeating.failures[0].kind).toBe('cut_short');

    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      ok: boolean;
      outcomes: Record<string, number>;
    };
    expect(summary).toMatchObject({ ok: false, outcomes: { passed: 1, failed: 2 } });
    expect(run.stdout).toContain('booking/available');
    // JUnit: the call's verdict is one case of its own, typed by the failure's kind; the HTML report holds the call.
    const junit = readFileSync(join(out, 'junit.xml'), 'utf8');
    expect(junit).toMatch(
      /<testcase name="conversation" classname="booking\/taken"[^>]*>\s*<failure [^>]*type="goal_not_met"/,
    );
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('"ended_by":"max_turns"');
  }, 120_000);

  it('ends on max_silence_s against a bot that stops answering', async () => {
    const out = join(tmp, 'silence');
    const t0 = performance.now();
    const run = await earshot([
      'run',
      here('silence.yaml'),
      '--url',
      silentBot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code).toBe(1);
    const [result] = readResults(out);
    expect(sim(result)).toMatchObject({ ended_by: 'silence', end_detail: 'nothing happened for max_silence_s (2s)' });
    expect(performance.now() - t0).toBeLessThan(30_000);
  }, 60_000);

  it('--severity and --category keep only the simulations asked for (a scorecard and success signals, each passing and failing)', async () => {
    const out = join(tmp, 'filtered');
    const run = await earshot([
      'run',
      here('booking.yaml'),
      here('extensions.yaml'),
      '--severity',
      'high',
      '--category',
      'booking',
      '--url',
      bot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    const results = readResults(out);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['extensions/scorecard_pass', 'passed'],
      ['extensions/scorecard_fail', 'failed'],
      ['extensions/signals_pass', 'passed'],
      ['extensions/signals_fail', 'failed'],
    ]);
    expect(run.code).toBe(1);
    expect(sim(results[1]).scorecard).toMatchObject({ passed: false, expected_answer: '7 PM' });
    expect(sim(results[3]).signals!.map((x) => [x.signal, x.passed])).toEqual([
      ['clean_exit', true],
      ['action_match', false],
      ['nl_assertions', false],
    ]);

    const none = await earshot(['run', here('booking.yaml'), '--severity', 'critical', '--url', bot.url, ...llmFlags()])
      .done;
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(
      /no scenarios in .*booking\.yaml match --severity critical \(categories: none; severities: none\)/,
    );
    const badSeverity = await earshot(['run', here('booking.yaml'), '--severity', 'urgent', '--url', bot.url]).done;
    expect([badSeverity.code, badSeverity.stderr]).toEqual([
      2,
      expect.stringMatching(/--severity.*expected critical, high, medium, low \(comma-separated\), got urgent/),
    ]);
    const badSimulator = await earshot(['run', here('booking.yaml'), '--simulator', 'claude:x', '--url', bot.url]).done;
    expect([badSimulator.code, badSimulator.stderr]).toEqual([
      2,
      expect.stringMatching(/--simulator.*expected openai:MODEL\[@URL\] or ollama:MODEL\[@URL\]/),
    ]);
  }, 120_000);

  it('runs: N runs a simulation N times, each result with its repeat index, and every run must pass; --repeat replaces runs:', async () => {
    const file = join(tmp, 'twice.yaml');
    const available = readFileSync(here('booking.yaml'), 'utf8').split('scenarios:')[0];
    writeFileSync(
      file,
      `${available}runs: 2\npersona: "Jamie, booking dinner for two tonight at 6 PM."\ngoal: "Book a table for two at 6 PM tonight."\nsuccess: "the bot booked a table for two at 6 PM"\n`,
    );
    const out = join(tmp, 'twice');
    const run = await earshot(['run', file, '--url', bot.url, ...llmFlags(), '--out', out, '--reporter', 'dot']).done;
    expect(run.code, run.stderr).toBe(0);
    expect(readResults(out).map((r) => [r.status, r.run?.repeat_index, r.run?.pass_threshold])).toEqual([
      ['passed', 0, 1],
      ['passed', 1, 1],
    ]);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      scenarios: Array<{ runs: number; pass_rate: number; ok: boolean }>;
    };
    expect(summary.scenarios[0]).toMatchObject({ runs: 2, pass_rate: 1, ok: true });
    const once = join(tmp, 'once');
    await earshot(['run', file, '--url', bot.url, ...llmFlags(), '--out', once, '--reporter', 'dot', '--repeat', '1'])
      .done;
    expect(readResults(once)).toHaveLength(1);
  }, 120_000);

  it('a simulator that cannot be reached makes the run an error, said in the result, without a crash', async () => {
    const out = join(tmp, 'unreachable');
    const run = await earshot([
      'run',
      here('booking.yaml'),
      '--url',
      bot.url,
      '--simulator',
      'openai:gone@http://127.0.0.1:9/v1',
      '--judge',
      `openai:judge-model@${server.url}`,
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.stderr).not.toMatch(/at .*\.js:\d+/);
    const results = readResults(out);
    expect(results).toHaveLength(3);
    expect(results.every((r) => r.status === 'error' && r.simulation?.ended_by === 'error')).toBe(true);
    expect(results[0].failures[0].reason).toContain("the caller's model failed");
  }, 120_000);
});

describe('earshot suite runs simulations from a manifest, a bot of its own for each, concurrently', () => {
  it('text and audio: passes, fails on success, max_turns and max_silence_s, appended as each ends; every bot stopped', async () => {
    const out = join(tmp, 'suite');
    const pids = join(tmp, 'pids');
    const run = await earshot(
      ['suite', here('suite.yaml'), '--python', process.execPath, ...llmFlags(), '--out', out, '--reporter', 'dot'],
      { EARSHOT_TEST_PID_DIR: pids },
    ).done;
    expect(run.code, run.stderr).toBe(1);
    const results = readResults(out);
    const got = Object.fromEntries(results.map((r) => [`${r.run?.bot} ${r.name}`, [r.status, r.simulation?.ended_by]]));
    expect(got).toEqual({
      'booking.mjs booking/available': ['passed', 'end_call'],
      'booking.mjs booking/taken': ['failed', 'end_call'],
      'booking.mjs booking/repeating': ['failed', 'max_turns'],
      'booking.mjs booking_audio/available': ['passed', 'end_call'],
      'booking-silent.mjs silence/unanswered': ['failed', 'silence'],
    });
    // Appended as each ended: the audio call, the longest, ended last.
    expect(results.at(-1)!.name).toBe('booking_audio/available');
    const audio = results.at(-1)!;
    expect(audio.artifacts?.bot_log).toMatch(/booking_audio__available\.bot\.log$/);
    expect(audio.turns.every((t) => (t.metrics?.voice_to_voice_ms ?? 0) > 0)).toBe(true);
    expect(livePids(pids)).toEqual([]);
  }, 300_000);

  it('--list marks the simulations and -k simulation keeps them', async () => {
    const run = await earshot([
      'suite',
      here('suite.yaml'),
      '--python',
      process.execPath,
      '--list',
      '-k',
      'simulation',
      '--severity',
      'high',
    ]).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no runs match -k simulation and --severity high/);
    const listed = await earshot(['suite', here('suite.yaml'), '--python', process.execPath, '--list']).done;
    expect(
      listed.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t').slice(1, 2).concat(l.split('\t').slice(4)).join(' ')),
    ).toEqual([
      'booking/available (simulation)',
      'booking/taken (simulation)',
      'booking/repeating (simulation)',
      'booking_audio/available (simulation)',
      'silence/unanswered (simulation)',
    ]);
  }, 60_000);
});
