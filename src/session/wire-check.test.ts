import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic, loadSimulation, type NemoSpec, SuccessSignal } from '../scenario/index.js';
import { ScenarioFiles } from './media/scenario.testutil.js';
import { appendToContextProblem, checkWire, gaiaCallsVisible, readsAppendToContext } from './wire-check.js';
import { DEFAULT_SCORECARD_WEIGHTS, type Scenario } from '../scenario/index.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

const WEATHER = `name: weather
turns:
  - user: "What is the weather in Paris?"
    expect:
      - event: llm_response
      - event: function_call
        name: get_current_weather
`;

const EVERYTHING = `name: everything
context:
  - role: system
    content: Be terse.
turns:
  - user: "Hello"
    image: pic.png
    expect:
      - event: vad_user_started_speaking
      - event: function_call
        args: { location: "Paris" }
`;

const lines = (problems: ReturnType<typeof checkWire>['problems']): string[] =>
  problems.map((d) => formatDiagnostic(d));

describe('checkWire: what each wire carries', () => {
  it('on the eval wire, asks for what the scenario needs with eval-configure and seeds the context with eval-context', async () => {
    files.write('pic.png', 'not really a png');
    const s = await files.load(EVERYTHING, 'eval.yaml');
    const check = checkWire(s, { codec: 'pipecat-eval', handshake: 'rtvi' });
    expect(check.problems).toEqual([]);
    expect(check.plan).toEqual({
      configure: { function_call_report_level: { '*': 'full' }, vad_user_speaking: true },
      context: 'eval-context',
      stop: 'eval-cancel',
      documents: 'none',
    });
  });

  it('on protobuf, refuses each need the wire cannot serve at the field that needs it, saying what to do instead', async () => {
    files.write('pic.png', 'not really a png');
    const s = await files.load(EVERYTHING, 'pb.yaml');
    const check = checkWire(s, { codec: 'protobuf', handshake: 'rtvi' });
    const out = lines(check.problems);
    expect(out).toHaveLength(3);
    expect(out[0]).toMatch(
      /pb\.yaml:10:9: error: turns\[0\]\.expect\[1\]: needs the bot to report function calls at level 'full'.*eval-configure is read only by Pipecat's eval transport.*--bot-report-level full/,
    );
    expect(out[1]).toMatch(
      /pb\.yaml:9:16: error: turns\[0\]\.expect\[0\]\.event: raw VAD events are off.*vad_user_speaking_enabled=True.*--bot-vad-events/,
    );
    expect(out[2]).toMatch(/pb\.yaml:7:12: error: turns\[0\]\.image: the protobuf wire cannot register an image/);
    // The context is decided once the bot says who it is (append-to-context, where it still reads it); RTVI's disconnect-bot stops it.
    expect(check.plan).toEqual({
      configure: null,
      context: 'append-to-context',
      stop: 'disconnect-bot',
      documents: 'none',
    });
  });

  it('on protobuf, runs what the bot enables itself (--bot-report-level, --bot-vad-events), and no lower', async () => {
    const s = await files.load(WEATHER, 'weather.yaml');
    expect(lines(checkWire(s, { codec: 'protobuf', handshake: 'rtvi' }).problems)).toEqual([
      expect.stringMatching(
        /weather\.yaml:6:9: error: turns\[0\]\.expect\[1\]: needs the bot to report function calls at level 'name'/,
      ),
    ]);
    expect(checkWire(s, { codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'name' } }).problems).toEqual([]);
    expect(checkWire(s, { codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'full' } }).problems).toEqual([]);
    expect(
      lines(checkWire(s, { codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'none' } }).problems)[0],
    ).toContain('(--bot-report-level none is not enough)');
  });

  it("asks for the LLM's markers on the eval wire; on protobuf, refuses them at the field unless the bot reports them itself (--bot-llm-markers)", async () => {
    const s = await files.load(
      `name: marked
turns:
  - user: "Hello"
    expect:
      - event: llm_marker
        marker: complete
`,
      'marked.yaml',
    );
    expect(checkWire(s, { codec: 'pipecat-eval', handshake: 'rtvi' }).plan.configure).toEqual({ bot_llm_marker: true });
    expect(lines(checkWire(s, { codec: 'protobuf', handshake: 'rtvi' }).problems)).toEqual([
      expect.stringMatching(
        /marked\.yaml:5:16: error: turns\[0\]\.expect\[0\]\.event: the bot reports its LLM's markers only when they are turned on.*bot_llm_marker_enabled=True.*--bot-llm-markers/,
      ),
    ]);
    expect(checkWire(s, { codec: 'protobuf', handshake: 'rtvi', bot: { llmMarkers: true } })).toEqual({
      plan: { configure: null, context: 'none', stop: 'disconnect-bot', documents: 'none' },
      problems: [],
    });
  });

  it("a NeMo simulation that needs the bot's state cannot run on a bot without RTVI: a located error", async () => {
    const sim = await loadSimulation(
      files.write(
        'nemo-sim.yaml',
        `name: restaurant__pizza
persona: A caller who wants a pizza.
goal: Order a pepperoni pizza.
success: The bot places the order.
`,
      ),
    );
    const side = { persona: { role: 'x' }, task: { goal: 'y' }, actions: {}, resources: {} };
    const nemo: NemoSpec = {
      name: 'restaurant__pizza',
      domain: 'restaurant',
      user: side,
      agent: side,
      success_signals: [SuccessSignal.DB_STATE_MATCH, SuccessSignal.CLEAN_EXIT],
      expected_scenario_db: { orders: [] },
      shared_state_init: { user: {}, agent: { db_path: 'restaurant/db.json' } },
      normalization: {
        ignore_capitalization: false,
        ignore_punctuation: false,
        clean_text: false,
        disallow_extra_items: false,
      },
      action_source: 'summary',
      max_duration_s: 300,
      custom_verdict: false,
    };
    const stateful = { ...sim, nemo };
    const bare = lines(checkWire(stateful, { codec: 'protobuf', handshake: 'none' }).problems);
    expect(bare).toEqual([
      expect.stringMatching(/judge\.modality/),
      expect.stringMatching(
        /nemo-sim\.yaml:\d+:\d+: error: success_signals: needs the bot's scenario state \(DB_STATE_MATCH reads the db_hash\), and a bot without RTVI/,
      ),
      expect.stringMatching(/user\.modality/),
    ]);
    expect(
      checkWire(stateful, { codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'full' } }).problems,
    ).toEqual([]);
    const judged = {
      ...sim,
      nemo: { ...nemo, success_signals: [SuccessSignal.JUDGE_PASSED], shared_state_init: { user: {}, agent: {} } },
    };
    const judgedBare = lines(checkWire(judged, { codec: 'protobuf', handshake: 'none' }).problems);
    expect(judgedBare).toHaveLength(2);
    expect(judgedBare.some((l) => l.includes('scenario state'))).toBe(false);
  });

  it('a simulation: its judge reads every call, so protobuf needs --bot-report-level full; without RTVI the caller must speak', async () => {
    const sim = await loadSimulation(
      files.write(
        'sim.yaml',
        `name: booking
persona: A caller who wants a table.
goal: Book a table for two.
success: The bot books a table.
`,
      ),
    );
    expect(checkWire(sim, { codec: 'pipecat-eval', handshake: 'rtvi' })).toEqual({
      plan: {
        configure: { function_call_report_level: { '*': 'full' } },
        context: 'none',
        stop: 'eval-cancel',
        documents: 'none',
      },
      problems: [],
    });
    expect(lines(checkWire(sim, { codec: 'protobuf', handshake: 'rtvi' }).problems)).toEqual([
      expect.stringMatching(
        /sim\.yaml:\d+:\d+: error: persona: needs the bot to report function calls at level 'full'/,
      ),
    ]);
    expect(checkWire(sim, { codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'full' } }).problems).toEqual([]);
    expect(lines(checkWire(sim, { codec: 'protobuf', handshake: 'none' }).problems)).toEqual([
      expect.stringMatching(/error: judge\.modality: a bot without RTVI/),
      expect.stringMatching(
        /error: user\.modality: a bot without RTVI \(--handshake none\) cannot take typed text: the simulated caller must speak/,
      ),
    ]);
  });

  it('decides append-to-context from bot-ready: Pipecat before 1.0 reads it, later ones and other bots do not', async () => {
    expect(readsAppendToContext({ library: 'pipecat-ai', library_version: '0.0.98' })).toBe(true);
    expect(readsAppendToContext({ library: 'pipecat-ai', library_version: '1.2.0' })).toBe(false);
    expect(readsAppendToContext({ library: 'earshot-refbot' })).toBe(false);
    expect(readsAppendToContext(undefined)).toBe(false);
    const s = await files.load(EVERYTHING.replace('    image: pic.png\n', ''), 'ctx.yaml');
    expect(appendToContextProblem(s, 'protobuf', { library: 'pipecat-ai', library_version: '0.0.90' })).toBeNull();
    const problem = appendToContextProblem(s, 'protobuf', { library: 'pipecat-ai', library_version: '1.1.0' });
    expect(problem && formatDiagnostic(problem)).toMatch(
      /ctx\.yaml:3:3: error: context: the protobuf wire cannot seed the bot's context: eval-context is read only by Pipecat's eval transport.*this bot \(pipecat-ai 1\.1\.0\) does not read append-to-context/,
    );
  });
});

describe('checkWire: a bot without RTVI (--handshake none)', () => {
  it('takes spoken turns and audio expectations, and never asks anything of the bot', async () => {
    const s = await files.load(`name: spoken
user: { modality: audio, speech: { service: flite, voice: slt } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - expect: [{ event: response }]
  - user: "What is the capital of Japan?"
    expect:
      - event: bot_audio_started
      - event: response
        text_contains: tokyo
    latency: { voice_to_voice_ms: { max: 4000 } }
`);
    expect(checkWire(s, { codec: 'protobuf', handshake: 'none' })).toEqual({
      plan: { configure: null, context: 'none', stop: 'none', documents: 'none' },
      problems: [],
    });
  });

  it('refuses what needs RTVI, each at its field: typed text, keys, RTVI events, RTVI-timed metrics, a text judge, the eval wire', async () => {
    const s = await files.load(
      `name: typed
turns:
  - user: "Hello"
    expect: [{ event: llm_response }]
  - dtmf: "1"
    send_after: { event: bot_stopped_speaking }
    expect: [{ event: bot_audio_started }]
    latency: { llm_ttfb_ms: { max: 900 } }
`,
      'typed.yaml',
    );
    const out = lines(checkWire(s, { codec: 'pipecat-eval', handshake: 'none' }).problems);
    expect(out[0]).toMatch(
      /typed\.yaml:1:1: error: --handshake none needs a wire whose audio frames stand without RTVI \(--wire protobuf\)/,
    );
    expect(out.slice(1)).toEqual([
      expect.stringMatching(
        /typed\.yaml:1:1: error: judge\.modality: a bot without RTVI \(--handshake none\) is judged from its audio/,
      ),
      expect.stringMatching(
        /typed\.yaml:3:11: error: turns\[0\]\.user: a bot without RTVI \(--handshake none\) cannot take typed text/,
      ),
      expect.stringMatching(
        /typed\.yaml:4:23: error: turns\[0\]\.expect\[0\]\.event: 'llm_response' is an RTVI report/,
      ),
      expect.stringMatching(/typed\.yaml:5:11: error: turns\[1\]\.dtmf: keypad input is an RTVI message/),
      expect.stringMatching(
        /typed\.yaml:6:26: error: turns\[1\]\.send_after\.event: 'bot_stopped_speaking' is an RTVI report/,
      ),
      expect.stringMatching(
        /typed\.yaml:8:29: error: turns\[1\]\.latency\.llm_ttfb_ms: llm_ttfb_ms is measured from the bot's RTVI reports/,
      ),
    ]);
  });
});

/** A scripted scenario with a GAIA block (as a GAIA file loads), listing `documents` documents. */
async function gaia(documents: number, name: string): Promise<Scenario> {
  const s = await files.load('name: g\nturns:\n  - user: "What was Q3 revenue?"\n', name);
  const ref = { corpus_doc: 'acme', path: files.path('acme.md'), written_path: 'acme.md' };
  return {
    ...s,
    gaia: {
      id: 'g',
      persona: { name: 'power_user', description: 'Precise requests', builtin: true },
      documents: Array.from({ length: documents }, () => ref),
      turns: [{ turn: 1, objective: 'Ask', user_message: 'What was Q3 revenue?', within_ms: 60_000 }],
      simulator: { service: 'ollama' },
      scoring: { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 },
    },
  };
}

describe('checkWire: GAIA scenarios', () => {
  it('ask for calls at full where the wire can, and are not refused where it cannot: tool dimensions are n/a', async () => {
    const s = await gaia(0, 'gaia-calls.yaml');
    expect(checkWire(s, { codec: 'pipecat-eval', handshake: 'rtvi' }).plan.configure).toEqual({
      function_call_report_level: { '*': 'full' },
    });
    expect(checkWire(s, { codec: 'protobuf', handshake: 'rtvi' })).toMatchObject({
      problems: [],
      plan: { configure: null },
    });
    expect(gaiaCallsVisible({ codec: 'pipecat-eval', handshake: 'rtvi' })).toBe(true);
    expect(gaiaCallsVisible({ codec: 'protobuf', handshake: 'rtvi' })).toBe(false);
    expect(gaiaCallsVisible({ codec: 'protobuf', handshake: 'rtvi', bot: { reportLevel: 'name' } })).toBe(true);
    expect(gaiaCallsVisible({ codec: 'protobuf', handshake: 'none', bot: { reportLevel: 'full' } })).toBe(false);
  });

  it('send documents by message wherever RTVI is, by context only on the eval wire, and refuse where no way works', async () => {
    const s = await gaia(1, 'gaia-docs.yaml');
    expect(checkWire(s, { codec: 'protobuf', handshake: 'rtvi' }).plan.documents).toBe('message');
    const context = checkWire(s, { codec: 'pipecat-eval', handshake: 'rtvi', documentsVia: 'context' });
    expect(context.plan).toMatchObject({ documents: 'context', context: 'eval-context' });
    const onProtobuf = lines(checkWire(s, { codec: 'protobuf', handshake: 'rtvi', documentsVia: 'context' }).problems);
    expect(onProtobuf).toEqual([
      expect.stringMatching(
        /gaia-docs\.yaml:\d+:\d+: error: setup\.index_documents: --documents-via context .*eval-context/,
      ),
    ]);
    const bare = lines(checkWire(s, { codec: 'protobuf', handshake: 'none' }).problems);
    expect(bare.filter((l) => l.includes('setup.index_documents'))).toEqual([
      expect.stringMatching(
        /cannot be sent them: give each run a bot started with them \(earshot suite, \{documents\}/,
      ),
    ]);
    expect(checkWire(s, { codec: 'protobuf', handshake: 'none', documentsVia: 'spawn' }).plan.documents).toBe('spawn');
    expect(checkWire(await gaia(0, 'gaia-none.yaml'), { codec: 'protobuf', handshake: 'none' }).plan.documents).toBe(
      'none',
    );
  });
});
