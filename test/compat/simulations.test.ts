import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type LlmConfig, type Simulation } from '../../src/scenario/index.js';
import { createSimulationDriver, driveSession } from '../../src/drivers/index.js';
import { AudioEngine, type SessionOutcome } from '../../src/session/index.js';
import { callerRules, judgeRules, seeded } from '../e2e/sim/booking-rules.testutil.js';
import { startLlmServer, type LlmServer } from '../support/llm-server.js';
import { ROOT } from '../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { simLlm, type PersonaRule, type PersonaView, type RunView } from '../support/sim-llm.js';
import { earshot, readResults } from '../suite/cli.testutil.js';
import { newestCorpus, requireCorpus } from './corpora.js';

/**
 * Simulations of Pipecat's newest release corpus, run unchanged against the
 * reference bot wherever its brain can play the bot they were written for:
 * `capital_curious` (text and audio) against the default brain, the three
 * `book_table` callers against test/e2e/sim/brain-booking.yaml, and
 * `order_pizza`, `order_pizza_piecemeal`, `order_pizza_price_question`,
 * `order_sushi` and `order_sushi_change_mind` against
 * test/e2e/sim/brain-pizza.yaml (the food-ordering bot), and the four
 * `age_verification` callers (audio) against test/e2e/sim/brain-age.yaml:
 * 14 of its 16. `get_insurance_quote` and `complete_patient_intake` test
 * Pipecat Flows bots' own functions and states, which no brain stands in for. The
 * corpus's simulator (Ollama) and judge (a Python classifier) are replaced
 * by the stand-in LLM server, as `--simulator` / `--judge` would replace
 * them, and in audio its Kokoro / Moonshine by Flite / PocketSphinx, as
 * `--tts` / `--stt` do.
 */
const CORPUS = newestCorpus();
const SIMULATED = join(CORPUS, 'scenarios', 'simulated');
let server: LlmServer;
let capitalsBot: RefbotProcess;
let bookingBot: RefbotProcess;
let pizzaBot: RefbotProcess;
let ageBot: RefbotProcess;
let engine: AudioEngine;

/** A food order by rules: the first line, lines after what the bot said, then a yes to the read-back, and a hang-up once the order is complete. */
function ordering(who: string, [first, ...then]: [string, ...Array<{ after: RegExp; say: string }>]): PersonaRule[] {
  const mine = (v: PersonaView): boolean => v.persona.startsWith(who);
  return [
    {
      when: (v) => mine(v) && v.lastBot.includes('order is complete'),
      endCall: { success: true, reason: 'The order is complete.' },
    },
    ...then.map(({ after, say }): PersonaRule => ({ when: (v) => mine(v) && after.test(v.lastBot), say })),
    { when: (v) => mine(v) && v.lastBot.includes('is that right'), say: 'Yes, that is right.' },
    { when: (v) => mine(v) && v.callerTurns === 0, say: first },
  ];
}
/** An age-verification caller: its first answer, what it says when asked again, and a hang-up once it has its answer. */
function age(
  who: string,
  lines: { first: string; again: string; after?: { heard: RegExp; say: string } },
): PersonaRule[] {
  const mine = (v: PersonaView): boolean => v.persona.startsWith(who);
  const after = lines.after;
  return [
    { when: (v) => mine(v) && /verif/.test(v.lastBot), endCall: { success: true, reason: 'I am verified.' } },
    {
      when: (v) => mine(v) && /must be/.test(v.lastBot),
      endCall: { success: true, reason: 'I cannot use the service yet.' },
    },
    ...(after ? [{ when: (v: PersonaView) => mine(v) && after.heard.test(v.lastBot), say: after.say }] : []),
    { when: (v) => mine(v) && v.callerTurns === 0, say: lines.first },
    { when: mine, say: lines.again },
  ];
}
const notAvailable = (v: { lines: Array<{ role: string; text: string }> }): number =>
  v.lines.filter((l) => l.role === 'bot' && /not available/i.test(l.text)).length;
const persona = [
  // book_table/flexible: Sam wants 7 PM, takes 9 PM when it is offered.
  {
    when: (v: PersonaView) => v.persona.startsWith('Sam, calling') && /reserved/.test(v.lastBot),
    say: 'Great, thank you. Goodbye!',
    endCall: { success: true, reason: 'Booked at 9 PM.' },
  },
  {
    when: (v: PersonaView) => v.persona.startsWith('Sam, calling') && /not available/.test(v.lastBot),
    say: 'Nine PM works, please.',
  },
  {
    when: (v: PersonaView) => v.persona.startsWith('Sam, calling') && /how many people/.test(v.lastBot),
    say: 'For four people.',
  },
  {
    when: (v: PersonaView) => v.persona.startsWith('Sam, calling') && /what time/.test(v.lastBot),
    say: 'At seven PM, please.',
  },
  // book_table/impossible: Casey asks for 8 PM when 7 PM is taken, then gives up.
  {
    when: (v: PersonaView) => v.persona.startsWith('Casey, calling') && notAvailable(v) === 1,
    say: 'How about eight PM?',
  },
  {
    when: (v: PersonaView) => v.persona.startsWith('Casey, calling') && notAvailable(v) >= 2,
    say: 'That is a pity. Thank you anyway, goodbye.',
    endCall: { success: false, reason: 'Neither time was available.' },
  },
  // age_verification (audio: the bot's lines as PocketSphinx heard them).
  ...age('Alex, 34', { first: 'Yes.', again: 'Yes.' }),
  ...age('Riley, 15', { first: 'No, I am not.', again: 'No, I am not.' }),
  ...age('Morgan, 40', {
    first: 'Will this cost anything?',
    again: 'Will this cost anything?',
    after: { heard: /answer|question/, say: 'Yes.' },
  }),
  ...age('Sam, 22', { first: 'Hang on, let me check with my roommate.', again: 'Yes.' }),
  // The food-ordering callers (order_pizza_piecemeal, order_pizza_price_question, order_sushi, order_sushi_change_mind).
  ...ordering('Sam, ordering', ['A large pizza, please.', { after: /which topping/, say: 'Pepperoni.' }]),
  ...ordering('Jordan', ['How much is a large pizza?', { after: /dollars/, say: 'A large cheese pizza, please.' }]),
  ...ordering('Riley', ['Three California rolls, please.']),
  ...ordering('Casey, ordering', [
    'Two California rolls, please.',
    {
      after: /california rolls\. is that right/,
      say: 'Actually, I changed my mind. I want a small cheese pizza instead.',
    },
  ]),
  {
    when: (v: { lastBot: string }) => v.lastBot.includes('what kind of pizza'),
    say: 'A large pepperoni pizza, please.',
  },
  { when: (v: { lastBot: string }) => v.lastBot.includes('is that right'), say: 'How long will delivery take?' },
  { when: (v: { lastBot: string }) => v.lastBot.includes('minutes'), say: 'Great, yes, please confirm the order.' },
  {
    when: (v: { lastBot: string }) => v.lastBot.includes('on its way'),
    endCall: { success: true, reason: 'The pizza is ordered.' },
  },
  {
    when: (v: { lastBot: string }) => v.lastBot.includes('berlin'),
    say: 'Thank you, that is all I needed. Goodbye!',
    endCall: { success: true, reason: 'Berlin is the capital.' },
  },
  {
    when: (v: { persona: string; callerTurns: number }) =>
      v.persona.startsWith('A friendly, curious traveler') && v.callerTurns === 0,
    say: 'What is the capital of Germany?',
  },
  ...callerRules(),
];
const judge = {
  ...judgeRules,
  // The corpus's heard_the_caller metric, as a judge would read it: a reply that did not catch the caller fails.
  metric: (name: string, reply: string): 'yes' | 'no' =>
    name === 'heard_the_caller' && /did not catch|not understand/i.test(reply) ? 'no' : 'yes',
  goal: (v: RunView): 'yes' | 'no' => {
    const said = (re: RegExp): boolean => v.replies.some((r) => re.test(r));
    if (v.success?.includes('caller stalled')) return said(/catch/) && said(/verif/) ? 'yes' : 'no';
    if (v.success?.includes('about cost')) return said(/answer|question/) && said(/verif/) ? 'yes' : 'no';
    if (v.success?.includes('without verifying')) return said(/must be/) && !said(/verif/) ? 'yes' : 'no';
    if (v.success?.includes('told them they were verified')) return said(/verif/) ? 'yes' : 'no';
    if (v.success?.includes('Berlin')) return said(/berlin/i) ? 'yes' : 'no';
    if (v.success?.includes('offered alternative times'))
      return said(/not available/) && said(/reserved for 4 at (6|9) PM/) ? 'yes' : 'no';
    if (v.success?.includes('did not book'))
      return v.replies.filter((r) => /not available/.test(r)).length >= 2 && !said(/reserved/) ? 'yes' : 'no';
    const completed = (what: RegExp): boolean => v.replies.some((r) => /order is complete/.test(r) && what.test(r));
    if (v.success?.includes('delivery estimate'))
      return said(/large pepperoni/i) && said(/minutes/) && completed(/large pepperoni/) ? 'yes' : 'no';
    if (v.success?.includes('large pepperoni')) return completed(/large pepperoni/) ? 'yes' : 'no';
    if (v.success?.includes('large cheese')) return said(/dollars/) && completed(/large cheese/) ? 'yes' : 'no';
    if (v.success?.includes('three California rolls')) return completed(/three California rolls/) ? 'yes' : 'no';
    if (v.success?.includes('small cheese pizza, not the sushi'))
      return said(/California rolls/) && completed(/small cheese pizza/) ? 'yes' : 'no';
    return judgeRules.goal(v);
  },
};

function simulation(file: string, name: string): Simulation {
  const found = loadScenarioFile(join(SIMULATED, file)).scenarios.find((s) => s.name === name);
  if (found?.kind !== 'simulation') throw new Error(`${file}: no simulation ${name}`);
  return found;
}

async function simulate(sim: Simulation, url: string, media?: AudioEngine): Promise<SessionOutcome> {
  const override = (model: string): LlmConfig => ({ service: 'openai', model, endpoint: server.url });
  const driver = await createSimulationDriver(sim, {
    env: {},
    simulatorOverride: override('persona'),
    judgeOverride: override('judge'),
    random: seeded(11),
    requestTimeoutMs: 10_000,
  });
  return driveSession(sim, { url, env: {}, ...(media ? { media: media.media } : {}) }, driver);
}

beforeAll(async () => {
  requireCorpus(CORPUS, "Pipecat's newest release corpus");
  server = await startLlmServer(simLlm({ persona, judge }));
  [capitalsBot, bookingBot, pizzaBot, ageBot] = await Promise.all([
    startRefbotProcess(),
    startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-booking.yaml')]),
    startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-pizza.yaml')]),
    startRefbotProcess(['--brain', join(ROOT, 'test/e2e/sim/brain-age.yaml')]),
  ]);
  engine = new AudioEngine({ tts: 'flite', stt: 'sphinx', record: false, noCache: true });
}, 30_000);

afterAll(async () => {
  await Promise.all([
    capitalsBot?.stop(),
    bookingBot?.stop(),
    pizzaBot?.stop(),
    ageBot?.stop(),
    server?.close(),
    engine?.close(),
  ]);
});

describe("Pipecat's simulations, unchanged, against the reference bot", () => {
  it('capital_curious/text: the caller asks, hears Berlin, hangs up; goal met, every metric scored', async () => {
    const { result, trace } = await simulate(
      simulation('capital_curious.yaml', 'capital_curious/text'),
      capitalsBot.url,
    );
    expect(result.status, trace).toBe('passed');
    expect(result.simulation).toMatchObject({ ended_by: 'end_call', persona_turns: 2, success: { verdict: 'yes' } });
    expect(result.simulation!.metrics.map((m) => [m.name, m.passed])).toEqual([
      ['politeness', true],
      ['brevity', true],
      ['words', true],
    ]);
  }, 60_000);

  it('book_table/available: party size, time, a booking, and the bot ends the call itself', async () => {
    const { result, trace } = await simulate(simulation('book_table.yaml', 'book_table/available'), bookingBot.url);
    expect(result.status, trace).toBe('passed');
    const calls = result.simulation!.transcript.flatMap((e) => (e.kind === 'call' ? [e.name] : []));
    expect(calls).toEqual(['collect_party_size', 'check_availability', 'end_conversation']);
  }, 60_000);

  it('order_pizza: the order, its read-back, a delivery estimate and the completion, every call the metric wants', async () => {
    const { result, trace } = await simulate(simulation('order_pizza.yaml', 'order_pizza/order_pizza'), pizzaBot.url);
    expect(result.status, trace).toBe('passed');
    expect(result.simulation!.metrics.find((m) => m.name === 'order_recorded')).toMatchObject({
      passed: true,
      value: 4,
    });
    expect(result.simulation).toMatchObject({ ended_by: 'end_call', persona_turns: 3 });
  }, 60_000);

  it('capital_curious/audio: spoken in real time, heard through transcription, latency measured as Pipecat does', async () => {
    const { result, trace } = await simulate(
      simulation('capital_curious.yaml', 'capital_curious/audio'),
      capitalsBot.url,
      engine,
    );
    expect(result.status, trace).toBe('passed');
    expect(result.simulation!.metrics.find((m) => m.name === 'latency')).toMatchObject({
      passed: true,
      reason: expect.stringContaining('from the persona stopping'),
    });
  }, 200_000);
});

describe("Pipecat's simulation files through the built CLI, unchanged", () => {
  it('earshot run age_verification.yaml in audio (--tts flite --stt sphinx): yes, no, a question first, a stall; canned replies only, no calls', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-compat-age-'));
    try {
      const flags = [
        '--simulator',
        `openai:persona@${server.url}`,
        '--judge',
        `openai:judge@${server.url}`,
        '--tts',
        'flite',
        '--stt',
        'sphinx',
        '--no-record',
      ];
      const run = await earshot([
        'run',
        join(SIMULATED, 'age_verification.yaml'),
        '--url',
        ageBot.url,
        ...flags,
        '--out',
        out,
        '--reporter',
        'dot',
      ]).done;
      const results = readResults(out);
      expect(
        results.map((r) => [r.name, r.status, r.simulation?.ended_by, r.simulation?.success.verdict]),
        run.stderr,
      ).toEqual([
        ['age_verification/adult', 'passed', 'end_call', 'yes'],
        ['age_verification/minor', 'passed', 'end_call', 'yes'],
        ['age_verification/question_first', 'passed', 'end_call', 'yes'],
        ['age_verification/evasive', 'passed', 'end_call', 'yes'],
      ]);
      expect(run.code).toBe(0);
      for (const r of results) {
        expect(r.simulation!.transcript.some((e) => e.kind === 'call')).toBe(false);
        // Spoken turns: the caller's speech was measured, and the bot answered aloud.
        expect(
          r.turns.every((t) => (t.metrics?.voice_to_voice_ms ?? 0) > 0),
          JSON.stringify(r.turns.map((t) => t.metrics)),
        ).toBe(true);
      }
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 300_000);

  it('earshot run on the food orders: piecemeal, a price question, sushi, and a change of mind, each with every call its metric wants', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-compat-food-'));
    try {
      const files = [
        'order_pizza_piecemeal',
        'order_pizza_price_question',
        'order_sushi',
        'order_sushi_change_mind',
      ].map((f) => join(SIMULATED, `${f}.yaml`));
      const flags = ['--simulator', `openai:persona@${server.url}`, '--judge', `openai:judge@${server.url}`];
      const run = await earshot(['run', ...files, '--url', pizzaBot.url, ...flags, '--out', out, '--reporter', 'dot'])
        .done;
      const results = readResults(out);
      expect(
        results.map((r) => [r.name, r.status, r.simulation?.ended_by, r.simulation?.success.verdict]),
        run.stderr,
      ).toEqual([
        ['order_pizza_piecemeal/order_pizza_piecemeal', 'passed', 'end_call', 'yes'],
        ['order_pizza_price_question/order_pizza_price_question', 'passed', 'end_call', 'yes'],
        ['order_sushi/order_sushi', 'passed', 'end_call', 'yes'],
        ['order_sushi_change_mind/order_sushi_change_mind', 'passed', 'end_call', 'yes'],
      ]);
      expect(run.code).toBe(0);
      const calls = results.map((r) => r.simulation!.transcript.flatMap((e) => (e.kind === 'call' ? [e.name] : [])));
      expect(calls).toEqual([
        ['choose_pizza', 'select_pizza_order', 'complete_order'],
        ['get_prices', 'choose_pizza', 'select_pizza_order', 'complete_order'],
        ['choose_sushi', 'select_sushi_order', 'complete_order'],
        ['choose_sushi', 'select_sushi_order', 'revise_order', 'choose_pizza', 'select_pizza_order', 'complete_order'],
      ]);
      // The piecemeal caller was never asked to say it again: the bot heard the size alone.
      expect(results[0].simulation!.metrics.find((m) => m.name === 'heard_the_caller')).toMatchObject({
        passed: true,
        score: 1,
      });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);

  it('earshot run book_table.yaml: a free time booked, a taken time traded for one offered, and an impossible booking declined', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-compat-book-'));
    try {
      const flags = ['--simulator', `openai:persona@${server.url}`, '--judge', `openai:judge@${server.url}`];
      const run = await earshot([
        'run',
        join(SIMULATED, 'book_table.yaml'),
        '--url',
        bookingBot.url,
        ...flags,
        '--out',
        out,
        '--reporter',
        'dot',
      ]).done;
      const results = readResults(out);
      expect(
        results.map((r) => [r.name, r.status, r.simulation?.ended_by]),
        run.stderr,
      ).toEqual([
        ['book_table/available', 'passed', 'end_call'],
        ['book_table/flexible', 'passed', 'end_call'],
        ['book_table/impossible', 'passed', 'end_call'],
      ]);
      expect(run.code).toBe(0);
      const said = (i: number): string[] =>
        results[i].simulation!.transcript.flatMap((e) => (e.kind === 'bot' ? [e.text] : []));
      expect(said(1)).toContain('Your table is reserved for 4 at 9 PM tonight. Thank you for calling. Goodbye.');
      expect(said(2).filter((t) => /not available/.test(t))).toEqual([
        'I am sorry, 7 PM is not available tonight. We have tables at 6 PM or 9 PM.',
        'I am sorry, 8 PM is not available tonight. We have tables at 6 PM or 9 PM.',
      ]);
      expect(results[2].simulation!.end_call).toEqual({ success: false, reason: 'Neither time was available.' });
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);

  it('earshot run order_pizza.yaml --simulator --judge: its Ollama caller and Python judge replaced, the call plays and passes', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-compat-sim-'));
    try {
      const flags = ['--simulator', `openai:persona@${server.url}`, '--judge', `openai:judge@${server.url}`];
      const run = await earshot([
        'run',
        join(SIMULATED, 'order_pizza.yaml'),
        '--url',
        pizzaBot.url,
        ...flags,
        '--out',
        out,
        '--reporter',
        'dot',
      ]).done;
      expect(run.code, run.stderr).toBe(0);
      const [result] = readResults(out);
      expect(result).toMatchObject({
        name: 'order_pizza/order_pizza',
        status: 'passed',
        simulation: { ended_by: 'end_call', success: { verdict: 'yes' } },
      });
      // Without --judge, the corpus's Python classifier refuses the run before it connects, in one located line.
      const refused = await earshot([
        'run',
        join(SIMULATED, 'order_pizza.yaml'),
        '--url',
        pizzaBot.url,
        '--simulator',
        `openai:persona@${server.url}`,
      ]).done;
      expect(refused.code).toBe(2);
      expect(refused.stderr).toMatch(
        /judge_text\.yaml:\d+:\d+: error: judge\.eval\.factory: .* --judge openai:MODEL\[@URL\] or --judge ollama:MODEL/,
      );
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
