import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { summarize } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { createGithubReporter, markdownText, workflowEscape } from './github.js';
import { VirtualTerminal } from './terminal.testutil.js';

const results = [
  makeResult({ file: 'scenarios/a.yaml' }),
  makeResult({
    file: 'scenarios/b.yaml',
    bot: 'bot.py',
    status: 'failed',
    reply: '| <b>bold</b> **x** [l](http://e.x) sk-gh-secret-77',
  }),
  makeResult({ file: 'scenarios/c.yaml', status: 'error' }),
];
results[1].failures[0].reason = 'got | <b>bold</b> **x** [l](http://e.x) sk-gh-secret-77\n::warning::injected';

function run(env: NodeJS.ProcessEnv): { stdout: VirtualTerminal; stderr: VirtualTerminal } {
  const stdout = new VirtualTerminal(false);
  const stderr = new VirtualTerminal(false);
  const reporter = createGithubReporter({
    stdout,
    stderr,
    env,
    clock: new ManualClock(),
    redactor: new Redactor({ GH_TOKEN: 'sk-gh-secret-77' }),
  });
  for (const r of results) reporter.onScenarioEnd?.(r);
  reporter.onEnd?.(summarize(results, { wall_ms: 12_000 }));
  return { stdout, stderr };
}

describe('github reporter', () => {
  it('appends a markdown summary to $GITHUB_STEP_SUMMARY, not-passing scenarios first', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-gh-')), 'summary.md');
    writeFileSync(file, '# earlier step\n');
    run({ GITHUB_STEP_SUMMARY: file });
    const md = readFileSync(file, 'utf8');
    expect(md.startsWith('# earlier step\n## ❌ earshot: 1 passed · 2 failed\n')).toBe(true);
    const rows = md.split('\n').filter((l) => /^\| (✅|❌|⚠️)/.test(l));
    expect(rows.map((r) => r.split(' | ')[1])).toEqual(['b', 'c', 'a']);
    expect(md).toContain('<details><summary>Failures (2)</summary>');
    expect(md).toContain('text\\_mismatch turn 2\\.1 response\\: got \\| \\<b\\>bold\\<\\/b\\>');
  });

  it('escapes bot text so it cannot form markup, links or table cells, and redacts secrets', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-gh-')), 'summary.md');
    run({ GITHUB_STEP_SUMMARY: file });
    const md = readFileSync(file, 'utf8');
    expect(md).not.toContain('<b>');
    expect(md).not.toContain('](http');
    expect(md).not.toContain('sk-gh-secret-77');
    expect(markdownText('a|b*c_<d>&e\n[f](g)')).toBe('a\\|b\\*c\\_\\<d\\>\\&e \\[f\\]\\(g\\)');
  });

  it('skips with a note when $GITHUB_STEP_SUMMARY is not set', () => {
    const { stderr, stdout } = run({});
    expect(stderr.raw).toBe(
      'earshot: github reporter skipped: $GITHUB_STEP_SUMMARY is not set (not running in GitHub Actions?)\n',
    );
    expect(stdout.raw).toBe('');
  });

  it('annotates failures under GitHub Actions, one workflow command per line', () => {
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-gh-')), 'summary.md');
    const { stdout } = run({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: file });
    const lines = stdout.raw.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(
      /^::error file=scenarios\/b\.yaml,title=earshot%3A b \[bot\.py\]::text_mismatch turn 2\.1 response: got /,
    );
    expect(lines[0]).toContain('%0A::warning::injected');
    expect(lines[0]).not.toContain('sk-gh-secret-77');
    expect(workflowEscape('a%b\r\nc:d,e', true)).toBe('a%25b%0D%0Ac%3Ad%2Ce');
    expect(existsSync(file)).toBe(true);
  });
});
