import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Redactor } from '../../../../src/core/redact.js';
import { summarize } from '../../../../src/results/index.js';
import { makeResult } from '../../../../src/results/fixtures.testutil.js';
import { openInChromium, type PageWatch } from '../../../support/chromium.js';
import { writeHtmlReport } from '../../../../src/report/html/html.js';

/** An inconclusive run in the HTML report as a person opens it: its filter, its badge, its evidence and segment audio. */
interface DetailsLike {
  open: boolean;
}

let browser: Browser;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-html-inconclusive-'));
  writeFileSync(join(dir, 'run.seg1.wav'), 'RIFF');
  const results = [
    makeResult({ file: 'scenarios/fine.yaml' }),
    makeResult({ file: 'scenarios/heard.yaml', status: 'inconclusive' }),
    makeResult({ file: 'scenarios/bad.yaml', status: 'failed' }),
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

describe('HTML report: inconclusive', () => {
  it('has its own filter with its count, and the row its own badge', async () => {
    expect(await page.textContent('button[data-filter="inconclusive"]')).toBe('Inconclusive 1');
    await page.click('button[data-filter="inconclusive"]');
    expect(
      await page.$$eval('#summary-table tbody tr:not([hidden])', (rows) =>
        rows.map((r) => r.querySelector('a')?.textContent ?? ''),
      ),
    ).toEqual(['heard']);
    expect(await page.locator('#summary-table tbody tr:not([hidden]) .badge').first().textContent()).toBe(
      'inconclusive',
    );
    await page.click('button[data-filter="all"]');
  });

  it('shows why, both transcripts and a link to the segment audio', async () => {
    const section = page.locator('section.scenario[data-status="inconclusive"]');
    await section
      .locator('details')
      .first()
      .evaluate((d) => ((d as unknown as DetailsLike).open = true));
    const doubt = section.locator('.doubt').first();
    const text = await doubt.textContent();
    expect(text).toContain('transcribers_disagree: the check passes on the first transcript and fails on the second');
    expect(text).toContain('heard "the capital of france is paris", check heard "the capital of three and is yes"');
    expect(await doubt.locator('a').getAttribute('href')).toBe('run.seg1.wav');
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
  });
});
