import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../src/results/index.js';
import { startLlmServer, type LlmServer } from '../../support/llm-server.js';
import { nemoLlm } from '../../support/nemo-llm.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { earshot, readResults } from '../../suite/cli.testutil.js';

/**
 * NeMo scenarios through the built CLI: TypeScript scenario modules loaded behind `--allow-code`, listed by domain,
 * filtered by name prefix and by name, a broken module refused before any bot is reached, the YAML form of the
 * worked example run against the reference bot, and NeMo's `metrics.json` written beside each trace.
 */
const here = (p: string): string => join(ROOT, 'test/e2e/nemo', p);
const RESTAURANT = here('scenarios/restaurant.ts');
const CAFE = here('scenarios/cafe.ts');
const NO_SIGNALS = here('scenarios/no-signals.ts');
const tmp = mkdtempSync(join(tmpdir(), 'earshot-nemo-cli-'));
const truthLog = join(tmp, 'truth.jsonl');
let server: LlmServer;
let bot: RefbotProcess;

const llmFlags = (): string[] => [
  '--simulator',
  `openai:caller@${server.url}`,
  '--judge',
  `openai:judge@${server.url}`,
];

beforeAll(async () => {
  server = await startLlmServer(nemoLlm());
  bot = await startRefbotProcess([
    '--brain',
    join(ROOT, 'fixtures/nemo/restaurant/brain.yaml'),
    '--eval-data-root',
    join(ROOT, 'fixtures/nemo'),
    '--truth-log',
    truthLog,
  ]);
}, 30_000);

afterAll(async () => {
  await Promise.all([bot?.stop(), server?.close()]);
  rmSync(tmp, { recursive: true, force: true });
});

/** The bot's connections so far, from its own truth log. */
function connectionsSeen(): number {
  if (!existsSync(truthLog)) return 0;
  return readFileSync(truthLog, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"connection_open"')).length;
}

describe('scenario modules', () => {
  it('--list groups the registered scenarios by domain with counts; --domain keeps a name prefix', async () => {
    const all = await earshot(['run', RESTAURANT, CAFE, '--allow-code', '--list']).done;
    expect(all.code, all.stderr).toBe(0);
    const lines = all.stdout.split('\n');
    expect(lines).toContain('cafe (1)');
    expect(lines).toContain('  cafe__latte  Order a latte');
    expect(lines).toContain('restaurant (11)');
    expect(lines).toContain('  restaurant__pizza_no_goodbye  Broken: the caller hangs up before the bot ends the call');
    expect(lines).toContain('  restaurant__pizza_pepperoni  Order a pepperoni pizza with extra cheese at Pizza Palace');
    // Groups are in name order: cafe before restaurant, each scenario under its own.
    expect(lines.indexOf('cafe (1)')).toBeLessThan(lines.findIndex((l) => l.startsWith('restaurant (')));
    expect(all.stdout).toMatch(/\n12 scenarios in 2 domains\n$/);

    const restaurant = await earshot(['run', RESTAURANT, CAFE, '--allow-code', '--list', '--domain', 'restaurant'])
      .done;
    expect(restaurant.code, restaurant.stderr).toBe(0);
    expect(restaurant.stdout).not.toContain('cafe__latte');
    expect(restaurant.stdout).toContain('restaurant__pizza_no_goodbye');
    expect(restaurant.stdout).toMatch(/\n11 scenarios in 1 domain\n$/);
  }, 60_000);

  it('a scenario module runs code: without --allow-code it is refused, exit 2, one located line', async () => {
    const run = await earshot(['run', RESTAURANT, '--list']).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/scenarios\/restaurant\.ts:1:1: .*--allow-code/);
    expect(run.stdout).not.toContain('restaurant__pizza_pepperoni');
  }, 30_000);

  it('a concrete scenario without success signals is refused at import, with file:line, before any bot is reached', async () => {
    const before = connectionsSeen();
    const run = await earshot(['run', RESTAURANT, NO_SIGNALS, '--allow-code', '--url', bot.url, ...llmFlags()]).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no-signals\.ts:\d+(:\d+)?.*PizzaWithoutSignals.*successSignals/);
    // Not one scenario ran: the modules are all loaded (and checked) before the first connection.
    expect(connectionsSeen()).toBe(before);
    expect(before).toBe(0);
  }, 30_000);

  it('runs scenarios by name (--scenarios): the worked example passes and the no-goodbye variant fails on clean_exit', async () => {
    const out = join(tmp, 'by-name');
    const run = await earshot([
      'run',
      RESTAURANT,
      '--allow-code',
      '--scenarios',
      'restaurant__pizza_pepperoni,restaurant__pizza_no_goodbye',
      '--url',
      bot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code, run.stderr).toBe(1);
    // The truth log does record connections (so its staying empty above means something).
    expect(connectionsSeen()).toBe(2);
    const results = readResults(out);
    expect(results.map((r) => [r.name, r.status])).toEqual([
      [expect.stringContaining('restaurant__pizza_pepperoni'), 'passed'],
      [expect.stringContaining('restaurant__pizza_no_goodbye'), 'failed'],
    ]);
    expect(results[1].failures.map((f) => f.reason)).toEqual([expect.stringMatching(/^clean_exit: /)]);
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      nemo?: { composite: Record<string, unknown>; signals: Record<string, Record<string, unknown>> };
    };
    expect(summary.nemo?.composite).toMatchObject({ successful: 1, failed: 1, not_applicable: 0, rate: 0.5 });
    expect(summary.nemo?.signals.clean_exit).toMatchObject({ passed: 1, failed: 1 });
    expect(summary.nemo?.signals.is_action_match).toMatchObject({ passed: 2, failed: 0, rate: 1 });
  }, 60_000);
  it('--min-agent-turns above the call it had: the run fails as too_few_agent_turns, counted in the composite as short', async () => {
    const out = join(tmp, 'short');
    const run = await earshot([
      'run',
      RESTAURANT,
      '--allow-code',
      '--scenarios',
      'restaurant__pizza_pepperoni',
      '--min-agent-turns',
      '20',
      '--url',
      bot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code, run.stderr).toBe(1);
    const [result] = readResults(out) as [ScenarioResult];
    expect(result.failures.map((f) => f.kind)).toEqual(['too_few_agent_turns']);
    expect(result.simulation?.nemo).toMatchObject({ below_min_agent_turns: true, min_agent_turns: 20 });
    const summary = JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8')) as {
      nemo?: { composite: Record<string, unknown>; signals: Record<string, unknown> };
    };
    expect(summary.nemo?.composite).toMatchObject({ successful: 0, failed: 1, short: 1, rate: 0 });
    // A run that never got going is no evidence about any one signal.
    expect(summary.nemo?.signals).toEqual({});
  }, 60_000);
});

describe('the YAML form and metrics.json', () => {
  it("the worked example in YAML passes against the reference bot, and its metrics.json carries NeMo's field names", async () => {
    const out = join(tmp, 'yaml');
    const run = await earshot([
      'run',
      here('pizza.yaml'),
      '--url',
      bot.url,
      ...llmFlags(),
      '--out',
      out,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
    const [result] = readResults(out) as [ScenarioResult];
    expect(result.status).toBe('passed');
    expect(result.simulation?.nemo?.success_breakdown.passed).toEqual([
      'is_action_match',
      'db_state_match',
      'clean_exit',
    ]);
    expect(result.artifacts?.metrics).toMatch(/\.metrics\.json$/);
    const metrics = JSON.parse(readFileSync(join(out, result.artifacts!.metrics!), 'utf8')) as Record<string, unknown>;
    expect(metrics).toMatchObject({
      scenario_name: expect.stringContaining('restaurant__pizza_pepperoni'),
      is_successful: true,
      is_task_successful: true,
      success_breakdown: {
        passed: ['is_action_match', 'db_state_match', 'clean_exit'],
        failed: [],
        not_applicable: [],
        excluded: [],
      },
      is_action_match: true,
      db_state_match: true,
      clean_exit: true,
      stop_reason: '[EXIT]',
      agent_turns: expect.any(Number),
      db_hash: expect.stringMatching(/^[0-9a-f]{64}$/),
      actions: [expect.objectContaining({ name: 'PlaceOrderTool', total_price: '11.49' })],
    });
    expect(metrics.db_hash).toBe(metrics.expected_db_hash);
  }, 60_000);
});
