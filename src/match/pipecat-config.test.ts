import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redactor } from '../core/redact.js';
import { UsageError } from '../core/errors.js';
import { loadScenario, parseLlmOverride, type Scenario } from '../scenario/index.js';
import { TempProject } from '../scenario/scenario.testutil.js';
import { startLlmServer, verdictContent, type LlmServer } from '../../test/support/llm-server.js';
import { evalConfigure, needsMarkerEvents, requiredReportLevel } from '../session/scenario-needs.js';
import { buildJudge, type BuildJudgeOptions } from './judge-port.js';
import { codeRefusal, unobservableExpectation } from '../session/preconditions.js';
import { EventTranslator } from '../events/index.js';

/**
 * What a session asks of the bot and refuses before it connects, for the
 * newest Pipecat files: markers, judged calls, the judge override, factories.
 */
const project = new TempProject();
let llm: LlmServer;
beforeAll(async () => {
  llm = await startLlmServer();
});
afterAll(async () => {
  await llm.close();
  project.cleanup();
});

let n = 0;
async function scenario(body: string): Promise<Scenario> {
  return loadScenario(project.write(`s${n++}.yaml`, `name: s\nscenarios:\n  - name: one\n${body}`));
}
const judgeOptions = (more: { allowCode?: boolean; judgeOverride?: string } = {}): BuildJudgeOptions => ({
  redactor: new Redactor({}),
  trace: () => undefined,
  judge: {
    override: more.judgeOverride === undefined ? null : parseLlmOverride('--judge', more.judgeOverride),
    cacheDir: undefined,
    cache: false,
  },
  allowCode: more.allowCode === true,
  env: {},
});
/** What the session's precondition reads of its settings. */
const refusalSettings = (more: { allowCode?: boolean; judgeOverride?: string } = {}) => ({
  allowCode: more.allowCode === true,
  judge: { override: more.judgeOverride === undefined ? null : parseLlmOverride('--judge', more.judgeOverride) },
});

describe('eval-configure for the newest events', () => {
  it('llm_marker asks the bot to report markers (bot_llm_marker), as does a send_after on one', async () => {
    const marked = await scenario(
      '    turns:\n      - user: hi\n        expect: [{event: llm_marker, marker: complete}]\n',
    );
    expect(needsMarkerEvents(marked)).toBe(true);
    expect(evalConfigure(marked)).toEqual({ bot_llm_marker: true });
    const anchored = await scenario(
      '    turns:\n      - user: hi\n      - user: more\n        send_after: {event: llm_marker}\n',
    );
    expect(evalConfigure(anchored)).toEqual({ bot_llm_marker: true });
    const plain = await scenario('    turns:\n      - user: hi\n        expect: [{event: llm_response}]\n');
    expect(evalConfigure(plain)).toBeNull();
  });

  it('vad_user_*_speaking in expect or send_after asks for the raw VAD events', async () => {
    const vad = await scenario(
      '    turns:\n      - user: hi\n        expect: [{event: vad_user_stopped_speaking}]\n      - user: more\n        send_after: {event: vad_user_stopped_speaking, delay_ms: 3000}\n',
    );
    expect(evalConfigure(vad)).toEqual({ vad_user_speaking: true });
  });

  it('eval: on function_call raises the report level to full (the judge reads the arguments)', async () => {
    const judged = await scenario(
      '    turns:\n      - user: book it\n        expect: [{event: function_call, calls: [{name: submit}], eval: for Jennifer}]\n',
    );
    expect(requiredReportLevel(judged)).toBe('full');
    const named = await scenario(
      '    turns:\n      - user: book it\n        expect: [{event: function_call, calls: [{name: submit}]}]\n',
    );
    expect(requiredReportLevel(named)).toBe('name');
  });

  it('bot-llm-marker becomes an llm_marker event with the marker, its kind and the raw text', () => {
    const t = new EventTranslator({ botAudio: false });
    const out = t.translate(
      { type: 'bot-llm-marker', data: { text: '◐', kind: 'short', raw: '◐', markers: ['●', '◐', '○'] } },
      42,
    );
    expect(out.events).toEqual([
      { name: 'llm_marker', at_ms: 42, text: '◐', kind: 'short', raw: '◐', markers: ['●', '◐', '○'] },
    ]);
    const none = t.translate({ type: 'bot-llm-marker', data: { text: '' } }, 43);
    expect(none.events).toEqual([{ name: 'llm_marker', at_ms: 43, text: '', raw: '', markers: [] }]);
  });
});

describe('what a session refuses before it connects', () => {
  it('an image expectation: located, because no Pipecat source says how a bot reports one', async () => {
    const s = await scenario('    turns:\n      - expect:\n          - event: image\n            within_ms: 30000\n');
    expect(unobservableExpectation(s)).toMatch(
      /s\d+\.yaml:6:\d+: turns\[0\]\.expect\[0\]\.event: event 'image': the RTVI message a Pipecat bot reports a generated image with is not in Pipecat's published source/,
    );
    expect(unobservableExpectation(await scenario('    turns:\n      - user: hi\n'))).toBeNull();
  });

  it('a JavaScript judge factory needs --allow-code, unless --judge replaces the judge', async () => {
    project.write(
      'judge.js',
      'export default () => ({ classify: async () => ({ verdict: "yes", confidence: 0.9 }) });\n',
    );
    const s = await scenario(
      '    judge: {eval: {factory: ./judge.js}}\n    turns:\n      - user: hi\n        expect: [{event: llm_response, eval: greets}]\n',
    );
    expect(codeRefusal(s, refusalSettings())).toBe(
      'scenario names code hooks (judge.eval.factory); rerun with --allow-code to load them',
    );
    expect(codeRefusal(s, refusalSettings({ judgeOverride: 'openai:m' }))).toBeNull();
    expect(codeRefusal(s, refusalSettings({ allowCode: true }))).toBeNull();
    const judge = await buildJudge(s, judgeOptions({ allowCode: true }));
    judge!.addUser({ kind: 'text', text: 'hi' });
    judge!.addAssistant('Hello!');
    expect(await judge!.evaluate('greets')).toEqual({ verdict: 'yes', reason: 'P(yes)=0.90' });
  });

  it("a Python judge factory (Pipecat's typesafe_classifier) is refused in one located line; --judge replaces it", async () => {
    const s = await scenario(
      '    judge: {eval: {factory: evals.judges.typesafe_classifier, explainer: {service: ollama}}}\n    turns:\n      - user: hi\n        expect: [{event: llm_response, eval: greets}]\n',
    );
    const refused = await buildJudge(s, judgeOptions()).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UsageError);
    expect((refused as Error).message).toMatch(
      /^\/.*s\d+\.yaml:4:29: error: judge\.eval\.factory: evals\.judges\.typesafe_classifier is a Python callable \(Pipecat's factory:\), which earshot cannot run in Node; judge with --judge openai:MODEL\[@URL\] or --judge ollama:MODEL$/,
    );
    llm.respond(() => verdictContent('yes', 'greets'));
    const judge = await buildJudge(s, judgeOptions({ judgeOverride: `openai:stand-in@${llm.url}` }));
    judge!.addUser({ kind: 'text', text: 'hi' });
    judge!.addAssistant('Hello!');
    expect(await judge!.evaluate('greets')).toEqual({ verdict: 'yes', reason: 'greets' });
    expect(llm.requests.at(-1)?.body.model).toBe('stand-in');
  });

  it('a judge call that fails twice is a no saying so (Pipecat: "judge call failed"), not a harness error', async () => {
    llm.respond(() => ({ status: 400, body: { error: { message: 'bad request' } } }));
    const s = await scenario('    turns:\n      - user: hi\n        expect: [{event: llm_response, eval: greets}]\n');
    const before = llm.requests.length;
    const judge = await buildJudge(s, judgeOptions({ judgeOverride: `openai:stand-in@${llm.url}` }));
    judge!.addAssistant('Hello!');
    const verdict = await judge!.evaluate('greets');
    expect(verdict.verdict).toBe('no');
    expect(verdict.reason).toMatch(/^judge call failed: judge openai\/stand-in: .*400/);
    expect(llm.requests.length - before).toBe(2);
  });
});
