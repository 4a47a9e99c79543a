import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Redactor } from '../../../../src/core/redact.js';
import { summarize } from '../../../../src/results/index.js';
import { makeResult } from '../../../../src/results/fixtures.testutil.js';
import { gaiaResult, ragResult } from '../../../../src/results/gaia-fixtures.testutil.js';
import { openInChromium, type PageWatch } from '../../../support/chromium.js';
import { writeHtmlReport } from '../../../../src/report/html/html.js';

/**
 * GAIA scenarios in the HTML report as a person opens it: the tag on the scenario's row, the turn × dimension grid
 * (n/a where calls were not visible, each turn's total against the threshold, its verdict and the auto-zero reason),
 * and the summary tables per category, dimension and severity.
 */

let browser: Browser;
let page: Page;
let watch: PageWatch;

const HOSTILE = '<img src=x onerror="document.title=1">$14.2 million.';

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-html-gaia-'));
  const rag = ragResult();
  rag.gaia!.turns[0].reply = HOSTILE;
  const results = [
    rag,
    gaiaResult({
      id: 'empty_file',
      category: 'adversarial',
      severity: 'high',
      turns: [{ scores: [10, 8, 10, 9, 7, 10, 10] }],
    }),
    makeResult({ file: 'plain.yaml' }),
  ];
  const file = writeHtmlReport(results, summarize(results), {
    file: join(dir, 'report.html'),
    resultsDir: dir,
    redactor: new Redactor({}),
  });
  ({ browser, page, watch } = await openInChromium(file, '#summary-table tbody tr'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('HTML report: GAIA scenarios', () => {
  it('tags each scenario row with its category and severity', async () => {
    const names = await page.locator('#summary-table tbody tr td:nth-child(2)').allTextContents();
    // In file order, as every report lists runs.
    expect(names).toEqual(['empty_file [adversarial · high]', 'simple_factual_rag [rag_quality · critical]', 'plain']);
  });

  it('draws the turn × dimension grid: n/a, totals vs the threshold, verdicts, auto-zero', async () => {
    const section = page.locator('section.scenario', { hasText: 'simple_factual_rag' });
    const grid = section.locator('table.gaia-grid');
    expect(await grid.locator('thead th').allTextContents()).toEqual([
      'Turn',
      'C',
      'T',
      'R',
      'Cm',
      'E',
      'P',
      'ER',
      'Total',
      'Verdict',
      'Why',
    ]);
    const rows = await grid
      .locator('tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent)));
    expect(rows).toEqual([
      ['1', '10', 'n/a', '9', '8', 'n/a', '10', '10', '9.29 ≥ 7', 'passed', ''],
      [
        '2',
        '0',
        'n/a',
        '8',
        '7',
        'n/a',
        '9',
        '9',
        '5.07 < 7',
        'failed',
        'auto-zero wrong_number (earshot): said 40%, expected 23% (74% off)',
      ],
    ]);
    const legend = await page.locator('section.scenario .gaia .legend').first().textContent();
    expect(legend).toContain('Cm completeness · E efficiency');
    // The bot's reply that looks like markup stayed text.
    expect(await page.locator('ol.gaia-turns img').count()).toBe(0);
    expect(await section.locator('ol.gaia-turns').textContent()).toContain(`Bot: ${HOSTILE}`);
  });

  it('shows the run’s tables per category, per dimension and per severity', async () => {
    const table = async (id: string): Promise<string[][]> =>
      page
        .locator(`#${id} tbody tr`)
        .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => td.textContent ?? '')));
    expect(await table('categories-table')).toEqual([
      ['adversarial', '1', '1', '100%', '9.15'],
      ['rag_quality', '1', '0', '0%', '7.18'],
    ]);
    expect((await table('dimensions-table'))[0]).toEqual(['C correctness', '6.67', '3']);
    expect(await table('severities-table')).toEqual([
      ['critical', '1', '0', '0%'],
      ['high', '1', '1', '100%'],
    ]);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(await page.title()).toBe('earshot report');
  });
});
