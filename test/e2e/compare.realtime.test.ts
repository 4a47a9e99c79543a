import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary, ScenarioResult } from '../../src/results/index.js';
import type { CompareReport } from '../../src/tools/compare/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * `earshot compare` end to end: real reference bots in subprocesses, one
 * answering at once and one 300 ms later (`--response-delay-ms`), the real CLI
 * producing the run folders and comparing them with the default thresholds.
 * Every comparison of the slow bot against the quick one must flag the shift
 * (exit 1); every comparison of two runs against the same bot must not (exit 0)
 * — several independent pairs each, so a verdict that holds only by luck shows.
 *
 * Text first (`run --repeat`, cheap: the delay shows in llm_ttfb_ms and
 * first_token_ms), then audio (`bench --out`), which alone measures
 * voice_to_voice_ms: a short spoken line to a bot with a one-word greeting and
 * a two-word answer, six runs a bench, against a third bot 1000 ms late: the
 * refbot's own end-of-speech detection and PocketSphinx spread its spoken
 * answers over ±400 ms (measured: 1605 → 1948 ms medians, bootstrap interval
 * [−66, +758] for the 300 ms bot), which six runs cannot separate from 300 ms (the exact Mann–Whitney test then reaches
 * p < 0.05 with up to five of the 36 pairs out of order; four runs is the least
 * that can reach it at all).
 * Realtime tier: the audio part measures the bot's real latency.
 */
const tmp = (name: string): string => mkdtempSync(join(tmpdir(), `earshot-compare-${name}-`));
const files = tmp('files');
const BRAIN = join(files, 'brain.yaml');
writeFileSync(
  BRAIN,
  'greeting: Hi.\nfallback: Okay.\nrules:\n  - name: hello\n    when: hello\n    reply: Hi there.\n',
);
const SPOKEN = join(files, 'spoken.yaml');
writeFileSync(
  SPOKEN,
  `name: spoken_hello
user: { modality: audio, speech: { service: flite, voice: slt, sample_rate: 16000 } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - expect:
      - event: bot_audio_stopped
        within_ms: 20000
  - user: "Hello there."
    expect:
      - event: bot_audio_started
        within_ms: 20000
`,
);

const TYPED = join(files, 'typed.yaml');
writeFileSync(
  TYPED,
  `name: typed_hello
turns:
  - expect:
      - event: response
        text_contains: "Hi"
  - user: "Hello there."
    expect:
      - event: llm_started
        within_ms: 5000
      - event: response
        text_contains: "Hi there"
`,
);

let quick: RefbotProcess;
let slow: RefbotProcess;
let slower: RefbotProcess;

beforeAll(async () => {
  [quick, slow, slower] = await Promise.all([
    startRefbotProcess(['-q', '--brain', BRAIN]),
    startRefbotProcess(['-q', '--brain', BRAIN, '--response-delay-ms', '300']),
    startRefbotProcess(['-q', '--brain', BRAIN, '--response-delay-ms', '1000']),
  ]);
});

afterAll(async () => {
  await Promise.all([quick?.stop(), slow?.stop(), slower?.stop()]);
});

async function compare(
  base: string,
  next: string,
  extra: string[] = [],
): Promise<{ run: CliRun; report: CompareReport }> {
  const json = join(tmp('report'), 'compare.json');
  const run = await earshot(['compare', base, next, '--reporter', `list,json=${json}`, ...extra]).done;
  return { run, report: JSON.parse(readFileSync(json, 'utf8')) as CompareReport };
}

/** The verdict of one metric of one turn, and the shift behind it. */
function metric(
  report: CompareReport,
  turn: number,
  name: string,
): { verdict: string; shift_ms: number | null; p_value: number | null } {
  const m = report.scenarios[0].turns.find((t) => t.index === turn)?.metrics.find((x) => x.metric === name);
  if (!m) throw new Error(`no ${name} in turn ${turn + 1}: ${JSON.stringify(report.scenarios[0].turns)}`);
  return { verdict: m.verdict, shift_ms: m.shift_ms, p_value: m.p_value };
}

describe('earshot compare on text runs (run --repeat)', () => {
  const outs: Record<'quick' | 'slow', string[]> = { quick: [], slow: [] };
  let first: CliRun;

  beforeAll(async () => {
    // Interleaved, so a machine that gets busier affects both bots alike.
    for (let i = 0; i < 3; i++) {
      for (const [key, bot] of [
        ['quick', quick],
        ['slow', slow],
      ] as const) {
        const out = tmp(`text-${key}`);
        const run = await earshot(['run', TYPED, '--url', bot.url, '--repeat', '8', '--out', out]).done;
        if (run.code !== 0) throw new Error(`run against the ${key} bot failed:\n${run.stdout}\n${run.stderr}`);
        first ??= run;
        outs[key].push(out);
      }
    }
  }, 180_000);

  it('run --repeat runs each scenario N times and reports its pass rate with a Wilson interval', () => {
    const results = readResults(outs.quick[0]);
    expect(results.map((r: ScenarioResult) => r.run?.repeat_index)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const summary = JSON.parse(readFileSync(join(outs.quick[0], 'summary.json'), 'utf8')) as RunSummary;
    expect(summary.scenarios).toHaveLength(1);
    expect(summary.scenarios[0]).toMatchObject({
      runs: 8,
      passed: 8,
      pass_rate: 1,
      pass_rate_ci95: { low: 0.676, high: 1 },
    });
    expect(first.stdout).toMatch(/Pass rates \(95% Wilson interval\):\n {2}typed_hello +8\/8 +100% +\(68–100%\)/);
  });

  it('flags the 300 ms slower bot every time (exit 1) and never two runs of the same bot (exit 0)', async () => {
    const slower = await Promise.all(outs.quick.map((q, i) => compare(q, outs.slow[i])));
    for (const { run, report } of slower) {
      expect(run.code, run.stdout).toBe(1);
      const ttfb = metric(report, 1, 'llm_ttfb_ms');
      expect(ttfb.verdict).toBe('regressed');
      expect(ttfb.shift_ms!).toBeGreaterThan(250);
      expect(ttfb.shift_ms!).toBeLessThan(400);
      expect(run.stdout).toMatch(/^REGRESSED {2}typed_hello/m);
    }
    const same = await Promise.all([
      compare(outs.quick[0], outs.quick[1]),
      compare(outs.quick[1], outs.quick[2]),
      compare(outs.slow[0], outs.slow[1]),
      compare(outs.slow[1], outs.slow[2]),
    ]);
    for (const { run, report } of same) {
      expect(run.code, run.stdout).toBe(0);
      expect(report.counts.regressed).toBe(0);
    }
    // The other way round is an improvement, and no failure.
    const back = await compare(outs.slow[0], outs.quick[0]);
    expect(back.run.code).toBe(0);
    expect(metric(back.report, 1, 'llm_ttfb_ms').verdict).toBe('improved');
  }, 60_000);

  it('is deterministic: the same comparison twice gives the same report', async () => {
    const [a, b] = await Promise.all([compare(outs.quick[0], outs.slow[0]), compare(outs.quick[0], outs.slow[0])]);
    expect(a.report).toEqual(b.report);
    expect(a.run.stdout).toBe(b.run.stdout);
  });

  it('writes markdown for a pull-request comment and refuses bad input with exit 2', async () => {
    const md = await earshot(['compare', outs.quick[0], outs.slow[0], '--reporter', 'markdown']).done;
    expect(md.code).toBe(1);
    expect(md.stdout).toMatch(/^## ❌ earshot compare: 1 scenario regressed\n/);
    expect(md.stdout).toMatch(/\| 🔴 \| typed\\_hello \| turn 2 \| `llm_ttfb_ms` \|/);
    const [missing, threshold] = await Promise.all([
      earshot(['compare', outs.quick[0], join(files, 'nope')]).done,
      earshot(['compare', outs.quick[0], outs.slow[0], '--threshold', 'ten']).done,
    ]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('nope: no such folder or file');
    expect(threshold.code).toBe(2);
    expect(threshold.stderr).toContain('--threshold "ten": cannot read "ten"');
  });
});

describe('earshot compare on audio benches (voice-to-voice)', () => {
  const outs: Record<'quick' | 'slow', string[]> = { quick: [], slow: [] };

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) {
      for (const [key, bot] of [
        ['quick', quick],
        ['slow', slower],
      ] as const) {
        const out = tmp(`audio-${key}`);
        const run = await earshot(['bench', SPOKEN, '--url', bot.url, '--repeat', '6', '--out', out, '--no-record'])
          .done;
        if (run.code !== 0) throw new Error(`bench against the ${key} bot failed:\n${run.stdout}\n${run.stderr}`);
        outs[key].push(out);
      }
    }
  }, 400_000);

  it('flags a voice-to-voice regression between the bots (exit 1) in every pairing, and none between two benches of one bot (exit 0)', async () => {
    const pairs = [
      [outs.quick[0], outs.slow[0]],
      [outs.quick[1], outs.slow[1]],
      [outs.quick[0], outs.slow[1]],
      [outs.quick[1], outs.slow[0]],
    ];
    for (const [base, next] of pairs) {
      const { run, report } = await compare(base, next);
      const v2v = metric(report, 1, 'voice_to_voice_ms');
      expect(run.code, run.stdout).toBe(1);
      expect(v2v.verdict, run.stdout).toBe('regressed');
      expect(v2v.p_value!).toBeLessThan(0.05);
      expect(v2v.shift_ms!).toBeGreaterThan(600);
    }
    for (const [base, next] of [outs.quick, outs.slow]) {
      const { run, report } = await compare(base, next);
      expect(run.code, run.stdout).toBe(0);
      expect(metric(report, 1, 'voice_to_voice_ms').verdict, run.stdout).not.toBe('regressed');
    }
  }, 60_000);
});
