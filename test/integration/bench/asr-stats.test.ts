import { describe, expect, it } from 'vitest';
import {
  judgeLevel,
  largestSustained,
  modelRow,
  pickUtterances,
  quantile,
  replySchedule,
  reportProblems,
  tokenBudget,
  withSpread,
} from '../../../bench/asr-stats.js';
import { placements } from '../../../scripts/gpu-check.js';

/**
 * The pure part of `npm run bench:asr` (bench/asr-stats.ts). It lives under
 * test/ because vitest collects tests from src/ and test/ only; it loads no
 * model and runs no process.
 */
describe('bench/asr-stats', () => {
  it('takes nearest-rank quantiles, null without samples', () => {
    const xs = [5, 1, 4, 2, 3, 6, 7, 8, 9, 10];
    expect(quantile(xs, 0.5)).toBe(5);
    expect(quantile(xs, 0.95)).toBe(10);
    expect(quantile([], 0.5)).toBeNull();
  });

  it("budgets real Whisper's three tokens per second of speech, rounded up", () => {
    expect(tokenBudget(2)).toBe(6);
    expect(tokenBudget(2.01)).toBe(7);
    expect(tokenBudget(0.1)).toBe(1);
    expect(() => tokenBudget(0)).toThrow(/seconds > 0/);
  });

  it('picks utterances spread over 2–8 s, each once, none outside', () => {
    const candidates = [1, 1.9, 2.1, 2.5, 3.2, 4.4, 5.1, 6.2, 7.7, 8.5, 9].map((s) => ({ text: `t${s}`, seconds: s }));
    const picked = pickUtterances(candidates, 4);
    expect(picked.map((p) => p.seconds)).toEqual([2.5, 4.4, 6.2, 7.7]);
    expect(new Set(picked).size).toBe(4);
    expect(() => pickUtterances(candidates, 9)).toThrow(/only 7 utterances/);
  });

  it('schedules each call a reply every s / duty seconds, from a seeded phase, sorted by end', () => {
    const o = { sessions: 3, durationS: 60, duty: 0.5, lengthsS: [2, 4], seed: 1 };
    const replies = replySchedule(o);
    expect(replySchedule(o)).toEqual(replies);
    expect(replies.map((r) => r.endS)).toEqual([...replies.map((r) => r.endS)].sort((a, b) => a - b));
    for (let k = 0; k < 3; k++) {
      const mine = replies.filter((r) => r.session === k);
      // Session k starts at utterance k, alternates, and the next reply starts s / duty after the last one did.
      expect(mine[0].utterance).toBe(k % 2);
      for (let i = 1; i < mine.length; i++) {
        const prev = mine[i - 1];
        expect(mine[i].utterance).toBe((prev.utterance + 1) % 2);
        const startGap = mine[i].endS - mine[i].seconds - (prev.endS - prev.seconds);
        expect(startGap).toBeCloseTo(prev.seconds / o.duty, 9);
      }
      expect(mine.at(-1)!.endS).toBeLessThanOrEqual(60);
    }
    // At duty 0.5, a minute of a call holds about 30 s of replies per session.
    const speech = replies.reduce((n, r) => n + r.seconds, 0);
    expect(speech).toBeGreaterThan(3 * 24);
    expect(speech).toBeLessThanOrEqual(3 * 30);
    expect(() => replySchedule({ ...o, duty: 0 })).toThrow(/duty/);
  });

  it('sustains a level only when every reply is transcribed within its own length times the factor', () => {
    const t = (latencyS: number, seconds: number) => ({ latencyS, seconds });
    expect(judgeLevel(2, { transcripts: [t(0.5, 2), t(3.9, 4)], replies: 2, failed: 0 }, 1).sustained).toBe(true);
    const late = judgeLevel(2, { transcripts: [t(0.5, 2), t(2.1, 2)], replies: 2, failed: 0 }, 1);
    expect(late).toMatchObject({ sustained: false, late: 1, lag_max: 1.05, latency_max_s: 2.1 });
    expect(judgeLevel(2, { transcripts: [t(0.5, 2), t(2.1, 2)], replies: 2, failed: 0 }, 1.5).sustained).toBe(true);
    const refused = judgeLevel(2, { transcripts: [t(0.5, 2)], replies: 2, failed: 1 }, 1);
    expect(refused.sustained).toBe(false);
    expect(refused.latency_max_s).toBe(0.5);
    expect(judgeLevel(1, { transcripts: [], replies: 0, failed: 0 }, 1).sustained).toBe(false);
  });

  it('finds the largest sustained level by doubling then bisecting, each level once', async () => {
    const upTo = (limit: number) => async (n: number) => n <= limit;
    expect(await largestSustained(upTo(5), 64)).toEqual({ max: 5, tried: [1, 2, 4, 8, 6, 5] });
    expect((await largestSustained(upTo(0), 64)).max).toBe(0);
    expect(await largestSustained(upTo(100), 48)).toEqual({ max: 48, tried: [1, 2, 4, 8, 16, 32, 48] });
    const { max, tried } = await largestSustained(upTo(40), 48);
    expect(max).toBe(40);
    expect(new Set(tried).size).toBe(tried.length);
  });

  it('pools the runs for the percentiles and keeps each run for the spread', () => {
    const run = (rtfs: number[], rss: number) => ({
      rtfs,
      load_ms: 100 + rss,
      rss_mb: rss,
      tokens_per_call: 12,
      os_threads: 14,
      cores_busy: 1.9,
      audio_s_per_call: 4,
    });
    const row = modelRow('whisper-tiny.en', 'default', 2, [run([0.1, 0.2, 0.3], 300), run([0.2, 0.4, 0.5], 320)]);
    expect(row).toMatchObject({
      rtf_p50: 0.2,
      rtf_p95: 0.5,
      calls: 6,
      tokens_per_call: 12,
      rss_mb: 300,
      cores_busy: 1.9,
    });
    expect(row.runs.map((r) => r.rtf_p50)).toEqual([0.2, 0.4]);
    expect(
      withSpread(
        row.rtf_p50,
        row.runs.map((r) => r.rtf_p50),
      ),
    ).toBe('0.200 (0.200–0.400)');
    expect(withSpread(0.3, [0.3])).toBe('0.300');
    expect(() => modelRow('x', 'fp32', 1, [])).toThrow(/no runs/);
  });

  it("checks the report's documented JSON shape", () => {
    const row = { name: 'kokoro', dtype: 'q8', threads: 1, rtf_p50: 0.2, rtf_p95: null, rss_mb: 400, load_ms: 900 };
    expect(reportProblems({ models: [row], sessions: {} })).toEqual([]);
    expect(reportProblems({ models: [{ ...row, rss_mb: '400' }], sessions: {} })).toEqual([
      'models[0].rss_mb: not a number',
    ]);
    expect(reportProblems({ models: {} })).toEqual(['models: not an array', 'sessions: not an object']);
    expect(reportProblems(null)).toEqual(['report: not an object']);
  });
});

describe('scripts/gpu-check placements', () => {
  it("sums the nodes per execution provider over every session of ONNX Runtime's verbose log", () => {
    const log = [
      '2026-12-07 20:06:29.42 [V:onnxruntime:, session_state.cc:1246 VerifyEachNodeIsAssignedToAnEp] Node placements',
      '2026-12-07 20:06:29.42 [V:onnxruntime:, session_state.cc:1246 VerifyEachNodeIsAssignedToAnEp]  ' +
        'Node(s) placed on [CUDAExecutionProvider]. Number of nodes: 310',
      '2026-12-07 20:06:29.42 [V:onnxruntime:, session_state.cc:1246 VerifyEachNodeIsAssignedToAnEp]  ' +
        'Node(s) placed on [CPUExecutionProvider]. Number of nodes: 12',
      '2026-12-07 20:06:29.43 [V:onnxruntime:, session_state.cc:1246 VerifyEachNodeIsAssignedToAnEp]  ' +
        'All nodes placed on [CUDAExecutionProvider]. Number of nodes: 40',
    ].join('\n');
    expect([...placements(log)]).toEqual([
      ['CUDAExecutionProvider', 350],
      ['CPUExecutionProvider', 12],
    ]);
    expect(placements('no placement lines').size).toBe(0);
  });
});
