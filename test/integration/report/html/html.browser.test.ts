import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Redactor } from '../../../../src/core/redact.js';
import { summarize, type ScenarioResult } from '../../../../src/results/index.js';
import { makeResult, stereoWav } from '../../../../src/results/fixtures.testutil.js';
import { openInChromium, type PageWatch } from '../../../support/chromium.js';
import { writeHtmlReport } from '../../../../src/report/html/html.js';

/**
 * The HTML report as a person opens it: from file://, in headless Chromium,
 * with a real 4 s stereo recording to play.
 */
/** The few DOM shapes the assertions touch (the typecheck has no DOM lib). */
interface MediaLike {
  currentTime: number;
  play(): Promise<void>;
  pause(): void;
}
interface DetailsLike {
  open: boolean;
}

const HOSTILE = '<script>alert(1)</script><img src=x onerror=alert(2)>';

function buildRun(): { file: string; results: ScenarioResult[] } {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-html-browser-'));
  mkdirSync(join(dir, 'recordings'));
  writeFileSync(
    join(dir, 'recordings', 'greeting.wav'),
    stereoWav(
      4,
      16000,
      [
        [0.2, 1.0],
        [2.0, 2.6],
      ],
      [
        [1.2, 1.9],
        [2.9, 3.8],
      ],
    ),
  );
  const withAudio = makeResult({ file: 'scenarios/greeting.yaml', recording: 'recordings/greeting.wav' });
  withAudio.recording_started_at_ms = 100;
  const results = [
    withAudio,
    makeResult({ file: 'scenarios/hostile.yaml', status: 'failed', reply: HOSTILE }),
    makeResult({ file: 'scenarios/down.yaml', status: 'error' }),
    makeResult({ file: 'scenarios/later.yaml', status: 'skipped' }),
    makeResult({ file: 'scenarios/wobbly.yaml', bot: 'bot.py', repeat_index: 0 }),
    makeResult({ file: 'scenarios/wobbly.yaml', bot: 'bot.py', repeat_index: 1, status: 'failed' }),
  ];
  results[1].failures[0].reason = `bot said ${HOSTILE}`;
  const file = writeHtmlReport(results, summarize(results), {
    file: join(dir, 'report.html'),
    resultsDir: dir,
    redactor: new Redactor({}),
  });
  return { file, results };
}

let browser: Browser;
let page: Page;
let watch: PageWatch;
let results: ScenarioResult[];

beforeAll(async () => {
  const run = buildRun();
  results = run.results;
  ({ browser, page, watch } = await openInChromium(run.file, '#summary-table tbody tr'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

const visibleRows = (): Promise<string[]> =>
  page.$$eval('#summary-table tbody tr:not([hidden])', (rows) =>
    rows.map((r) => r.querySelector('a')?.textContent ?? ''),
  );

describe('HTML report in Chromium', () => {
  it('loads from file:// with no console errors and fetches nothing remote', () => {
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.requests.every((u) => u.startsWith('file://'))).toBe(true);
  });

  it('shows every scenario run in the summary table and as a section', async () => {
    // Sorted by file, bot and repeat, whatever order the runs finished in.
    expect(await visibleRows()).toEqual(['down', 'greeting', 'hostile', 'later', 'wobbly', 'wobbly']);
    expect(await page.locator('section.scenario').count()).toBe(results.length);
    expect(await page.locator('#outcomes-table tbody tr').count()).toBe(5);
    expect(await page.locator('#outcomes-table tbody tr[data-outcome="flaky"]').count()).toBe(1);
  });

  it('renders a hostile bot reply as text: no dialog, no element, no request', async () => {
    await page.locator('#r2 > details').evaluate((d) => ((d as unknown as DetailsLike).open = true));
    const said = await page.locator('#r2 blockquote.said').allTextContents();
    expect(said).toContain(HOSTILE);
    expect(await page.locator('#r2 .failure').first().textContent()).toContain(`bot said ${HOSTILE}`);
    expect(await page.locator('img').count()).toBe(0);
    expect(await page.locator('script').count()).toBe(2);
    expect(watch.dialogs).toEqual([]);
    expect(watch.requests.some((u) => u.endsWith('/x'))).toBe(false);
    expect(watch.pageErrors).toEqual([]);
  });

  it('filters the table and sections by status, by flakiness and by text', async () => {
    await page.click('button[data-filter="failed"]');
    expect(await visibleRows()).toEqual(['hostile', 'wobbly']);
    expect(await page.locator('section.scenario:not([hidden])').count()).toBe(2);
    expect(await page.getAttribute('button[data-filter="failed"]', 'aria-pressed')).toBe('true');
    await page.click('button[data-filter="error"]');
    expect(await visibleRows()).toEqual(['down']);
    await page.click('button[data-filter="flaky"]');
    expect(await visibleRows()).toEqual(['wobbly', 'wobbly']);
    await page.click('button[data-filter="all"]');
    await page.fill('#search', 'GREET');
    expect(await visibleRows()).toEqual(['greeting']);
    expect(await page.textContent('#shown')).toBe('1 of 6 shown');
    await page.fill('#search', '');
    expect(await visibleRows()).toHaveLength(6);
  });

  it('draws the timeline: turns, both audio channels, one lane per event kind', async () => {
    const t = page.locator('#r1 svg.timeline');
    expect(await t.locator('rect.turn').count()).toBe(2);
    expect(await t.locator('polygon.wave').count()).toBe(2);
    expect(await t.locator('text.lane').allTextContents()).toEqual([
      'turns',
      'caller audio',
      'bot audio',
      'bot_ready',
      'llm_started',
      'response',
      'bot_audio_started',
      'bot_audio_stopped',
      'function_call',
    ]);
    expect(await t.locator('rect.event').count()).toBe(8);
  });

  it('plays the recording and moves the playhead along the timeline with it', async () => {
    await page.locator('#r1 > details').evaluate((d) => ((d as unknown as DetailsLike).open = true));
    const head = page.locator('#r1 line.playhead');
    expect(Number(await head.getAttribute('data-time-ms'))).toBe(100);
    const x0 = Number(await head.getAttribute('x1'));
    await page.locator('#r1 audio').evaluate((a) => (a as unknown as MediaLike).play());
    // A function, not a string: the report's CSP rightly refuses string evaluation.
    await page.waitForFunction(
      () => {
        const doc = (globalThis as unknown as { document: { querySelector(s: string): MediaLike | null } }).document;
        return (doc.querySelector('#r1 audio')?.currentTime ?? 0) > 0.5;
      },
      null,
      { timeout: 10_000 },
    );
    await page.waitForTimeout(100);
    const played = await page.locator('#r1 audio').evaluate((a) => (a as unknown as MediaLike).currentTime);
    const at = Number(await head.getAttribute('data-time-ms'));
    expect(at).toBeGreaterThan(500);
    expect(Math.abs(at - (100 + played * 1000))).toBeLessThan(300);
    expect(Number(await head.getAttribute('x1'))).toBeGreaterThan(x0);
    await page.locator('#r1 audio').evaluate((a) => (a as unknown as MediaLike).pause());
  });

  it('seeks the audio to the time clicked on the timeline', async () => {
    const svg = page.locator('#r1 svg.timeline');
    const box = await svg.boundingBox();
    if (!box) throw new Error('timeline not laid out');
    // x = 120 + (t / end) * 870 in viewBox units; end is the 4.1 s recording end.
    const endMs = 4100;
    const targetMs = 3000;
    const vx = 120 + (targetMs / endMs) * 870;
    await svg.click({ position: { x: (vx / 1000) * box.width, y: box.height / 2 } });
    const t = await page.locator('#r1 audio').evaluate((a) => (a as unknown as MediaLike).currentTime);
    expect(Math.abs(t * 1000 + 100 - targetMs)).toBeLessThan(50);
    expect(
      Math.abs(Number(await page.locator('#r1 line.playhead').getAttribute('data-time-ms')) - targetMs),
    ).toBeLessThan(50);
  });

  it('opens a scenario linked from the summary table', async () => {
    await page.click('#summary-table a[href="#r5"]');
    expect(await page.locator('#r5 > details').evaluate((d) => (d as unknown as DetailsLike).open)).toBe(true);
    expect(watch.consoleErrors).toEqual([]);
    expect(watch.pageErrors).toEqual([]);
  });
});
