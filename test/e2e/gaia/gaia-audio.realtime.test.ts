import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GaiaTurnScore, ScenarioResult } from '../../../src/results/index.js';
import { openInChromium } from '../../support/chromium.js';
import { gaiaLlm, holdsAnswer, saysItDoesNotKnow } from '../../support/gaia-llm.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { earshot, readResults } from '../../suite/cli.testutil.js';

/**
 * GAIA's five shapes spoken end to end, in one `earshot run` (one CLI start, scenarios one after another): factual
 * lookup (simple_factual_rag), cross-turn recall (cross_turn_file_recall), honest limitation (honest_limitation,
 * `expected_answer: null`), smart discovery (smart_discovery, nothing indexed: the bot finds the file in its
 * `--library`) and a numeric threshold (budget_threshold_check). GAIA's defaults in earshot are an audio caller
 * (Flite) and an audio judge (PocketSphinx). Objective-only turns are written by the caller model; Flite says them
 * to the reference bot, whose VAD and PocketSphinx hear them; the bot answers from its documents and speaks with
 * Flite; earshot transcribes that with PocketSphinx and the stand-in judge scores the transcription, while
 * earshot's own checks (numbers, "I don't know") read it too. Real time, real audio; the LLMs are the only stand-in.
 * The corpus and scenarios are worded so that Flite and PocketSphinx agree (no "PTO", which PocketSphinx hears as
 * "dough"); the numbers the transcription writes in words ("fifty thousand dollars") are what the checks read.
 */
const DIR = 'test/e2e/gaia/eval/scenarios';
const SCENARIOS = [
  'rag_quality/simple_factual_rag',
  'context_retention/cross_turn_file_recall',
  'personality/honest_limitation',
  'tool_selection/smart_discovery',
  'rag_quality/budget_threshold_check',
].map((s) => `${DIR}/${s}.yaml`);
const DIMENSIONS = [
  'correctness',
  'tool_selection',
  'context_retention',
  'completeness',
  'efficiency',
  'personality',
  'error_recovery',
];
const tmp = mkdtempSync(join(tmpdir(), 'earshot-gaia-audio-'));
let llm: LlmServer;
let bot: RefbotProcess;

beforeAll(async () => {
  llm = await startLlmServer(gaiaLlm());
  bot = await startRefbotProcess(['--library', 'test/e2e/gaia/eval/corpus']);
}, 60_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), llm?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

/** What a turn was, for a failure message: what the caller said, what earshot heard back, the calls. */
const shown = (turns: readonly GaiaTurnScore[]): string =>
  JSON.stringify(turns.map((t) => ({ said: t.user_message, heard: t.reply, calls: t.calls.map((c) => c.name) })));
const callNames = (t: GaiaTurnScore): Array<string | undefined> => t.calls.map((c) => c.name);
const correctness = (t: GaiaTurnScore): number | null | undefined =>
  t.dimensions.find((d) => d.dimension === 'correctness')?.score;

describe("GAIA's five shapes spoken end to end against the reference bot", () => {
  it('each passes by voice: seven scores, a total and a verdict per turn, in results and the report', async () => {
    const out = join(tmp, 'out');
    const cli = await earshot([
      'run',
      ...SCENARIOS,
      '--url',
      bot.url,
      '--simulator',
      `openai:caller@${llm.url}`,
      '--judge',
      `openai:judge@${llm.url}`,
      '--out',
      out,
      '--reporter',
      'list,html',
    ]).done;
    const results = new Map(readResults(out).map((r) => [r.name, r]));
    expect([...results.keys()].sort(), cli.stdout + cli.stderr).toEqual([
      'budget_threshold_check',
      'cross_turn_file_recall',
      'honest_limitation',
      'simple_factual_rag',
      'smart_discovery',
    ]);
    const turns = (id: string): GaiaTurnScore[] => {
      const r = results.get(id) as ScenarioResult;
      expect(r.gaia, `${id}: ${JSON.stringify(r.failures)}`).toBeDefined();
      return r.gaia!.turns;
    };
    for (const r of results.values()) {
      const why = `${r.name}: ${JSON.stringify(r.failures)} ${shown(turns(r.name))}`;
      expect(r.status, why).toBe('passed');
      expect(r.gaia, why).toMatchObject({ passed: true, calls_visible: true, pass_threshold: 7 });
      for (const t of turns(r.name)) {
        expect(t.user_message_source, why).toBe('generated');
        expect(t.dimensions.map((d) => d.dimension)).toEqual(DIMENSIONS);
        expect(t.dimensions.every((d) => d.applicable && typeof d.score === 'number')).toBe(true);
        expect(t.total, why).toBeGreaterThanOrEqual(7);
        expect(t).toMatchObject({ passed: true, success: { verdict: 'yes' } });
        expect(t.auto_zero, why).toBeUndefined();
      }
    }
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);

    // Factual lookup: PocketSphinx writes the figure in words ("fourteen point two million").
    const [fact] = turns('simple_factual_rag');
    expect(fact.user_message).toBe('What is the third quarter revenue?');
    expect(holdsAnswer(fact.reply, '$14.2 million'), fact.reply).toBe(true);
    expect(callNames(fact)).toEqual(['query_documents']);
    expect(correctness(fact)).toBe(10);
    expect(results.get('simple_factual_rag')).toMatchObject({ category: 'rag_quality', severity: 'critical' });

    // Cross-turn recall: the list, both prices, then "which one" answered from the same document.
    const recall = turns('cross_turn_file_recall');
    expect(recall.map((t) => t.user_message)).toEqual([
      'Can you list what documents are available or indexed?',
      'How much do the two products cost?',
      'Which one is better value for money?',
    ]);
    expect(recall[0].reply, shown(recall)).toMatch(/\bcomparison\b/);
    expect(holdsAnswer(recall[1].reply, '$49 per month and $79 per month'), recall[1].reply).toBe(true);
    expect(correctness(recall[1])).toBe(10);
    expect(recall[2].reply, shown(recall)).toMatch(/\bbetter value\b/);
    expect(callNames(recall[2])).toEqual(['query_documents']);

    // Honest limitation: "I don't know" heard as such, then the summary with every figure.
    const honest = turns('honest_limitation');
    expect(saysItDoesNotKnow(honest[0].reply), honest[0].reply).toBe(true);
    expect(honest[0].expected_answer).toBeNull();
    expect(correctness(honest[0])).toBe(10);
    expect(correctness(honest[1]), honest[1].reply).toBe(10);

    // Smart discovery: nothing indexed; the bot searched its library, indexed the handbook, answered from it.
    const discovery = turns('smart_discovery');
    expect(discovery.map((t) => t.user_message)).toEqual([
      'What is the paid time off policy?',
      'And what about working remotely?',
    ]);
    expect(callNames(discovery[0]), shown(discovery)).toEqual(['search_files', 'index_document', 'query_documents']);
    expect(discovery[0].calls[1].args).toEqual({ path: 'test/e2e/gaia/eval/corpus/documents/employee_handbook.md' });
    expect(holdsAnswer(discovery[0].reply, '15 days'), discovery[0].reply).toBe(true);
    expect(callNames(discovery[1]), shown(discovery)).toEqual(['query_documents']);
    expect(holdsAnswer(discovery[1].reply, '3 days per week with manager approval'), discovery[1].reply).toBe(true);

    // Numeric threshold: the amount heard in words, compared with the threshold, the conclusion said first.
    const budget = turns('budget_threshold_check');
    expect(holdsAnswer(budget[0].reply, '$50,000'), budget[0].reply).toBe(true);
    expect(budget[1].user_message).toBe('Does a $75,000 expense need the approval of the CFO?');
    expect(budget[1].reply, shown(budget)).toMatch(/^yes\b/);
    // "above" may come back as "about"; the amounts are what the conclusion stands on.
    expect(holdsAnswer(budget[1].reply, '$75,000 and $50,000'), budget[1].reply).toBe(true);
    expect(results.get('budget_threshold_check')).toMatchObject({ category: 'rag_quality', severity: 'high' });

    const { browser, page } = await openInChromium(join(out, 'report.html'), '#summary-table tbody tr');
    try {
      const grids = await page
        .locator('section.scenario')
        .evaluateAll((sections) =>
          sections.map((s) => [
            s.querySelector('summary .name')?.textContent,
            [...s.querySelectorAll('table.gaia-grid tbody tr')].map((tr) =>
              [...tr.querySelectorAll('td')].slice(0, 10).map((td) => td.textContent),
            ),
          ]),
        );
      const byName = new Map(grids as Array<[string, string[][]]>);
      expect([...byName.keys()].sort()).toEqual([...results.keys()].sort());
      for (const [name, rows] of byName) {
        const gaia = results.get(name)!.gaia!;
        // Turn, the seven scores, the total against the threshold, the verdict: as results.jsonl has them.
        expect(rows).toEqual(
          gaia.turns.map((t) => [
            String(t.turn),
            ...t.dimensions.map((d) => String(d.score)),
            `${t.total.toFixed(2)} ≥ 7`,
            'passed',
          ]),
        );
      }
      expect(byName.get('simple_factual_rag')).toEqual([
        ['1', '10', '8', '8', '8', '8', '8', '8', '8.50 ≥ 7', 'passed'],
      ]);
    } finally {
      await browser.close();
    }
  }, 420_000);
});
