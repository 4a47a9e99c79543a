import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { around, resultsDir, v2vRuns } from '../../src/tools/compare/compare.testutil.js';
import { openInChromium, type PageWatch } from '../support/chromium.js';
import { earshot, type CliRun } from '../suite/cli.testutil.js';

/**
 * `earshot compare --reporter html=…` opened in Chromium: the page draws itself
 * under its Content-Security-Policy (a blocked script would leave it empty),
 * shows the regressions first, and a scenario name full of markup — results
 * travel between people — is shown as text and runs nothing.
 */
const NAME = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>';

let run: CliRun;
let browser: Browser;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  const base = resultsDir([
    ...v2vRuns(around(1000, 6), { name: NAME }),
    ...v2vRuns(around(800, 6), { name: 'steady', file: '/repo/steady.yaml' }),
  ]);
  const next = resultsDir([
    ...v2vRuns(around(1400, 6), { name: NAME }),
    ...v2vRuns(around(805, 6), { name: 'steady', file: '/repo/steady.yaml' }),
  ]);
  const html = join(mkdtempSync(join(tmpdir(), 'earshot-compare-html-')), 'compare.html');
  run = await earshot(['compare', base, next, '--reporter', `html=${html}`]).done;
  ({ browser, page, watch } = await openInChromium(html, 'table tr'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

describe('the compare HTML page in a browser', () => {
  it('draws every row, and opens on the regressions', async () => {
    expect(run.code).toBe(1);
    // Two scenarios: a pass-rate row and two metric rows each, plus the header.
    expect(await page.locator('table tr').count()).toBe(7);
    expect(await page.locator('table tr:not([hidden]) .badge').allTextContents()).toEqual(['REGRESSED']);
    expect(await page.locator('.filters button[aria-pressed="true"]').textContent()).toBe('regressed (1)');
    await page.locator('.filters button', { hasText: 'all' }).click();
    expect(await page.locator('table tr:not([hidden]) .badge').count()).toBe(6);
    // The regressed metric carries its interval bar.
    expect(await page.locator('svg.bar').count()).toBe(4);
  });

  it('shows the markup of a scenario name as text and runs none of it', async () => {
    expect(await page.locator('body').textContent()).toContain(NAME);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    expect(await page.locator('#app img, #app script').count()).toBe(0);
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(watch.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  });
});
