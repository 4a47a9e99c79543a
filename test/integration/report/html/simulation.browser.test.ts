import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { Redactor } from '../../../../src/core/redact.js';
import { summarize, type SimulationResult } from '../../../../src/results/index.js';
import { makeResult } from '../../../../src/results/fixtures.testutil.js';
import { openInChromium, type PageWatch } from '../../../support/chromium.js';
import { writeHtmlReport } from '../../../../src/report/html/html.js';

/**
 * A simulated call in the HTML report as a person opens it: the conversation
 * in order with who said what and when, how it ended, the goal's verdict, each
 * metric with its evidence, the scorecard and the signals; a caller line that
 * looks like markup stays text (the report sets textContent only, under its CSP).
 */
interface DetailsLike {
  open: boolean;
}

const HOSTILE = '<img src=x onerror="document.title=1">For two people.';

const simulation: SimulationResult = {
  ended_by: 'end_call',
  end_detail: 'the caller hung up (gave up): My time was not available.',
  persona_turns: 2,
  duration_s: 4.2,
  transcript: [
    { kind: 'bot', at_ms: 310, text: 'How many people will be joining you tonight?' },
    { kind: 'caller', at_ms: 1250, text: HOSTILE, turn_index: 0 },
    { kind: 'call', at_ms: 1900, name: 'collect_party_size', args: { size: '2' } },
    { kind: 'bot', at_ms: 2050, text: 'A table for 2. What time would you like to come in?' },
    { kind: 'end_call', at_ms: 3900, success: false, reason: 'My time was not available.' },
  ],
  end_call: { success: false, reason: 'My time was not available.' },
  success: { criterion: 'the bot booked a table for two at 7 PM', verdict: 'no', reason: 'no booking was made' },
  metrics: [
    {
      name: 'politeness',
      kind: 'judged',
      score: 0.5,
      passed: false,
      reason: '1 of 2 replies courteous',
      min_score: 1,
      verdicts: [
        { turn: 1, verdict: 'yes', reason: 'warm' },
        { turn: 2, verdict: 'no', reason: 'curt' },
      ],
      failure_kind: 'judge_no',
    },
    { name: 'turns', kind: 'measured', score: 1, passed: true, reason: '2 turns', value: 2, max_value: 4 },
  ],
  scorecard: {
    dimensions: [
      {
        dimension: 'correctness',
        weight: 0.25,
        score: 4,
        judge_score: 8,
        reason: 'said 6 PM',
        cap: { max: 4, reason: 'expected 7 PM, the closest number said is 14% off' },
      },
    ],
    total: 6.5,
    pass_threshold: 7.5,
    passed: false,
    expected_answer: '7 PM',
  },
  signals: [
    { signal: 'clean_exit', passed: false, reason: 'the caller hung up, not the bot' },
    {
      signal: 'nl_assertions',
      passed: false,
      reason: '1 of 1 claims false',
      assertions: [{ claim: 'the bot booked 7 PM', verdict: 'no', reason: 'it did not' }],
    },
  ],
  passed: false,
  simulator: 'openai/persona-model @ http://127.0.0.1:1/v1',
};

let browser: Browser;
let page: Page;
let watch: PageWatch;

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-html-simulation-'));
  const results = [
    makeResult({ file: 'scenarios/script.yaml' }),
    { ...makeResult({ file: 'sims/booking.yaml', status: 'failed' }), name: 'booking/taken', simulation },
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

describe('HTML report: a simulated call', () => {
  it('shows the conversation in order, who said what and when, and how it ended', async () => {
    const section = page.locator('section.scenario', { has: page.locator('.simulation') });
    expect(await section.count()).toBe(1);
    await section
      .locator('details')
      .first()
      .evaluate((d) => ((d as unknown as DetailsLike).open = true));
    const lines = await section
      .locator('ol.conversation > li')
      .evaluateAll((items) => items.map((li) => [li.className, li.textContent]));
    expect(lines).toEqual([
      ['bot', '310 msBot How many people will be joining you tonight?'],
      ['caller', `1.25 sCaller ${HOSTILE}`],
      ['call', '1.90 sFunction call collect_party_size {"size":"2"}'],
      ['bot', '2.05 sBot A table for 2. What time would you like to come in?'],
      ['hangup', '3.90 sCaller hung up (gave up) My time was not available.'],
    ]);
    expect(await section.locator('.ended-by').textContent()).toBe('end_call');
    expect(await section.locator('.simulation .meta').textContent()).toContain(
      'the caller hung up (gave up): My time was not available. · 2 caller turn(s) · 4.2 s',
    );
    expect(await section.locator('.goal').textContent()).toBe(
      'Goal no the bot booked a table for two at 7 PM no booking was made',
    );
    // The hostile line stayed text: no element was made from it, and it ran nothing.
    expect(await section.locator('ol.conversation img').count()).toBe(0);
    expect(await page.title()).toBe('earshot report');
  });

  it('shows each metric with its evidence, the scorecard with its cap, and the signals with their claims', async () => {
    const section = page.locator('section.scenario', { has: page.locator('.simulation') });
    const rows = await section
      .locator('table.sim-metrics tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].slice(0, 5).map((td) => td.textContent)));
    expect(rows).toEqual([
      ['failed', 'politeness', 'judged', '50%', '≥ 100%'],
      ['passed', 'turns', 'measured', '2', '≤ 4'],
    ]);
    expect(await section.locator('table.sim-metrics ul.verdicts li').allTextContents()).toEqual([
      'reply 1 yes warm',
      'reply 2 no curt',
    ]);
    const card = section.locator('table.scorecard');
    expect(await card.locator('tbody td').allTextContents()).toEqual([
      'correctness',
      '25%',
      '4',
      '8',
      'said 6 PMcapped at 4: expected 7 PM, the closest number said is 14% off',
    ]);
    expect(await card.locator('tfoot').textContent()).toBe('Total6.50 / 10pass at 7.5failed expected answer: 7 PM');
    expect(
      await section
        .locator('ul.signals > li')
        .evaluateAll((lis) =>
          lis.map((li) => `${li.firstElementChild?.textContent} ${li.querySelector('code')?.textContent}`),
        ),
    ).toEqual(['failed clean_exit', 'failed nl_assertions']);
    expect(await section.locator('ul.signals ul li').textContent()).toBe('no the bot booked 7 PM: it did not');
    expect(watch.pageErrors).toEqual([]);
    expect(watch.consoleErrors).toEqual([]);
  });
});
