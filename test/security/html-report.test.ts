import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/results/index.js';
import { launchChromium, watchPage, type PageWatch } from '../support/chromium.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { ROOT } from '../support/paths.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * Everything the bot says is untrusted, and so is a scenario that came from
 * someone else: a real run against a bot that answers with a script tag, an
 * onerror handler and stray closing tags, from a scenario whose name and user
 * text carry markup too. The HTML report opened in Chromium runs none of it
 * and shows all of it as text; the JUnit XML stays well-formed.
 */
const here = (p: string): string => join(ROOT, 'test', 'security', 'fixtures', p);
const BOT_MARKUP = '<script>window.__pwned = 1; alert("xss")</script><img src=x onerror="window.__pwned = 2">';

interface DetailsLike {
  open: boolean;
}

let bot: RefbotProcess;
let out: string;
let run: CliRun;
let results: ScenarioResult[];
let browser: Browser;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  bot = await startRefbotProcess(['--brain', here('leaky-brain.yaml')]);
  out = mkdtempSync(join(tmpdir(), 'earshot-markup-'));
  run = await earshot(['run', here('markup.yaml'), '--url', bot.url, '--out', out, '--reporter', 'dot,html,junit'])
    .done;
  results = readResults(out);
  browser = await launchChromium();
  page = await browser.newPage();
  watch = watchPage(page);
  await page.goto(pathToFileURL(join(out, 'report.html')).href);
  await page.waitForSelector('section.scenario');
  await page
    .locator('section.scenario details')
    .first()
    .evaluate((d) => ((d as unknown as DetailsLike).open = true));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await bot?.stop();
});

describe('markup from the bot and the scenario, end to end', () => {
  it('the run carried it: the reply and the failure reason hold the raw markup', () => {
    expect(run.code).toBe(1);
    expect(results).toHaveLength(1);
    expect(results[0].name).toBe('markup <b>bold</b> & "quoted"');
    expect(results[0].turns[0].expectations[0].text).toContain(BOT_MARKUP);
    expect(results[0].failures.map((f) => f.kind)).toEqual(['text_mismatch']);
    expect(results[0].failures[0].reason).toContain('<script>window.__pwned = 4</script>');
  });

  it('the HTML report runs none of it: no dialog, no handler fired, no script error', async () => {
    expect(watch.dialogs).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
    expect(await page.evaluate(() => (globalThis as { __pwned?: number }).__pwned)).toBeUndefined();
    // The only images are the report's own; none came from the bot's <img>.
    expect(watch.requests.filter((u) => !u.startsWith('file://'))).toEqual([]);
  });

  it('the HTML report shows all of it as text: the scenario name, the user text and the bot reply', async () => {
    const text = (await page.locator('body').textContent()) ?? '';
    expect(text).toContain('markup <b>bold</b> & "quoted"');
    expect(text).toContain('Show me some markup <img src=x onerror="window.__pwned = 3">');
    expect(text).toContain(BOT_MARKUP);
    expect(text).toContain('<script>window.__pwned = 4</script>');
    // None of it became elements.
    expect(await page.locator('section.scenario script, img[onerror]').count()).toBe(0);
  });

  it('the JUnit XML is well-formed and carries the markup escaped', () => {
    const xml = join(out, 'junit.xml');
    execFileSync('xmllint', ['--noout', xml]);
    const text = readFileSync(xml, 'utf8');
    expect(text).not.toContain('<script>');
    expect(text).toContain('markup &lt;b&gt;bold&lt;/b&gt; &amp; &quot;quoted&quot;');
  });
});
