import { mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { ROOT } from '../support/paths.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * Secrets never leave earshot in its output. A real bot that repeats back
 * what it is told (test/security/fixtures/leaky-brain.yaml) is handed two
 * environment secrets and the api_key written in the scenario; it also sends
 * a bearer header and an api_key field of its own. The judge (the one allowed
 * stand-in: an OpenAI-compatible server) quotes the leaky reply in its
 * reason. Every file in the output folder, the judge cache, stdout and stderr
 * (the -v trace included) are searched for each secret.
 */
const here = (p: string): string => join(ROOT, 'test', 'security', 'fixtures', p);

const SECRETS = {
  env_api_key: 'envkey0a1b2c3d4e5f', // EARSHOT_TEST_API_KEY
  env_token: 'tokval9z8y7x6w5v', // PAYMENTS_TOKEN
  scenario_api_key: 'scnkey0123456789', // judge.eval.api_key in leaky.yaml
  bearer: 'bearerleak7q8w9e0r', // sent by the bot as "Authorization: Bearer ..."; in no env var
};

let bot: RefbotProcess;
let llm: LlmServer;
let out: string;
let run: CliRun;

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? filesUnder(p) : [p];
  });
}

beforeAll(async () => {
  bot = await startRefbotProcess(['--brain', here('leaky-brain.yaml')]);
  // A chatty judge: its reason quotes the leaky reply it was shown, and a bearer header.
  llm = await startLlmServer((request) => {
    const prompt = JSON.stringify(request.body.messages);
    const said = /You said [^."\\]*/.exec(prompt)?.[0] ?? '';
    return JSON.stringify({ verdict: 'yes', reason: `the bot answered "${said}" with Bearer ${SECRETS.bearer}` });
  });
  out = mkdtempSync(join(tmpdir(), 'earshot-secrets-'));
  run = await earshot(
    [
      'run',
      here('leaky.yaml'),
      here('leaky_fail.yaml'),
      '--url',
      bot.url,
      '--out',
      out,
      '--judge-cache',
      join(out, 'judge-cache'),
      '--reporter',
      `list,json=${join(out, 'report.json')},jsonl,junit,html,github=${join(out, 'github-summary.md')}`,
      '-v',
    ],
    {
      EARSHOT_TEST_API_KEY: SECRETS.env_api_key,
      PAYMENTS_TOKEN: SECRETS.env_token,
      OPENAI_BASE_URL: llm.url,
      OPENAI_API_KEY: '',
      GITHUB_ACTIONS: 'true',
    },
  ).done;
}, 60_000);

afterAll(async () => {
  await bot?.stop();
  await llm?.close();
});

describe('secrets in a run against a bot that leaks them', () => {
  it('the run really carried them: the bot repeated each one and the judge was called with the scenario key', () => {
    expect(run.stderr).not.toMatch(/internal error/);
    const results = readResults(out);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      ['leaky_bot', 'passed'],
      ['leaky_bot_fails', 'failed'],
    ]);
    const replies = results[0].turns.slice(1).map((t) => t.expectations.at(-1)?.text);
    expect(replies).toEqual(
      Array(3).fill('You said [redacted]. Authorization: Bearer [redacted] and api_key=[redacted].'),
    );
    expect(results[0].turns[1].input.user).toBe('Repeat after me [redacted]');
    expect(results[0].turns[1].expectations[1].judge_reason).toBe(
      'the bot answered "You said [redacted]" with Bearer [redacted]',
    );
    expect(llm.requests.length).toBeGreaterThan(0);
    expect(llm.requests.every((q) => q.headers.authorization === `Bearer ${SECRETS.scenario_api_key}`)).toBe(true);
  });

  it('wrote every output a user can ask for', () => {
    const names = filesUnder(out).map((f) => f.slice(out.length + 1));
    for (const expected of [
      'results.jsonl',
      'summary.json',
      'junit.xml',
      'report.html',
      'report.json',
      'github-summary.md',
    ])
      expect(names).toContain(expected);
    expect(names.filter((n) => n.endsWith('.trace.log'))).toHaveLength(2);
    expect(names.some((n) => n.startsWith('judge-cache/'))).toBe(true);
  });

  it.each(Object.entries(SECRETS))('%s appears in no output file, nor on stdout or stderr', (_what, secret) => {
    const leaks = filesUnder(out).filter((f) => readFileSync(f).includes(secret));
    expect(leaks.map((f) => f.slice(out.length + 1))).toEqual([]);
    expect(run.stdout).not.toContain(secret);
    expect(run.stderr).not.toContain(secret);
  });
});
