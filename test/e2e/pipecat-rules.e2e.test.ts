import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../src/results/index.js';
import { loadScenarioFile, type Scenario } from '../../src/scenario/index.js';
import { runSession } from '../../src/drivers/index.js';
import { AudioEngine, type SessionOutcome } from '../../src/session/index.js';
import { judgeRules, startLlmServer, type LlmServer } from '../support/llm-server.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults } from '../suite/cli.testutil.js';

/**
 * Pipecat's newest rules (script.py, matcher.py, script_driver.py) end to end
 * against the reference bot in a subprocess, one scenario per rule, over real
 * sockets; the judge is the rule-based stand-in server, set as the session's
 * `judgeOverride` (what `--judge` sets) in place of the file's Python
 * classifier. The audio rules speak Flite into the bot at real-time pace.
 */
const HERE = resolve(import.meta.dirname, 'pipecat');
const scenarios = (file: string): Map<string, Scenario> =>
  new Map(loadScenarioFile(join(HERE, file)).scenarios.map((s) => [s.name.split('/')[1], s as Scenario]));

let bot: RefbotProcess;
let llm: LlmServer;
let engine: AudioEngine;
const cache = mkdtempSync(join(tmpdir(), 'earshot-pipecat-rules-'));
beforeAll(async () => {
  [bot, llm] = await Promise.all([
    startRefbotProcess(),
    startLlmServer(
      judgeRules([
        {
          when: ({ criterion, reply }) => criterion.includes('Japan') && /japan/i.test(reply),
          verdict: 'yes',
          reason: 'it talks about Japan',
        },
        {
          when: ({ criterion, call }) =>
            criterion.includes('San Francisco') && call?.includes('San Francisco') === true,
          verdict: 'yes',
          reason: 'the call asks for San Francisco',
        },
        { when: ({ call }) => call !== undefined, verdict: 'no', reason: 'the call asks for another city' },
      ]),
    ),
  ]);
  engine = new AudioEngine({ cacheDir: join(cache, 'tts') });
}, 30_000);
afterAll(async () => {
  await Promise.all([bot?.stop(), llm?.close(), engine?.close()]);
  rmSync(cache, { recursive: true, force: true });
});

async function run(scenario: Scenario | undefined, more: { judgeOverride?: string } = {}): Promise<SessionOutcome> {
  if (!scenario) throw new Error('no such scenario');
  return runSession(scenario, {
    url: bot.url,
    media: engine.media,
    noJudgeCache: true,
    judgeOverride: `openai:stand-in@${llm.url}`,
    ...more,
  });
}
const kinds = (r: ScenarioResult): string[] => r.failures.map((f) => f.kind);

describe("Pipecat's newest rules against the reference bot (text)", () => {
  const text = scenarios('text_rules.yaml');

  it('text_excludes: the held-back marker never reaches the reply; text_contains ignores spacing', async () => {
    const { result } = await run(text.get('text_excludes'));
    expect(result.status).toBe('passed');
    expect(result.turns[0].expectations[0].text).toBe('The capital of Germany is Berlin.');
    const present = (await run(text.get('text_present'))).result;
    expect(kinds(present)).toEqual(['text_present']);
    expect(present.failures[0].reason).toBe('text "The capital of Germany is Berlin." contains "Berlin"');
  }, 30_000);

  it('llm_marker: the bot is asked for markers, holds an incomplete turn open, then answers the completed thought', async () => {
    const { result, trace } = await run(text.get('llm_marker'));
    expect(result.status, trace).toBe('passed');
    expect(trace).toContain('send: eval-configure {"bot_llm_marker":true}');
    const markers = result.events!.filter((e) => e.name === 'llm_marker');
    // (The greeting, cut off by the first turn's text, never ended: it has no marker.)
    expect(markers.map((e) => ('kind' in e ? [e.kind, e.raw] : []))).toEqual([
      ['short', '◐'],
      ['complete', '● Japan is a wonderful choice. The food there is great.'],
    ]);
    // The held turn said nothing: its response is empty.
    expect(result.turns[0].expectations[1]).toMatchObject({ status: 'passed', text: '' });
    expect(result.turns[1].expectations[1]).toMatchObject({ status: 'passed', judge_reason: 'it talks about Japan' });
  }, 30_000);

  it('llm_marker: a marker of another kind fails marker_mismatch, a raw text of another shape marker_format', async () => {
    const mismatch = (await run(text.get('marker_mismatch'))).result;
    expect(kinds(mismatch)).toEqual(['marker_mismatch']);
    expect(mismatch.failures[0].reason).toBe('marker "◐" is short, expected complete');
    const format = (await run(text.get('marker_format'))).result;
    expect(kinds(format)).toEqual(['marker_format']);
    expect(format.failures[0].reason).toBe(
      'raw text starts with a marker, expected it not to: "● The capital of France is Paris."',
    );
  }, 30_000);

  it('a scenario that asserts no marker does not ask for them, and the bot sends none', async () => {
    const { result, trace } = await run(text.get('text_excludes'));
    expect(trace).not.toContain('bot_llm_marker');
    expect(result.events!.some((e) => e.name === 'llm_marker')).toBe(false);
  }, 30_000);

  it('eval: on function_call judges each matched call by name and arguments (report level full)', async () => {
    const { result, trace } = await run(text.get('function_call_eval'));
    expect(trace).toContain('"function_call_report_level":{"*":"full"}');
    expect(result.turns.map((t) => t.status)).toEqual(['passed', 'failed']);
    expect(kinds(result)).toEqual(['judge_no']);
    expect(result.failures[0].reason).toBe(
      'eval "asks for the weather in Boston" on get_current_weather(location="San Francisco"): judge said no — the call asks for another city',
    );
  }, 30_000);

  it('an image expectation is refused before connecting, located, as an error of the harness (not a timeout)', async () => {
    const { result, trace } = await run(text.get('generate_image'));
    expect(result.status).toBe('error');
    expect(kinds(result)).toEqual(['error']);
    expect(result.error).toMatch(/text_rules\.yaml:\d+:\d+: turns\[0\]\.expect\[0\]\.event: event 'image': /);
    expect(trace).not.toContain('connected');
  }, 30_000);

  it("a Python judge factory without --judge fails each eval: no_judge with the factory's located line", async () => {
    const { result } = await run(text.get('llm_marker'), { judgeOverride: undefined });
    expect(kinds(result)).toEqual(['no_judge']);
    expect(result.failures[0].reason).toMatch(
      /^scenario uses 'eval:' but no judge could be built: .*text_rules\.yaml:8:14: error: judge\.eval\.factory: evals\.judges\.typesafe_classifier is a Python callable/,
    );
  }, 30_000);

  it('a Python speech factory no --tts replaces is refused before connecting, with its located line', async () => {
    const [scenario] = loadScenarioFile(join(HERE, 'python_speech.yaml')).scenarios as Scenario[];
    const { result, trace } = await run(scenario);
    expect(result.status).toBe('error');
    expect(kinds(result)).toEqual(['error']);
    expect(result.error).toMatch(
      /python_speech\.yaml:3:\d+: error: user\.speech\.factory: evals\.voices\.my_voice is a Python callable .*--tts NAME$/,
    );
    expect(trace).not.toContain('connected');
  }, 30_000);

  it("results carry Pipecat's names: scenario_name, passed, turns[].turn_index, failures and timing", async () => {
    const { result } = await run(text.get('llm_marker'));
    expect(result).toMatchObject({ scenario_name: 'text_rules/llm_marker', passed: true });
    const turn = result.turns[1];
    expect(turn).toMatchObject({ turn_index: 1, failures: [] });
    expect(turn.timing).toMatchObject({
      input_duration_ms: 0,
      function_call_ms: null,
      bot_started_speaking_ms: null,
      voice_to_voice_ms: null,
    });
    expect(turn.timing!.llm_started_ms).toBeGreaterThanOrEqual(0);
    expect(turn.timing!.first_token_ms).toBeGreaterThanOrEqual(turn.timing!.llm_started_ms!);
    expect(turn.timing!.llm_response_ms).toBeGreaterThanOrEqual(turn.timing!.first_token_ms!);
    expect(turn.timing!.bot_metrics.map((m) => m.processor)).toContain('RefbotLLMService#0');
  }, 30_000);

  it('--judge on earshot run replaces the file judge (the flag is checked up front)', async () => {
    const out = mkdtempSync(join(cache, 'run-'));
    const file = join(HERE, 'judge_flag.yaml');
    const ok = await earshot([
      'run',
      file,
      '--url',
      bot.url,
      '--out',
      out,
      '--reporter',
      'dot',
      '--no-judge-cache',
      '--judge',
      `openai:stand-in@${llm.url}`,
    ]).done;
    expect(readResults(out).map((r) => [r.name, r.status])).toEqual([['judge_flag', 'passed']]);
    expect(ok.code).toBe(0);
    const bad = await earshot(['run', file, '--url', bot.url, '--out', out, '--judge', 'typesafe:jev']).done;
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain(
      "option '--judge <service:model[@url]>' argument 'typesafe:jev' is invalid. unknown service 'typesafe'",
    );
  }, 60_000);
});

describe('judge.eval blocks against the reference bot', () => {
  it('allow_continue: false, a failed judge call asked once more, and the explainer giving the reason for a no', async () => {
    const explainer = await startLlmServer(
      judgeRules([], { verdict: 'no', reason: 'the reply names Berlin, not Paris' }),
    );
    const judge = await startLlmServer();
    let asked = 0;
    judge.respond(() => (asked++ === 0 ? 'I cannot tell' : JSON.stringify({ verdict: 'no', reason: 'wrong city' })));
    try {
      const dir = mkdtempSync(join(cache, 'blocks-'));
      const file = join(dir, 'blocks.yaml');
      writeFileSync(join(dir, 'package.json'), '{}\n');
      writeFileSync(
        file,
        [
          'name: blocks',
          'judge:',
          `  eval: {service: openai, model: judge, endpoint: "${judge.url}", allow_continue: false, explainer: {service: openai, model: explainer, endpoint: "${explainer.url}"}}`,
          'turns:',
          '  - user: "What is the capital of Germany?"',
          '    expect: [{event: llm_response, eval: "says the capital is Paris"}]',
          '',
        ].join('\n'),
      );
      const [scenario] = loadScenarioFile(file).scenarios as Scenario[];
      const { result } = await runSession(scenario, { url: bot.url, noJudgeCache: true, env: {} });
      expect(kinds(result)).toEqual(['judge_no']);
      expect(result.failures[0].reason).toContain('judge said no: the reply names Berlin, not Paris (wrong city)');
      expect(judge.requests).toHaveLength(2);
      expect(judge.requests[0].body.messages[0].content).not.toContain('"continue"');
      expect(explainer.requests).toHaveLength(1);
    } finally {
      await Promise.all([judge.close(), explainer.close()]);
    }
  }, 30_000);
});

describe("Pipecat's newest rules against the reference bot (audio)", () => {
  const audio = scenarios('audio_rules.yaml');

  it('vad_user_*_speaking: asked for with eval-configure, usable in expect and as a send_after anchor', async () => {
    const { result, trace } = await run(audio.get('vad_events'));
    expect(result.status, trace).toBe('passed');
    expect(trace).toContain('send: eval-configure {"vad_user_speaking":true,"bot_llm_marker":true}');
    expect(trace).toContain("send_after: waiting for 'vad_user_stopped_speaking' + 1500ms");
  }, 90_000);

  it('a turn waits for the bot to finish speaking before it sends; an observing turn lets the previous reply end', async () => {
    const { result, trace } = await run(audio.get('bot_quiet'));
    expect(result.status, trace).toBe('passed');
    expect(trace.match(/send: waiting for the bot to finish speaking/g)?.length).toBeGreaterThanOrEqual(2);
    expect(trace).toContain('observe: waiting for the bot to finish the previous reply');
    // Each question went out only after the bot's report that it stopped speaking the reply before.
    const stops = result.events!.filter((e) => e.name === 'bot_stopped_speaking').map((e) => e.at_ms);
    for (const turn of result.turns.slice(1, 3)) {
      const prevStop = stops.filter((t) => t <= turn.started_at_ms!).at(-1);
      expect(prevStop, `turn ${turn.index}`).toBeDefined();
      const started = result
        .events!.filter((e) => e.name === 'bot_started_speaking' && e.at_ms < turn.started_at_ms!)
        .at(-1)!.at_ms;
      expect(prevStop!).toBeGreaterThan(started);
    }
  }, 90_000);
});
