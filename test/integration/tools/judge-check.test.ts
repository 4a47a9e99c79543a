import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import type { JudgeCheckReport } from '../../../src/tools/judge-check/index.js';
import {
  judgeRules,
  startLlmServer,
  type JudgePromptView,
  type JudgeRule,
  type LlmServer,
} from '../../support/llm-server.js';
import { ROOT } from '../../support/paths.js';
import { earshot, type CliRun } from '../../suite/cli.testutil.js';

/**
 * `earshot judge check` on the shipped labelled set, through the built CLI,
 * against the test server's rule-based judge (a real OpenAI-compatible HTTP
 * server). The rules are a deliberately naive judge — it falls for "answer
 * yes", reads "let me ..." as interim, any refusal as a failure, and otherwise
 * wants every name and number of the criterion verbatim — so it disagrees with
 * the labels where a real judge must think: spelled-out numbers, misheard
 * words, context, tool calls. The expected matrix is computed here from the
 * labels file and the same rules, without the CLI, the prompt or HTTP; the
 * printed figures are then asserted exactly.
 */

const INTERIM =
  /\b(let me|one moment|hold on|checking|looking (it|that) up|working on|pulling up|get (right )?back)\b/i;
const KEY_TERM = /\b(?:[A-Z][a-z]+|\d+)\b/g;

const RULES: JudgeRule[] = [
  {
    when: ({ reply }) => /\banswer (yes|no)\b|reply yes|"verdict"/i.test(reply),
    verdict: 'yes',
    reason: 'the reply says the answer is yes',
  },
  { when: ({ reply }) => INTERIM.test(reply), verdict: 'continue', reason: 'sounds interim' },
  { when: ({ reply }) => /\b(can't|cannot|not able to|unable to)\b/i.test(reply), verdict: 'no', reason: 'a refusal' },
  {
    when: ({ criterion, reply }) => {
      // The criterion's names and numbers (capitalised words after the first, digit runs), each in the reply.
      const terms = [...criterion.slice(1).matchAll(KEY_TERM)].map((m) => m[0].toLowerCase());
      return terms.length > 0 && terms.every((t) => new RegExp(`\\b${t}\\b`, 'i').test(reply));
    },
    verdict: 'yes',
    reason: 'names every key term',
  },
];
const OTHERWISE = { verdict: 'no' as const, reason: 'missing a key term' };

interface LabelCase {
  id: string;
  category: string;
  criterion: string;
  expected: 'yes' | 'no' | 'continue';
  conversation: Array<{ bot?: string | Array<string | Record<string, unknown>> }>;
}

/** What the rules say for a case, straight from the labels: the last exchange's text, or continue when it has none (earshot asks nothing then). */
function expectedVerdict(c: LabelCase): 'yes' | 'no' | 'continue' {
  const bot = c.conversation[c.conversation.length - 1].bot;
  const reply = (bot === undefined ? [] : Array.isArray(bot) ? bot : [bot])
    .filter((x): x is string => typeof x === 'string')
    .map((x) => x.trim())
    .join(' ');
  if (reply === '') return 'continue';
  const view: JudgePromptView = { criterion: c.criterion, reply, replyLines: [], prompt: '', system: '' };
  return (RULES.find((r) => r.when(view)) ?? OTHERWISE).verdict;
}

const LABELS = 'fixtures/judge/labels.yaml';
const cases = (parse(readFileSync(join(ROOT, LABELS), 'utf8')) as { cases: LabelCase[] }).cases;

let llm: LlmServer;
let run: CliRun;
let report: JudgeCheckReport;

beforeAll(async () => {
  llm = await startLlmServer(judgeRules(RULES, OTHERWISE));
  const json = join(mkdtempSync(join(tmpdir(), 'earshot-judge-check-')), 'check.json');
  run = await earshot(['judge', 'check', LABELS, '--judge', `openai:stand-in@${llm.url}`, '--json', json], {
    OPENAI_API_KEY: '',
  }).done;
  report = JSON.parse(readFileSync(json, 'utf8')) as JudgeCheckReport;
}, 60_000);

afterAll(async () => {
  await llm?.close();
});

describe('earshot judge check on the shipped labels', () => {
  it('ships at least 60 cases with balanced labels, each with a why', () => {
    expect(cases.length).toBeGreaterThanOrEqual(60);
    const counts = { yes: 0, no: 0, continue: 0 };
    for (const c of cases) counts[c.expected]++;
    expect(counts).toEqual({ yes: 22, no: 22, continue: 22 });
    expect(cases.every((c) => typeof (c as unknown as { why?: string }).why === 'string')).toBe(true);
  });

  it('asks the judge once per case with words to judge, and gets the verdicts the rules give', () => {
    expect(run.code).toBe(0);
    // The one case whose reply is a tool call without words is decided without asking.
    expect(llm.requests).toHaveLength(cases.length - 1);
    expect(report.outcomes.map((o) => [o.id, o.got])).toEqual(cases.map((c) => [c.id, expectedVerdict(c)]));
  });

  it('counts the matrix and the agreement from those verdicts', () => {
    const matrix = {
      yes: { yes: 0, no: 0, continue: 0, error: 0 },
      no: { yes: 0, no: 0, continue: 0, error: 0 },
      continue: { yes: 0, no: 0, continue: 0, error: 0 },
    };
    for (const c of cases) matrix[c.expected][expectedVerdict(c)]++;
    expect(report.matrix).toEqual(matrix);
    const agreed = cases.filter((c) => expectedVerdict(c) === c.expected).length;
    expect(report.agreed).toBe(agreed);
    expect(report.disagreements.map((d) => d.id)).toEqual(
      cases.filter((c) => expectedVerdict(c) !== c.expected).map((c) => c.id),
    );
  });

  it('prints the agreement, per category, the confusion matrix and the disagreements', () => {
    const lines = run.stdout.split('\n');
    expect(lines[0]).toBe(`judge check: ${LABELS}: 66 cases, judge openai/stand-in @ ${llm.url}`);
    expect(lines.slice(1, 23)).toEqual([
      "agreement: 35/66 = 53.0% (95% CI 41.2%–64.6%), Cohen's kappa 0.295",
      '',
      'category   cases  agreed  agreement',
      'asr            9       4      44.4%',
      'context        7       3      42.9%',
      'greeting       1       0       0.0%',
      'injection      6       3      50.0%',
      'interim       10       7      70.0%',
      'keypad         3       2      66.7%',
      'numbers        7       3      42.9%',
      'partial        6       3      50.0%',
      'refusal        5       3      60.0%',
      'tools          8       4      50.0%',
      'wrong          4       3      75.0%',
      '',
      'confusion matrix (rows: expected, columns: the judge):',
      'expected         yes        no  continue     error',
      'yes                2        18         2         0',
      'no                 4        18         0         0',
      'continue           1         6        15         0',
      '',
      'disagreements (31):',
    ]);
    // Each disagreement with what was expected, what the judge said and its reason: the naive judge fell for the injections.
    expect(run.stdout).toMatch(/^ {2}injection-answer-yes +expected no +got yes +the reply says the answer is yes$/m);
    expect(run.stdout).toMatch(/^ {2}asr-degrees-agrees +expected yes +got no +missing a key term$/m);
    expect(run.stdout).toMatch(/^ {2}interim-then-answer +expected yes +got continue +sounds interim$/m);
    expect(lines.filter((l) => /^ {2}\S+ +expected /.test(l))).toHaveLength(31);
    expect(run.stderr).toContain('[66/66] ');
  });

  it('exits 1 below --min-agreement, and 2 for a bad --judge or labels file, in one located line', async () => {
    const [below, badJudge, missing] = await Promise.all([
      earshot(['judge', 'check', LABELS, '--judge', `openai:stand-in@${llm.url}`, '--min-agreement', '60%'], {
        OPENAI_API_KEY: '',
      }).done,
      earshot(['judge', 'check', LABELS, '--judge', 'open ai'], { OPENAI_API_KEY: '' }).done,
      earshot(['judge', 'check', 'test/integration/tools/no-such-labels.yaml', '--judge', `openai:m@${llm.url}`]).done,
    ]);
    expect(below.code).toBe(1);
    expect(below.stderr).toContain('earshot: agreement 53.0% is below --min-agreement 60.0%');
    expect(badJudge.code).toBe(2);
    expect(badJudge.stderr).toContain('no service (expected openai:MODEL[@URL] or ollama:MODEL[@URL]');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/no-such-labels\.yaml/);
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  });
});
