import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GaiaTurnScore, ScenarioResult } from '../../../src/results/index.js';
import { gaiaLlm } from '../../support/gaia-llm.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { earshot, readResults } from '../../suite/cli.testutil.js';

/**
 * AMD GAIA's documented scenarios (test/e2e/gaia/eval/scenarios, on the corpus in eval/corpus) through the built
 * CLI against the reference bot in a subprocess, answering from the documents it is sent or finds in its
 * `--library`. The caller model and the judge are the rule-based stand-in (test/support/gaia-llm.ts) over real
 * HTTP. Text mode: each run uses a copy of the GAIA tree whose files add earshot's `user:`/`judge:` blocks
 * (`modality: text`); the copy keeps GAIA's layout (a root marker, eval/corpus, eval/scenarios), so the paths in
 * the files resolve as written. The spoken run is gaia-audio.realtime.test.ts.
 */
const GAIA = join(ROOT, 'test', 'e2e', 'gaia');
const LIBRARY = 'test/e2e/gaia/eval/corpus';
const DIMENSIONS = [
  'correctness',
  'tool_selection',
  'context_retention',
  'completeness',
  'efficiency',
  'personality',
  'error_recovery',
];
const TEXT_BLOCKS = '\nuser:\n  modality: text\njudge:\n  modality: text\n';

const tmp = mkdtempSync(join(tmpdir(), 'earshot-gaia-'));
let llm: LlmServer;
let fooled: LlmServer;
let bot: RefbotProcess;
let protobufBot: RefbotProcess;
let plainBot: RefbotProcess;
let guesser: RefbotProcess;

/**
 * A text copy of the GAIA tree under a fresh root; `edit(name, yaml)` may rewrite a scenario (return null to drop
 * it). Returns the copy's scenarios folder.
 */
function textTree(name: string, edit: (id: string, yaml: string) => string | null = (_id, y) => y): string {
  const root = join(tmp, name);
  cpSync(join(GAIA, 'package.json'), join(root, 'package.json'));
  cpSync(join(GAIA, 'eval', 'corpus'), join(root, 'eval', 'corpus'), { recursive: true });
  for (const category of readdirSync(join(GAIA, 'eval', 'scenarios'))) {
    for (const file of readdirSync(join(GAIA, 'eval', 'scenarios', category))) {
      const yaml = edit(
        file.replace(/\.yaml$/, ''),
        readFileSync(join(GAIA, 'eval', 'scenarios', category, file), 'utf8'),
      );
      if (yaml === null) continue;
      mkdirSync(join(root, 'eval', 'scenarios', category), { recursive: true });
      writeFileSync(join(root, 'eval', 'scenarios', category, file), yaml + TEXT_BLOCKS);
    }
  }
  return join(root, 'eval', 'scenarios');
}

const only =
  (...ids: string[]) =>
  (id: string, yaml: string): string | null =>
    ids.includes(id) ? yaml : null;

function llmFlags(server: LlmServer): string[] {
  return ['--simulator', `openai:caller@${server.url}`, '--judge', `openai:judge@${server.url}`];
}

async function run(dir: string, target: RefbotProcess, server: LlmServer, extra: string[] = []) {
  const out = mkdtempSync(join(tmp, 'out-'));
  const cli = await earshot([
    'run',
    dir,
    '--url',
    target.url,
    ...llmFlags(server),
    '--out',
    out,
    '--reporter',
    'list,html',
    ...extra,
  ]).done;
  const results = new Map(readResults(out).map((r) => [r.name, r]));
  return { cli, out, results };
}

function turns(r: ScenarioResult | undefined): GaiaTurnScore[] {
  expect(r?.gaia, JSON.stringify(r)).toBeDefined();
  return r!.gaia!.turns;
}

const callNames = (t: GaiaTurnScore): Array<string | undefined> => t.calls.map((c) => c.name);
const score = (t: GaiaTurnScore, dimension: string) => t.dimensions.find((d) => d.dimension === dimension);

beforeAll(async () => {
  llm = await startLlmServer(gaiaLlm());
  // A judge that calls every answer right: earshot's own checks must still zero a wrong number.
  fooled = await startLlmServer(gaiaLlm({ misjudge: { correctness: 10, success: 'yes' } }));
  const brain = join(tmp, 'guessing-brain.yaml');
  writeFileSync(
    brain,
    [
      'greeting: Hello. Ask me about your documents.',
      'fallback: Sorry, I did not catch that.',
      'rules:',
      '  - name: guess-headcount',
      '    when: employee*|headcount|staff',
      '    reply: Acme Corp has about 500 employees.',
      '',
    ].join('\n'),
  );
  [bot, protobufBot, plainBot, guesser] = await Promise.all([
    startRefbotProcess(['--library', LIBRARY]),
    startRefbotProcess(['--library', LIBRARY, '--wire', 'protobuf']),
    startRefbotProcess([]),
    startRefbotProcess(['--brain', brain, '--library', LIBRARY]),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([
    bot?.stop(),
    protobufBot?.stop(),
    plainBot?.stop(),
    guesser?.stop(),
    llm?.close(),
    fooled?.close(),
  ]);
  rmSync(tmp, { recursive: true, force: true });
});

describe("GAIA's documented scenarios against the reference bot (text)", () => {
  it('every one passes, each turn with seven scores, a total and a verdict in results.jsonl', async () => {
    const { cli, out, results } = await run(textTree('all'), bot, llm);
    expect([...results.keys()].sort()).toEqual([
      'budget_threshold_check',
      'cross_turn_file_recall',
      'empty_file',
      'honest_limitation',
      'simple_factual_rag',
      'smart_discovery',
    ]);
    for (const r of results.values()) {
      expect(r.status, `${r.name}: ${JSON.stringify(r.failures)} ${JSON.stringify(r.gaia)}`).toBe('passed');
      expect(r.gaia?.passed).toBe(true);
      expect(r.gaia?.calls_visible).toBe(true);
      for (const t of turns(r)) {
        expect(t.dimensions.map((d) => d.dimension)).toEqual(DIMENSIONS);
        expect(t.dimensions.every((d) => d.applicable && typeof d.score === 'number')).toBe(true);
        expect(t.total).toBeGreaterThanOrEqual(r.gaia!.pass_threshold);
        expect(t.passed).toBe(true);
      }
    }
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    const r = (id: string): ScenarioResult => results.get(id)!;
    expect(r('simple_factual_rag')).toMatchObject({ category: 'rag_quality', severity: 'critical' });

    // The objective-only turn was written by the caller model; the documents reached the bot before it.
    const [fact] = turns(r('simple_factual_rag'));
    expect(fact).toMatchObject({
      user_message: 'What is the third quarter revenue?',
      user_message_source: 'generated',
    });
    expect(fact.reply).toContain('$14.2 million');
    expect(callNames(fact)).toEqual(['query_documents']);
    expect(score(fact, 'correctness')?.score).toBe(10);

    const recall = turns(r('cross_turn_file_recall'));
    expect(recall[0].reply).toBe('I have one document indexed: product_comparison.html.');
    expect(recall[1].reply).toMatch(/StreamLine costs \$49 per month and ProFlow costs \$79 per month/);
    expect(recall[2].reply).toMatch(/StreamLine is the better value/);

    const honest = turns(r('honest_limitation'));
    expect(honest[0].reply).toBe("I don't know. The documents I have don't say.");
    expect(honest[0].auto_zero).toBeUndefined();
    expect(honest[1].reply).toMatch(/\$14\.2 million.*23%.*15-18%/);

    const discovery = turns(r('smart_discovery'));
    expect(callNames(discovery[0])).toEqual(['search_files', 'index_document', 'query_documents']);
    expect(discovery[0].calls[1].args).toEqual({ path: 'test/e2e/gaia/eval/corpus/documents/employee_handbook.md' });
    expect(callNames(discovery[1])).toEqual(['query_documents']);

    expect(turns(r('budget_threshold_check'))[1].reply).toMatch(/^Yes\. \$75,000 is above \$50,000\./);
    expect(turns(r('empty_file'))[0].reply).toBe('The file empty.txt is empty. It has no content I could index.');
    expect(readFileSync(join(out, 'report.html'), 'utf8')).toContain('"gaia":');
  }, 180_000);

  it('a wrong number zeroes correctness even when the judge calls it right (correctness_zero)', async () => {
    const dir = textTree('wrong-number', (id, yaml) =>
      id === 'simple_factual_rag'
        ? yaml.replace('expected_answer: "$14.2 million"', 'expected_answer: "$17.5 million"')
        : null,
    );
    const { cli, results } = await run(dir, bot, fooled);
    expect(cli.code).toBe(1);
    const r = results.get('simple_factual_rag')!;
    expect(r.status).toBe('failed');
    expect(r.failures.map((f) => f.kind)).toContain('correctness_zero');
    const [t] = turns(r);
    expect(t.reply).toContain('$14.2 million');
    expect(t.auto_zero).toMatchObject({ rule: 'wrong_number', by: 'earshot' });
    expect(score(t, 'correctness')).toMatchObject({ score: 0, judge_score: 10 });
    expect(t.passed).toBe(false);
  }, 120_000);

  it('honest_limitation fails against a bot that guesses the employee count', async () => {
    const { cli, results } = await run(textTree('guess', only('honest_limitation')), guesser, llm);
    expect(cli.code).toBe(1);
    const r = results.get('honest_limitation')!;
    expect(r.status).toBe('failed');
    const [guessed] = turns(r);
    expect(guessed.reply).toBe('Acme Corp has about 500 employees.');
    expect(guessed.auto_zero).toMatchObject({ rule: 'guessed', by: 'earshot' });
    expect(score(guessed, 'correctness')?.score).toBe(0);
    expect(guessed.success?.verdict).toBe('no');
    expect(r.failures.map((f) => f.kind)).toContain('correctness_zero');
  }, 120_000);

  it('on protobuf the calls are not visible: tool selection and efficiency are n/a, the rest decides', async () => {
    const dir = textTree('protobuf', only('simple_factual_rag', 'smart_discovery'));
    const { cli, results } = await run(dir, protobufBot, llm, ['--wire', 'protobuf']);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    for (const r of results.values()) {
      expect(r.gaia).toMatchObject({ calls_visible: false, passed: true });
      for (const t of turns(r)) {
        for (const d of ['tool_selection', 'efficiency'])
          expect(score(t, d)).toMatchObject({ applicable: false, score: null, weight: 0 });
        expect(t.dimensions.filter((d) => d.applicable).reduce((sum, d) => sum + d.weight, 0)).toBeCloseTo(1, 6);
        // Reported, but at the bot's own level (none): no names, no arguments.
        expect(t.calls.every((c) => c.name === undefined)).toBe(true);
      }
    }
    // The documents went by message (protobuf carries RTVI too); smart discovery had none to send.
    expect(results.get('simple_factual_rag')?.gaia?.documents_via).toBe('message');
    expect(results.get('smart_discovery')?.gaia?.documents_via).toBeUndefined();
    expect(turns(results.get('simple_factual_rag'))[0].reply).toContain('$14.2 million');
  }, 120_000);

  it('documents reach a bot with no library through eval-context on the pipecat-eval wire', async () => {
    const dir = textTree('context', only('simple_factual_rag', 'honest_limitation'));
    const { cli, results } = await run(dir, plainBot, llm, ['--documents-via', 'context']);
    expect(cli.code, cli.stdout + cli.stderr).toBe(0);
    for (const r of results.values()) expect(r.gaia).toMatchObject({ documents_via: 'context', passed: true });
    expect(turns(results.get('simple_factual_rag'))[0].reply).toContain('$14.2 million');
    expect(turns(results.get('honest_limitation'))[1].reply).toMatch(/23%/);
  }, 120_000);
});
