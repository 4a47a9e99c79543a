import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startLlmServer, type LlmServer, type LoggedRequest } from '../../../test/support/llm-server.js';
import { waitFor } from '../../protocol/loopback.testutil.js';
import type { ServerMessage } from '../../protocol/index.js';
import { DEFAULT_SCORECARD_WEIGHTS, type GaiaSpec, type Scenario } from '../../scenario/index.js';
import { GAIA_CALLER_LINES, GAIA_TURN_LINES } from '../../simulate/index.js';
import { ScenarioFiles } from '../../session/media/scenario.testutil.js';
import {
  llmReply,
  SessionClock,
  startScriptedBot,
  type BotScript,
  type ScriptedBot,
} from '../../session/scripted-bot.testutil.js';
import { runGaia } from './run.js';

/**
 * The GAIA driver on the session runtime, against a scripted bot on a real loopback socket and the LLM stand-in
 * (test/support/llm-server.ts) as the caller's model and the judge. Session time is manual; a ticker moves it on
 * (100 ms per 5 ms of real time) so the greeting, the settle windows and the acknowledgement wait pass as steps.
 */
const files = new ScenarioFiles();
afterAll(() => files.cleanup());
const bots: ScriptedBot[] = [];
const servers: LlmServer[] = [];
let ticker: NodeJS.Timeout | undefined;
afterEach(async () => {
  clearInterval(ticker);
  await Promise.all([...bots.splice(0).map((b) => b.close()), ...servers.splice(0).map((s) => s.close())]);
});

const REVENUE = { doc_id: 'acme', id: 'q3_revenue', question: 'Q3 revenue?', answer: '$14.2 million' };
let n = 0;
async function gaiaScenario(over: Partial<GaiaSpec> = {}): Promise<Scenario> {
  const loaded = await files.load(
    'name: gaia\nscenarios:\n  - name: s\n    turns:\n      - user: What was Q3 revenue?\n      - user: later\n',
    `g${n++}.yaml`,
  );
  const gaia: GaiaSpec = {
    id: 'revenue_check',
    persona: { name: 'power_user', description: 'Precise requests', builtin: true },
    documents: [],
    turns: [
      {
        turn: 1,
        objective: 'Ask for Q3 revenue',
        user_message: 'What was Q3 revenue?',
        within_ms: 20_000,
        ground_truth: { doc_id: 'acme', expected_answer: '$14.2 million', facts: [REVENUE] },
      },
      { turn: 2, objective: 'Ask how it compares to last year', within_ms: 20_000, success_criteria: 'gives a growth' },
    ],
    simulator: { service: 'openai', model: 'stand-in' },
    scoring: { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 },
    ...over,
  };
  return { ...loaded, turns: [{ ...loaded.turns[0] }, { ...loaded.turns[0], user: undefined }], gaia };
}

function call(name: string, query: string): ServerMessage {
  return {
    type: 'llm-function-call-in-progress',
    data: { tool_call_id: 't1', function_name: name, arguments: { query } },
  };
}
async function bot(script: BotScript): Promise<ScriptedBot> {
  const b = await startScriptedBot({ greeting: llmReply('Hello, ask me about your documents.'), ...script });
  bots.push(b);
  return b;
}
const lastUser = (r: LoggedRequest): string => String(r.body.messages.filter((m) => m.role === 'user').at(-1)?.content);
function judgeJson(score: number, extra: Record<string, unknown> = {}): string {
  const scores = Object.fromEntries(Object.keys(DEFAULT_SCORECARD_WEIGHTS).map((d) => [d, { score, reason: 'ok' }]));
  return JSON.stringify({
    scores,
    success: { verdict: 'yes', reason: 'met' },
    auto_zero: null,
    reasked: false,
    ...extra,
  });
}
async function llm(judge: (prompt: string) => string): Promise<LlmServer> {
  const s = await startLlmServer((r) => {
    const prompt = lastUser(r);
    if (!prompt.includes(`\n${GAIA_TURN_LINES.turn}`)) return 'And how does that compare with last year?';
    return judge(prompt);
  });
  servers.push(s);
  return s;
}
function run(scenario: Scenario, b: ScriptedBot, s: LlmServer, more: Record<string, unknown> = {}) {
  const time = new SessionClock();
  clearInterval(ticker);
  ticker = setInterval(() => time.pass(100), 5);
  const override = `openai:stand-in@${s.url}`;
  return runGaia(scenario, time.config({ url: b.url, judgeOverride: override, simulatorOverride: override, ...more }));
}

const answers = (text: string): ServerMessage[] =>
  text.includes('Q3')
    ? [call('query_documents', 'Q3 revenue'), ...llmReply('Q3 revenue was $14.2 million.')]
    : llmReply('Revenue grew 23% year over year.');

describe('the GAIA driver', () => {
  it('plays written and objective-only turns, hears the greeting out, and scores each turn', async () => {
    const b = await bot({ onText: answers });
    const s = await llm(() => judgeJson(9));
    const { result, trace } = await run(await gaiaScenario(), b, s);
    expect(result.status).toBe('passed');
    expect(b.received).toEqual([
      'client-ready',
      'client-message:eval-configure',
      'send-text:What was Q3 revenue?',
      'send-text:And how does that compare with last year?',
    ]);
    // Each reply counts as whole after the settle window (1.5 s), not the turn's 20 s budget.
    expect(result.turns.map((t) => t.duration_ms < 5000)).toEqual([true, true]);
    expect(result.turns.map((t) => [t.status, t.input.user])).toEqual([
      ['passed', 'What was Q3 revenue?'],
      ['passed', 'And how does that compare with last year?'],
    ]);
    const g = result.gaia;
    expect(g).toMatchObject({
      id: 'revenue_check',
      calls_visible: true,
      total: 9,
      passed: true,
      persona: 'power_user',
    });
    expect(g?.turns.map((t) => [t.user_message_source, t.reply, t.calls])).toEqual([
      ['written', 'Q3 revenue was $14.2 million.', [{ name: 'query_documents', args: { query: 'Q3 revenue' } }]],
      ['generated', 'Revenue grew 23% year over year.', []],
    ]);
    // The caller's model saw the greeting and turn 1, and the contract lines; the judge saw turn 1 before turn 2.
    const caller = s.requests.find((r) => !lastUser(r).includes(`\n${GAIA_TURN_LINES.turn}`));
    expect(lastUser(caller!)).toContain(`${GAIA_CALLER_LINES.objective}Ask how it compares to last year`);
    expect(lastUser(caller!)).toContain(`${GAIA_CALLER_LINES.persona}power_user`);
    expect(caller!.body.messages.map((m) => m.role)).toEqual(['system', 'user', 'assistant', 'user', 'user']);
    const judged = s.requests.filter((r) => lastUser(r).includes(`\n${GAIA_TURN_LINES.turn}`)).map(lastUser);
    expect(judged[1]).toContain('turn 1 bot: "Q3 revenue was $14.2 million."');
    expect(judged[1]).toContain('Success criteria: gives a growth');
    expect(trace).toMatch(/gaia: greeting "Hello, ask me about your documents\."/);
  });

  it('a number more than 5 % off is an automatic zero on its turn, whatever the judge says', async () => {
    const b = await bot({ onText: (t) => (t.includes('Q3') ? llmReply('Q3 revenue was $15 million.') : answers(t)) });
    const { result } = await run(await gaiaScenario(), b, await llm(() => judgeJson(10)));
    expect(result.status).toBe('failed');
    expect(result.failures.map((f) => [f.kind, f.turn_index])).toEqual([['correctness_zero', 0]]);
    expect(result.turns.map((t) => t.status)).toEqual(['failed', 'passed']);
    expect(result.gaia?.turns[0].auto_zero).toMatchObject({ rule: 'wrong_number', by: 'earshot' });
  });

  it('an answer the judge garbles makes the run an error (judge_no_verdict)', async () => {
    const b = await bot({ onText: answers });
    const { result } = await run(await gaiaScenario(), b, await llm(() => 'it went fine'));
    expect(result.status).toBe('error');
    expect(result.failures.map((f) => [f.kind, f.turn_index])).toEqual([['judge_no_verdict', 0]]);
  });

  it('documents by message: the first turn waits for the ack; none within the wait is the run error', async () => {
    const doc = files.write('acme.md', 'Q3 revenue was $14.2 million.\n');
    const documents = [
      { corpus_doc: 'acme', path: doc, written_path: 'acme.md', filename: 'acme.md', format: 'markdown' },
    ];
    const scenario = await gaiaScenario({ documents });
    const b = await bot({ onText: answers });
    const s = await llm(() => judgeJson(9));
    const acked = run(scenario, b, s);
    await waitFor(() => b.received.includes('client-message:earshot-index-documents'));
    b.peer()?.connection.send({ type: 'server-response', data: { t: 'earshot-index-documents', d: { indexed: 1 } } });
    const { result, trace } = await acked;
    expect(result.status).toBe('passed');
    expect(result.gaia?.documents_via).toBe('message');
    expect(trace).toMatch(/documents: the bot acknowledged \(indexed: 1\)/);

    const seeded = await bot({ onText: answers });
    const { result: viaContext } = await run(scenario, seeded, s, { documentsVia: 'context' });
    expect(viaContext.gaia?.documents_via).toBe('context');
    expect(seeded.received.slice(0, 4)).toEqual([
      'client-ready',
      'client-message:eval-configure',
      'client-message:eval-context',
      'send-text:What was Q3 revenue?',
    ]);

    const silent = await bot({ onText: answers });
    const { result: lost } = await run(scenario, silent, s, { documentsAckTimeoutMs: 2000 });
    expect(lost.status).toBe('error');
    expect(lost.error).toMatch(/the bot never acknowledged the documents/);
    expect(silent.received).not.toContain('send-text:What was Q3 revenue?');
  });
});
