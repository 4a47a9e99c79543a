import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { UsageError } from '../../core/errors.js';
import { compareRuns, DEFAULT_COMPARE_SETTINGS } from './compare.js';
import { around, resultsDir, runResult, v2vRuns } from './compare.testutil.js';
import { COMPARE_CLIENT_JS, renderCompareHtml } from './html.js';
import { parseCompareOutputs, writeCompareOutputs } from './outputs.js';
import { MARKDOWN_BUDGET_CHARS, renderCompareList, renderCompareMarkdown } from './render.js';
import { runCompare } from './run.js';
import { CompareInputError, loadRunSamples } from './samples.js';

const sink = (): { write(s: string): boolean; text: () => string } => {
  let text = '';
  return {
    write: (s: string) => {
      text += s;
      return true;
    },
    text: () => text,
  };
};

const regressedReport = () =>
  compareRuns(
    loadRunSamples(resultsDir(v2vRuns(around(1000, 6)))),
    loadRunSamples(resultsDir(v2vRuns(around(1400, 6)))),
  );

describe('loadRunSamples', () => {
  it('reads a run output folder or its results.jsonl, keeping the latest attempt of each run', () => {
    const dir = resultsDir([...v2vRuns([1000, 1100]), { ...v2vRuns([5000])[0], run: { repeat_index: 0, attempt: 2 } }]);
    const fromDir = loadRunSamples(dir);
    expect(fromDir.results).toBe(2);
    expect(fromDir.scenarios[0].turns[1].metrics.voice_to_voice_ms.sort()).toEqual([1100, 5000]);
    expect(loadRunSamples(join(dir, 'results.jsonl')).results).toBe(2);
  });

  it('warns about a cut-off last line and refuses folders and files it cannot compare, as usage errors', () => {
    expect(loadRunSamples(resultsDir(v2vRuns([1000]), '{"name":"cut')).warnings[0]).toContain(
      'the last line is incomplete',
    );
    const empty = mkdtempSync(join(tmpdir(), 'earshot-compare-empty-'));
    expect(() => loadRunSamples(empty)).toThrow(CompareInputError);
    expect(() => loadRunSamples(empty)).toThrow('no results.jsonl here');
    expect(() => loadRunSamples(join(empty, 'nope'))).toThrow('no such folder or file');
    const bench = join(empty, 'bench.json');
    writeFileSync(bench, JSON.stringify({ runs: 3, metrics: {}, turns: [] }));
    expect(() => loadRunSamples(bench)).toThrow(
      'is a bench --json report: it holds percentiles, not the samples compare tests',
    );
    const bad = resultsDir([], '{"name": 1}\n');
    const err = (() => {
      try {
        loadRunSamples(bad);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(/results\.jsonl:1: not a scenario result/);
  });
});

describe('the terminal list', () => {
  it('shows each scenario with its verdict, and a row per pass rate and metric with intervals and p', () => {
    const text = renderCompareList(regressedReport());
    expect(text).toMatch(
      /^earshot compare: \S+ \(6 results\) → \S+ \(6 results\)\nrule: a latency regression is a Mann–Whitney p < 0\.05 and a median shift beyond 10% and 50 ms/,
    );
    expect(text).toContain('REGRESSED  capital  (/repo/scenarios/capital.yaml; 6 → 6 runs)');
    expect(text).toMatch(
      /scenario {2}pass rate +6\/6 \(100%, 61–100%\) → 6\/6 \(100%, 61–100%\) +±0\.0 pp \[−39\.0, \+39\.0\] +unchanged/,
    );
    expect(text).toMatch(
      /turn 2 {4}voice_to_voice_ms +1000 ms \(n 6\) → 1400 ms \(n 6\) +\+400 ms \(\+40\.0%\) \[\+\d+, \+\d+\] +0\.0022 \(exact\) +REGRESSED/,
    );
    expect(text.trimEnd().split('\n').at(-1)).toBe('1 scenario compared: 1 regressed, 0 improved, 0 unchanged');
  });

  it('strips control sequences from names a scenario file supplied', () => {
    const report = compareRuns(
      loadRunSamples(resultsDir(v2vRuns([1000], { name: 'evil\u001b[2J\u001b]0;pwned\u0007' }))),
      loadRunSamples(resultsDir(v2vRuns([1000], { name: 'evil\u001b[2J\u001b]0;pwned\u0007' }))),
    );
    expect(renderCompareList(report)).not.toContain('\u001b');
  });
});

describe('the markdown (a pull-request comment)', () => {
  it('leads with the verdict and the rows that changed, then every row collapsed', () => {
    const md = renderCompareMarkdown(regressedReport());
    expect(md.startsWith('## ❌ earshot compare: 1 scenario regressed\n')).toBe(true);
    const [notable, all] = md.split('<details>');
    expect(notable).toMatch(
      /\| 🔴 \| capital \| turn 2 \| `voice_to_voice_ms` \| 1000 ms \(n 6\) \| 1400 ms \(n 6\) \| \+400 ms \(\+40\.0%\) \[\+\d+, \+\d+\] \| 0\.0022 \(exact\) \|$/m,
    );
    expect(notable).not.toContain('pass rate');
    expect(all).toContain('<summary>All 3 comparisons</summary>');
    expect(all).toContain('| ⚪ | capital | scenario | `pass rate` |');
  });

  it('escapes what scenario files supplied, so no markup, link or table cell can be forged', () => {
    const name = '<img src=x onerror=alert(1)> | [x](http://evil) **b**';
    const md = renderCompareMarkdown(
      compareRuns(
        loadRunSamples(resultsDir(v2vRuns(around(1000, 5), { name }))),
        loadRunSamples(resultsDir(v2vRuns(around(1500, 5), { name }))),
      ),
    );
    // Every markup character from the input is backslash-escaped: GitHub shows it, never interprets it.
    expect(md).not.toMatch(/(?<!\\)<img/);
    expect(md).not.toContain('](http');
    expect(md).toContain('\\<img src\\=x onerror\\=alert\\(1\\)\\> \\| \\[x\\]\\(http\\:\\/\\/evil\\) \\*\\*b\\*\\*');
  });

  it('fits GitHub’s comment limit however many scenarios there are', () => {
    const many = (shift: number) =>
      Array.from({ length: 400 }, (_, i) =>
        v2vRuns(around(1000 + shift, 4), { name: `scenario-${i}`, file: `/repo/s${i}.yaml` }),
      ).flat();
    const settings = { ...DEFAULT_COMPARE_SETTINGS, resamples: 50 };
    const md = renderCompareMarkdown(
      compareRuns(loadRunSamples(resultsDir(many(0))), loadRunSamples(resultsDir(many(400))), settings),
    );
    expect(md.length).toBeLessThanOrEqual(MARKDOWN_BUDGET_CHARS);
    expect(md).toMatch(/…and \d+ more rows \(see the HTML or JSON output\)\./);
  });
});

describe('the HTML page', () => {
  it('is self-contained: the script runs by hash under a policy that forbids everything else', () => {
    const html = renderCompareHtml(regressedReport());
    const hash = createHash('sha256').update(COMPARE_CLIENT_JS, 'utf8').digest('base64');
    const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)![1];
    expect(csp).toContain(`script-src 'sha256-${hash}'`);
    expect(csp).toContain("default-src 'none'");
    expect(html).not.toMatch(/<(link|img|iframe)\b|src=["']?http/);
    expect(COMPARE_CLIENT_JS).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|eval\(/);
  });

  it('carries the rows in a data island that untrusted text cannot break out of', () => {
    const name = '</script><script>alert(1)</script>';
    const html = renderCompareHtml(
      compareRuns(
        loadRunSamples(resultsDir(v2vRuns(around(1000, 5), { name }))),
        loadRunSamples(resultsDir(v2vRuns(around(1500, 5), { name }))),
      ),
    );
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    const island = /<script type="application\/json" id="earshot-compare">([^<]*)<\/script>/.exec(html)![1];
    const model = JSON.parse(island) as {
      rows: Array<{ scenario: string; verdict: string; bar?: { threshold: number } }>;
    };
    expect(model.rows[0].scenario).toBe(name);
    expect(model.rows.find((r) => r.verdict === 'regressed')!.bar!.threshold).toBe(100);
  });
});

describe('outputs', () => {
  it('parses the list, adds the terminal list when every choice writes a file, and refuses unknown names', () => {
    expect(parseCompareOutputs('markdown')).toEqual([{ name: 'markdown' }]);
    expect(parseCompareOutputs('html=a.html,json=b.json')).toEqual([
      { name: 'list' },
      { name: 'html', file: 'a.html' },
      { name: 'json', file: 'b.json' },
    ]);
    expect(() => parseCompareOutputs('list,junit')).toThrow(
      'unknown compare output "junit"; known: list, markdown, json, html, github',
    );
    expect(() => parseCompareOutputs('list=x')).toThrow('takes no file');
  });

  it('writes the GitHub job summary and an annotation per regressed row under GitHub Actions', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-compare-gh-'));
    const summary = join(dir, 'summary.md');
    const stdout = sink();
    const stderr = sink();
    writeCompareOutputs(regressedReport(), 'github', {
      stdout,
      stderr,
      env: { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary },
    });
    expect(readFileSync(summary, 'utf8')).toContain('## ❌ earshot compare: 1 scenario regressed');
    expect(stdout.text()).toMatch(
      /^::error file=\/repo\/scenarios\/capital\.yaml,title=earshot compare%3A capital regressed::turn 2 voice_to_voice_ms: 1000 ms \(n 6\) → 1400 ms \(n 6\), change \+400 ms/m,
    );
    const quiet = sink();
    writeCompareOutputs(regressedReport(), 'github', { stdout: sink(), stderr: quiet, env: {} });
    expect(quiet.text()).toContain('github output skipped: $GITHUB_STEP_SUMMARY is not set');
  });

  it('runCompare writes the chosen files and says nothing in common is a usage error', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-compare-out-'));
    const stdout = sink();
    const report = runCompare({
      base: resultsDir(v2vRuns(around(1000, 6))),
      next: resultsDir(v2vRuns(around(1010, 6))),
      reporter: `json=${join(dir, 'c.json')},html=${join(dir, 'c.html')},markdown=${join(dir, 'c.md')}`,
      stdout,
      stderr: sink(),
      env: {},
    });
    expect(report.ok).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, 'c.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(report)));
    expect(readFileSync(join(dir, 'c.html'), 'utf8')).toContain(
      '<script type="application/json" id="earshot-compare">',
    );
    expect(readFileSync(join(dir, 'c.md'), 'utf8')).toContain('## ✅ earshot compare: no regression');
    expect(stdout.text()).toContain('1 scenario compared: 0 regressed, 0 improved, 1 unchanged');
    expect(() =>
      runCompare({
        base: resultsDir(v2vRuns([1], { name: 'a', file: '/a.yaml' })),
        next: resultsDir([runResult({ name: 'b', file: '/b.yaml', turns: [] }, 0)]),
        stdout,
        stderr: sink(),
        env: {},
      }),
    ).toThrow(/have no scenario in common \(base: a; new: b\)/);
  });
});
