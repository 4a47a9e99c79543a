import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocketServer } from 'ws';
import type { ScenarioResult } from '../../src/results/index.js';
import { judgeRules, startLlmServer, type LlmServer } from '../support/llm-server.js';
import { ROOT } from '../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults } from '../suite/cli.testutil.js';

/**
 * `earshot run` end to end: a real reference bot in a subprocess, the real CLI
 * in another, real sockets. The example scenarios pass; deliberately wrong
 * scenarios fail with the failure kind that says why.
 */
const here = (p: string): string => join(ROOT, 'test', 'e2e', p);
const outDir = (): string => mkdtempSync(join(tmpdir(), 'earshot-e2e-'));

function byName(results: ScenarioResult[]): Record<string, ScenarioResult> {
  return Object.fromEntries(results.map((r) => [r.name, r]));
}

let bot: RefbotProcess;
beforeAll(async () => {
  bot = await startRefbotProcess();
});
afterAll(async () => {
  await bot?.stop();
});

describe('earshot run against the reference bot (text)', () => {
  it('runs every bundled text scenario and they all pass (exit 0, one results.jsonl line each)', async () => {
    const out = outDir();
    const run = await earshot(['run', 'scenarios/text', '--url', bot.url, '--out', out, '--reporter', 'dot']).done;
    const results = readResults(out);
    expect(results.map((r) => `${r.name}:${r.status}`).filter((s) => !s.endsWith(':passed'))).toEqual([]);
    expect(results.length).toBeGreaterThanOrEqual(8);
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as { counts: Record<string, number> };
    expect(summary.counts.passed).toBe(results.length);
  }, 120_000);

  it('reports each deliberate mistake with the failure kind that says what happened', async () => {
    const out = outDir();
    const run = await earshot([
      'run',
      here('wrong'),
      '--url',
      bot.url,
      '--out',
      out,
      '--reporter',
      'dot',
      '--send-after-timeout',
      '2',
    ]).done;
    expect(run.code).toBe(1);
    const r = byName(readResults(out));
    const kinds = (name: string): string[] => r[name].failures.map((f) => f.kind);
    expect(kinds('wrong_timeout')).toEqual(['timeout']);
    expect(kinds('wrong_text_mismatch')).toEqual(['text_mismatch']);
    expect(r.wrong_text_mismatch.turns[0].expectations[0].text).toContain('Berlin');
    expect(kinds('wrong_missing_function_call')).toEqual(['missing_function_call']);
    expect(kinds('wrong_function_args_mismatch')).toEqual(['function_args_mismatch']);
    expect(r.wrong_function_args_mismatch.failures[0].reason).toContain('San Francisco');
    expect(kinds('wrong_unexpected_event')).toEqual(['unexpected_event']);
    expect(kinds('wrong_send_after_timeout')).toEqual(['send_after_timeout']);
    expect(r.wrong_send_after_timeout.turns.map((t) => t.status)).toEqual(['passed', 'failed']);
    // stop_on_failure: false drives the turn after a failed one.
    expect(r.wrong_but_keeps_going.turns.map((t) => t.status)).toEqual(['failed', 'passed']);
    for (const res of Object.values(r)) {
      expect(res.failures.every((f) => f.turn_index !== null && f.reason.length > 0)).toBe(true);
      expect(readFileSync(join(out, res.artifacts!.trace!), 'utf8')).toContain('done: FAILED');
    }
  }, 120_000);

  it('fails with connect_failed within the connect timeout when nothing listens', async () => {
    const port = await freePort();
    const out = outDir();
    const t0 = performance.now();
    const run = await earshot([
      'run',
      'scenarios/text/capital_question.yaml',
      '--url',
      `ws://127.0.0.1:${port}`,
      '--connect-timeout',
      '1.5',
      '--out',
      out,
    ]).done;
    const elapsed = performance.now() - t0;
    expect(run.code).toBe(1);
    const [result] = readResults(out);
    expect(result.failures.map((f) => f.kind)).toEqual(['connect_failed']);
    expect(result.duration_ms).toBeGreaterThanOrEqual(1400);
    expect(result.duration_ms).toBeLessThan(2500);
    expect(elapsed).toBeLessThan(8000);
  }, 30_000);

  it('fails with handshake_timeout when a server accepts the socket but never sends bot-ready', async () => {
    const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => wss.once('listening', r));
    const port = (wss.address() as { port: number }).port;
    try {
      const out = outDir();
      const run = await earshot([
        'run',
        'scenarios/text/capital_question.yaml',
        '--url',
        `ws://127.0.0.1:${port}`,
        '--handshake-timeout',
        '1',
        '--out',
        out,
      ]).done;
      expect(run.code).toBe(1);
      const [result] = readResults(out);
      expect(result.failures.map((f) => f.kind)).toEqual(['handshake_timeout']);
      expect(result.duration_ms).toBeLessThan(3000);
    } finally {
      wss.close();
    }
  }, 30_000);
});

describe('earshot run with an LLM judge (OpenAI-compatible stand-in server)', () => {
  let llm: LlmServer;
  beforeAll(async () => {
    llm = await startLlmServer(
      judgeRules([
        { when: ({ criterion, reply }) => criterion.includes('greets') && /hello/i.test(reply), verdict: 'yes' },
        { when: ({ criterion, reply }) => criterion.includes('Berlin') && /berlin/i.test(reply), verdict: 'yes' },
        { when: ({ criterion }) => criterion.includes('Lyon'), verdict: 'no', reason: 'it says Paris' },
        { when: ({ criterion }) => criterion.includes('population'), verdict: 'continue', reason: 'no number yet' },
        {
          when: ({ criterion, reply }) => criterion.includes('temperature') && /75 degrees/.test(reply),
          verdict: 'yes',
        },
        { when: ({ criterion }) => criterion.includes('temperature'), verdict: 'continue', reason: 'still checking' },
      ]),
    );
  });
  afterAll(async () => {
    await llm?.close();
  });

  it('passes, fails with judge_no, and runs out with judge_continue as the judge answers', async () => {
    const out = outDir();
    const env = {
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: 'sk-test-secret-123456',
      EARSHOT_CACHE_DIR: join(out, 'cache'),
    };
    const files = ['judged.yaml', 'judge_no.yaml', 'judge_continue.yaml', 'weather_then_answer.yaml'].map((f) =>
      here(`judged/${f}`),
    );
    const run = await earshot(['run', ...files, '--url', bot.url, '--out', out, '--reporter', 'dot'], env).done;
    const r = byName(readResults(out));
    expect(r.judged_capital.status).toBe('passed');
    expect(r.judged_capital.turns[1].expectations[0].judge_reason).toBeTruthy();
    expect(r.judged_no.failures.map((f) => f.kind)).toEqual(['judge_no']);
    expect(r.judged_no.failures[0].reason).toContain('it says Paris');
    expect(r.judged_continue.failures.map((f) => f.kind)).toEqual(['judge_continue']);
    expect(r.judged_weather.status).toBe('passed');
    expect(run.code).toBe(1);
    // The judge spoke the real protocol, with the key as a bearer header that never reached the results.
    expect(llm.requests.every((q) => q.headers.authorization === 'Bearer sk-test-secret-123456')).toBe(true);
    expect(readFileSync(join(out, 'results.jsonl'), 'utf8')).not.toContain('sk-test-secret-123456');
    // Verdicts are cached: the same run again asks the judge nothing new for the passing scenario.
    const before = llm.requests.length;
    await earshot(['run', here('judged/judged.yaml'), '--url', bot.url, '--out', outDir(), '--reporter', 'dot'], env)
      .done;
    expect(llm.requests.length).toBe(before);
  }, 120_000);

  it('fails with no_judge when the scenario uses eval: but no judge can be built', async () => {
    const out = outDir();
    const run = await earshot(['run', here('judged/no_judge.yaml'), '--url', bot.url, '--out', out], {
      OPENAI_API_KEY: '',
      OPENAI_BASE_URL: '',
    }).done;
    expect(run.code).toBe(1);
    const [failure] = readResults(out)[0].failures;
    expect(failure.kind).toBe('no_judge');
    expect(failure.reason).toContain('OPENAI_API_KEY'); // says why no judge could be built
  }, 60_000);
});

function freePort(): Promise<number> {
  return new Promise((resolvePort) => {
    const srv = createServer().listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolvePort(port));
    });
  });
}
