import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RunSummary } from '../../src/results/index.js';
import { DEFAULT_STOP_TIMEOUT_MS } from '../../src/runner/index.js';
import { CALIBRATION_BRAIN, PAUSE_BARGE_IN_AFTER_MS } from '../../src/tools/calibrate/scenario.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults } from '../suite/cli.testutil.js';

/**
 * earshot against bots as Pipecat builds them, end to end: the real CLI in a
 * subprocess, the reference bot in another, real sockets and real audio. The
 * protobuf wire (Pipecat's production WebSocket transport) cannot carry the
 * eval-* controls, so what needs them is refused up front, at the field; RTVI's
 * own disconnect-bot ends a bot; a bot without RTVI is tested from its audio;
 * and a barge-in that begins in the pause between two sentences is measured as
 * one, against the bot's ground truth.
 */
const dir = mkdtempSync(join(tmpdir(), 'earshot-wires-'));
const out = (name: string): string => mkdtempSync(join(dir, `${name}-`));
const file = (name: string, text: string): string => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const lines = (path: string): Array<Record<string, unknown>> =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l) as Record<string, unknown>);
writeFileSync(join(dir, 'package.json'), '{}\n');

const SHORT_BRAIN_TEXT = `greeting: Hello.
fallback: Sorry, I did not catch that.
rules:
  - name: capital-japan
    when: { all: [capital, japan] }
    reply: The capital of Japan is the city of Tokyo.
`;
const SHORT_BRAIN = file('brain.yaml', SHORT_BRAIN_TEXT);

describe('the protobuf wire: what it cannot carry is refused up front', () => {
  let bot: RefbotProcess;
  const truth = join(dir, 'pb-truth.jsonl');
  beforeAll(async () => {
    bot = await startRefbotProcess(['-q', '--wire', 'protobuf', '--truth-log', truth]);
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it('a scenario with context: ends before its first turn with a located error (the bot cannot take it), and no turn runs', async () => {
    const o = out('ctx');
    const run = await earshot([
      'run',
      'scenarios/text/context_seeding.yaml',
      '--wire',
      'protobuf',
      '--url',
      bot.url,
      '--out',
      o,
      '--reporter',
      'dot',
    ]).done;
    expect(run.code).toBe(1);
    const [r] = readResults(o);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(
      /scenarios\/text\/context_seeding\.yaml:5:3: error: context: the protobuf wire cannot seed the bot's context: eval-context is read only by Pipecat's eval transport/,
    );
    expect(r.error).toContain('this bot (earshot-refbot) does not read append-to-context');
    expect(r.turns.map((t) => t.status)).toEqual(['not_run']);
    expect(r.failures).toEqual([]);
  }, 60_000);

  it('a call check the bot does not report at its level is refused before connecting; one the bot enables itself passes', async () => {
    const before = lines(truth).filter((l) => l.event === 'connection_open').length;
    const o = out('calls');
    const run = await earshot([
      'run',
      'scenarios/text/weather_function_call.yaml',
      '--wire',
      'protobuf',
      '--url',
      bot.url,
      '--out',
      o,
    ]).done;
    expect(run.code).toBe(1);
    const [r] = readResults(o);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(
      /weather_function_call\.yaml:\d+:\d+: error: turns\[1\]\.expect\[0\]: needs the bot to report function calls at level 'full'.*--bot-report-level full/,
    );
    // Up front: the bot never saw a connection.
    expect(lines(truth).filter((l) => l.event === 'connection_open').length).toBe(before);

    const full = await startRefbotProcess(['-q', '--wire', 'protobuf', '--report-level', 'full']);
    try {
      const ok = out('calls-full');
      const pass = await earshot([
        'run',
        'scenarios/text/weather_function_call.yaml',
        '--wire',
        'protobuf',
        '--bot-report-level',
        'full',
        '--url',
        full.url,
        '--out',
        ok,
      ]).done;
      expect(readResults(ok).map((x) => x.status)).toEqual(['passed']);
      expect(pass.code).toBe(0);
    } finally {
      await full.stop();
    }
  }, 60_000);

  it('llm_marker expectations are refused up front on protobuf; a bot that reports markers itself (--bot-llm-markers) passes them', async () => {
    const brain = file('marker-brain.yaml', `${SHORT_BRAIN_TEXT}turn_completion: true\n`);
    const scenario = file(
      'marked.yaml',
      `name: marked
turns:
  - user: "What is the capital of Japan?"
    expect:
      - event: llm_marker
        marker: complete
        text_after: true
      - event: llm_response
        text_contains: Tokyo
`,
    );
    const refused = out('markers-refused');
    expect((await earshot(['run', scenario, '--wire', 'protobuf', '--url', bot.url, '--out', refused]).done).code).toBe(
      1,
    );
    const [r] = readResults(refused);
    expect(r.status).toBe('error');
    expect(r.error).toMatch(
      /marked\.yaml:5:16: error: turns\[0\]\.expect\[0\]\.event: the bot reports its LLM's markers only when they are turned on.*--bot-llm-markers/,
    );

    const marking = await startRefbotProcess(['-q', '--wire', 'protobuf', '--brain', brain, '--llm-markers']);
    try {
      const ok = out('markers');
      const pass = await earshot([
        'run',
        scenario,
        '--wire',
        'protobuf',
        '--bot-llm-markers',
        '--url',
        marking.url,
        '--out',
        ok,
      ]).done;
      expect(readResults(ok).map((x) => ({ status: x.status, failures: x.failures }))).toEqual([
        { status: 'passed', failures: [] },
      ]);
      expect(pass.code).toBe(0);
    } finally {
      await marking.stop();
    }
  }, 60_000);

  it('a call that arrives without its name fails as function_call_unnamed, saying how to raise the level in the bot', async () => {
    // The bot reports at Pipecat's default level (none), though the run claims more.
    const o = out('unnamed');
    await earshot([
      'run',
      'scenarios/text/weather_function_call.yaml',
      '--wire',
      'protobuf',
      '--bot-report-level',
      'full',
      '--timeout',
      '5',
      '--url',
      bot.url,
      '--out',
      o,
    ]).done;
    const [r] = readResults(o);
    expect(r.status).toBe('failed');
    // Both call checks (function_call and function_call_stopped) say why; the turn's one budget (--timeout 5) is spent by then.
    expect(r.failures.map((f) => f.kind).slice(0, 2)).toEqual(['function_call_unnamed', 'function_call_unnamed']);
    expect(r.failures[0].reason).toContain(
      'RTVIObserverParams(function_call_report_level={"*": RTVIFunctionCallReportLevel.FULL})',
    );
  }, 60_000);

  it('when the bot ends with its client, the next scenario of a run is refused with a hint at earshot suite', async () => {
    const leaving = await startRefbotProcess(['-q', '--wire', 'protobuf', '--exit-on-disconnect']);
    try {
      const o = out('leaves');
      await earshot([
        'run',
        'scenarios/text/capital_question.yaml',
        'scenarios/text/dtmf_menu.yaml',
        '--wire',
        'protobuf',
        '--url',
        leaving.url,
        '--connect-timeout',
        '2',
        '--out',
        o,
      ]).done;
      const [first, second] = readResults(o);
      expect(first.status).toBe('passed');
      expect(second.failures.map((f) => f.kind)).toEqual(['connect_failed']);
      expect(second.failures[0].reason).toMatch(
        /accepted the previous scenario's connection and refuses this one: it probably ended when that client disconnected.*`earshot suite`/,
      );
    } finally {
      await leaving.stop();
    }
  }, 60_000);
});

describe('earshot suite on the protobuf wire: RTVI disconnect-bot ends each bot', () => {
  it('the bot exits by itself when the scenario ends, so no run waits out the stop timeout for SIGTERM', async () => {
    const manifest = file(
      'suite.yaml',
      `spawn: earshot refbot --port {port} --wire protobuf
scenarios_dir: ${join(process.cwd(), 'scenarios', 'text')}
suite:
  - bot: refbot
    scenarios: [capital_question, dtmf_menu]
`,
    );
    const o = out('suite');
    const run = await earshot(['suite', manifest, '--wire', 'protobuf', '-c', '1', '--out', o, '--reporter', 'dot'])
      .done;
    expect(run.code).toBe(0);
    const summary = JSON.parse(readFileSync(join(o, 'summary.json'), 'utf8')) as RunSummary;
    const results = readResults(o);
    expect(results.map((r) => r.status)).toEqual(['passed', 'passed']);
    for (const r of results) {
      const trace = readFileSync(join(o, r.artifacts!.trace!), 'utf8');
      expect(trace).toContain('send: disconnect-bot');
      const stop = /bot: exited with code 0 (\d+) ms after the session ended/.exec(trace);
      expect(stop, trace.split('\n').slice(-3).join('\n')).not.toBeNull();
      expect(Number(stop![1])).toBeLessThan(3000);
    }
    // Both runs together take less than one stop timeout: SIGTERM after 10 s each is gone.
    expect(summary.wall_ms).toBeLessThan(DEFAULT_STOP_TIMEOUT_MS);
  }, 90_000);
});

describe('a bot without RTVI (--handshake none)', () => {
  it('passes an audio scenario against a reference bot started without RTVI: responses come from its transcribed audio', async () => {
    const bot = await startRefbotProcess(['-q', '--wire', 'protobuf', '--no-rtvi', '--brain', SHORT_BRAIN]);
    try {
      const scenario = file(
        'no-rtvi.yaml',
        `name: no_rtvi_audio
user: { modality: audio, speech: { service: flite, voice: slt } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - expect:
      - event: response
        text_contains: hello
        within_ms: 15000
  - user: "What is the capital of Japan?"
    expect:
      - event: bot_audio_started
        within_ms: 15000
      - event: response
        text_contains: tokyo
        within_ms: 20000
    # The bundled scenarios' bound: the bot answers in ~2 s; the rest is room for a busy machine.
    latency: { voice_to_voice_ms: { max: 6000 } }
`,
      );
      const o = out('no-rtvi');
      const run = await earshot([
        'run',
        scenario,
        '--wire',
        'protobuf',
        '--handshake',
        'none',
        '--url',
        bot.url,
        '--out',
        o,
      ]).done;
      const [r] = readResults(o);
      expect({ status: r.status, failures: r.failures, error: r.error }).toEqual({
        status: 'passed',
        failures: [],
        error: undefined,
      });
      expect(r.turns[1].metrics?.voice_to_voice_ms).toBeGreaterThan(0);
      expect(r.events?.some((e) => e.name === 'bot_ready')).toBe(false);
      expect(run.code).toBe(0);
      // Against the same bot, the RTVI handshake has nothing to wait for.
      const o2 = out('no-rtvi-handshake');
      await earshot(['run', scenario, '--wire', 'protobuf', '--url', bot.url, '--handshake-timeout', '2', '--out', o2])
        .done;
      expect(readResults(o2)[0].failures.map((f) => f.kind)).toEqual(['handshake_timeout']);
    } finally {
      await bot.stop();
    }
  }, 120_000);
});

describe('usage errors for settings that cannot apply', () => {
  it('--stop-bot with --handshake none: a bot without RTVI cannot be asked to stop (exit 2, one line)', async () => {
    const run = await earshot([
      'run',
      'scenarios/audio/capital_question.yaml',
      '--wire',
      'protobuf',
      '--handshake',
      'none',
      '--stop-bot',
      '--url',
      'ws://127.0.0.1:9',
    ]).done;
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--stop-bot: a bot without RTVI (--handshake none) cannot be asked to stop');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});

describe('a barge-in that starts in a pause between sentences', () => {
  const truth = join(dir, 'gap-truth.jsonl');
  const brain = file('story-brain.yaml', CALIBRATION_BRAIN);
  // The calibration's timing: the caller starts ~150 ms into the pause after the story's first sentence.
  const scenario = file(
    'pause.yaml',
    `name: barge_in_pause
user: { modality: audio, speech: { service: flite, voice: slt, sample_rate: 16000 } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - expect: [{ event: bot_audio_stopped, within_ms: 20000 }]
  - user: "Please tell me a story."
    expect: [{ event: bot_audio_started, within_ms: 20000 }]
  - user: "What is the capital of Germany?"
    send_after: { event: bot_audio_started, delay_ms: ${PAUSE_BARGE_IN_AFTER_MS} }
    expect:
      - event: bot_interrupted
        within_ms: 5000
    latency: { interruption_ms: { max: 1000 } }
`,
  );
  let bot: RefbotProcess;
  beforeAll(async () => {
    bot = await startRefbotProcess([
      '-q',
      '--wire',
      'protobuf',
      '--sentence-gap-ms',
      '400',
      '--brain',
      brain,
      '--truth-log',
      truth,
    ]);
  });
  afterAll(async () => {
    await bot?.stop();
  });

  it("is measured as a barge-in, to the end of the bot's audio, within 10 ms of the bot's own truth", async () => {
    const o = out('pause');
    const run = await earshot(['run', scenario, '--wire', 'protobuf', '--url', bot.url, '--out', o]).done;
    const [r] = readResults(o);
    expect({ status: r.status, failures: r.failures }).toEqual({ status: 'passed', failures: [] });
    expect(run.code).toBe(0);
    const stops = lines(truth).filter((l) => l.event === 'bot_audio_stopped' && l.reason === 'barge_in');
    expect(stops).toHaveLength(1);
    // The bot stopped in the pause: nothing audible followed the caller's onset.
    expect(stops[0].in_pause).toBe(true);
    const measured = r.turns[2].metrics?.interruption_ms;
    expect(measured).toBeGreaterThan(0);
    expect(Math.abs(measured! - (stops[0].interruption_ms as number))).toBeLessThan(10);
    expect(r.turns[2].metrics?.yielded).toBe(true);
  }, 90_000);

  it('is not a barge-in when pauses are not bridged (--barge-in-gap-ms 0): the latency bound cannot be measured', async () => {
    const o = out('pause-unbridged');
    await earshot(['run', scenario, '--wire', 'protobuf', '--barge-in-gap-ms', '0', '--url', bot.url, '--out', o]).done;
    const [r] = readResults(o);
    expect(r.failures.map((f) => f.kind)).toEqual(['latency_exceeded']);
    expect(r.failures[0].reason).toContain('not a barge-in');
  }, 90_000);
});
