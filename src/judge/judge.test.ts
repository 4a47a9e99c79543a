import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { EarshotError } from '../core/errors.js';
import {
  judgeRules,
  readJudgePrompt,
  sequence,
  startLlmServer,
  verdictContent,
  type LlmServer,
} from '../../test/support/llm-server.js';
import { ConversationLog } from './conversation.js';
import { JudgeError } from './errors.js';
import { createJudge, type CreateJudgeOptions } from './judge.js';
import { JUDGE_SERVICES, resolveJudgeService, type JudgeServiceConfig } from './services.js';
import type { Verdict } from './types.js';

const KEY = 'sk-judge-test-abcdef123456';

let server: LlmServer;
let cacheDir: string;
let traced: string[];

beforeEach(async () => {
  server = await startLlmServer();
  cacheDir = await mkdtemp(join(tmpdir(), 'earshot-judge-'));
  traced = [];
});
afterEach(async () => {
  await server.close();
  await rm(cacheDir, { recursive: true, force: true });
});

function openaiJudge(options: Partial<CreateJudgeOptions> = {}, config: Record<string, unknown> = {}) {
  return createJudge({
    config: { service: 'openai', endpoint: server.url, model: 'judge-model', ...config },
    env: { OPENAI_API_KEY: KEY },
    cacheDir,
    retryBaseDelayMs: 1,
    trace: (line) => traced.push(line),
    ...options,
  });
}

function asked(question: string, ...segments: string[]): ConversationLog {
  const log = new ConversationLog();
  log.user(question);
  for (const s of segments) log.botText(s);
  return log;
}

const capitalRules = judgeRules([
  {
    when: ({ reply }) => /let me check|one moment/i.test(reply) && !/berlin|munich/i.test(reply),
    verdict: 'continue',
    reason: 'still checking',
  },
  {
    when: ({ criterion, reply }) => criterion.includes('Berlin') && /berlin/i.test(reply),
    verdict: 'yes',
    reason: 'names Berlin',
  },
]);

describe('createJudge', () => {
  it('describes itself without credentials', () => {
    expect(openaiJudge().description).toBe(`openai/judge-model @ ${server.url}`);
  });

  describe('verdicts', () => {
    it('answers yes, no and continue as the model decides, with its reason and raw answer', async () => {
      server.respond(capitalRules);
      const judge = openaiJudge();
      const criterion = 'says the capital is Berlin';
      const yes = await judge.evaluate({ criterion, conversation: asked('Capital of Germany?', 'Berlin.').snapshot() });
      const no = await judge.evaluate({ criterion, conversation: asked('Capital of Germany?', 'Munich.').snapshot() });
      const cont = await judge.evaluate({
        criterion,
        conversation: asked('Capital of Germany?', 'Let me check on that.').snapshot(),
      });
      expect(yes).toEqual({
        verdict: 'yes',
        reason: 'names Berlin',
        cached: false,
        raw: verdictContent('yes', 'names Berlin'),
        elapsedMs: expect.any(Number),
      });
      expect(no).toMatchObject({ verdict: 'no', reason: 'no rule matched', cached: false });
      expect(cont).toMatchObject({ verdict: 'continue', reason: 'still checking' });
    });

    it('reads a verdict from a model that answers in prose', async () => {
      server.respond(() => 'Yes, the bot clearly names Berlin.');
      const verdict = await openaiJudge().evaluate({
        criterion: 'names Berlin',
        conversation: asked('Capital?', 'Berlin').snapshot(),
      });
      expect(verdict).toMatchObject({ verdict: 'yes', reason: 'the bot clearly names Berlin.' });
    });

    it('returns an unparseable answer as a JudgeError value, not a rejection', async () => {
      server.respond(() => 'I would rather not say.');
      const result = await openaiJudge().evaluate({
        criterion: 'names Berlin',
        conversation: asked('Capital?', 'Berlin').snapshot(),
      });
      expect(result).toBeInstanceOf(JudgeError);
      expect(result).toBeInstanceOf(EarshotError);
      expect(result).toMatchObject({
        name: 'JudgeError',
        code: 'unparseable',
        service: 'openai',
        model: 'judge-model',
        raw: 'I would rather not say.',
      });
      expect((result as JudgeError).message).toMatch(
        /^judge openai\/judge-model: cannot read a verdict from the answer/,
      );
    });

    it('says continue without asking the model while the bot has said nothing', async () => {
      const log = asked('Capital of Germany?');
      log.functionCall({ name: 'lookup_capital' });
      const verdict = await openaiJudge().evaluate({ criterion: 'names Berlin', conversation: log.snapshot() });
      expect(verdict).toEqual({
        verdict: 'continue',
        reason: 'the bot has not replied yet',
        cached: false,
        elapsedMs: 0,
      });
      expect(server.requests).toHaveLength(0);
    });

    it('times the model call on the given clock', async () => {
      const clock = new ManualClock(1000);
      server.respond(() => {
        clock.advance(250);
        return verdictContent('yes');
      });
      const verdict = await openaiJudge({ clock }).evaluate({
        criterion: 'c',
        conversation: asked('q', 'a').snapshot(),
      });
      expect(verdict).toMatchObject({ elapsedMs: 250 });
    });
  });

  describe('continue, then yes: one criterion over a growing reply', () => {
    it('re-judges the same criterion as segments arrive, sending the whole reply each time', async () => {
      server.respond(capitalRules);
      const judge = openaiJudge();
      const log = asked('What is the capital of Germany?');
      const criterion = 'says the capital is Berlin';
      const verdicts: Verdict[] = [];
      for (const segment of ['Let me check on that.', 'The capital of Germany is Berlin.']) {
        log.botText(segment);
        verdicts.push((await judge.evaluate({ criterion, conversation: log.snapshot() })) as Verdict);
      }
      expect(verdicts.map((v) => v.verdict)).toEqual(['continue', 'yes']);
      const views = server.requests.map((r) => readJudgePrompt(r));
      expect(views.map((v) => v?.reply)).toEqual([
        'Let me check on that.',
        'Let me check on that. The capital of Germany is Berlin.',
      ]);
      expect(views.map((v) => v?.criterion)).toEqual([criterion, criterion]);
      expect(views[1]?.latestUser).toBe('What is the capital of Germany?');
    });
  });

  describe('cache', () => {
    const criterion = 'says the capital is Berlin';

    it('answers a repeated question from the cache without calling the model', async () => {
      server.respond(capitalRules);
      const judge = openaiJudge();
      const conversation = asked('Capital?', 'Berlin.').snapshot();
      const first = await judge.evaluate({ criterion, conversation });
      const second = await judge.evaluate({ criterion, conversation });
      expect(first).toMatchObject({ verdict: 'yes', cached: false });
      expect(second).toEqual({
        verdict: 'yes',
        reason: 'names Berlin',
        raw: verdictContent('yes', 'names Berlin'),
        cached: true,
        elapsedMs: 0,
      });
      expect(server.requests).toHaveLength(1);
      expect(traced.at(-1)).toMatch(/-> yes \(cached\)/);
    });

    it('keeps verdicts on disk, so a rerun (a new judge) asks nothing', async () => {
      server.respond(capitalRules);
      const conversation = asked('Capital?', 'Let me check on that.').snapshot();
      await openaiJudge().evaluate({ criterion, conversation });
      const rerun = await openaiJudge().evaluate({ criterion, conversation });
      expect(rerun).toMatchObject({ verdict: 'continue', cached: true });
      expect(server.requests).toHaveLength(1);
    });

    it('asks again when the conversation, the criterion, the model or extra change', async () => {
      server.respond(capitalRules);
      await openaiJudge().evaluate({ criterion, conversation: asked('Capital?', 'Berlin.').snapshot() });
      await openaiJudge().evaluate({ criterion, conversation: asked('Capital?', 'Berlin.', 'Nice city.').snapshot() });
      await openaiJudge().evaluate({
        criterion: `${criterion}!`,
        conversation: asked('Capital?', 'Berlin.').snapshot(),
      });
      await openaiJudge({}, { model: 'other-model' }).evaluate({
        criterion,
        conversation: asked('Capital?', 'Berlin.').snapshot(),
      });
      await openaiJudge({}, { extra: { seed: 1 } }).evaluate({
        criterion,
        conversation: asked('Capital?', 'Berlin.').snapshot(),
      });
      const audio = new ConversationLog('audio');
      audio.user('Capital?');
      audio.botText('Berlin.');
      await openaiJudge().evaluate({ criterion, conversation: audio.snapshot() });
      expect(server.requests).toHaveLength(6);
    });

    it('without a cache directory, remembers verdicts for this judge only', async () => {
      server.respond(capitalRules);
      const conversation = asked('Capital?', 'Berlin.').snapshot();
      const judge = openaiJudge({ cacheDir: undefined });
      await judge.evaluate({ criterion, conversation });
      expect(await judge.evaluate({ criterion, conversation })).toMatchObject({ cached: true });
      expect(await openaiJudge({ cacheDir: undefined }).evaluate({ criterion, conversation })).toMatchObject({
        cached: false,
      });
      expect(server.requests).toHaveLength(2);
      expect(await readdir(cacheDir)).toEqual([]);
    });

    it('with noCache, asks every time and writes nothing', async () => {
      server.respond(capitalRules);
      const conversation = asked('Capital?', 'Berlin.').snapshot();
      const judge = openaiJudge({ noCache: true });
      await judge.evaluate({ criterion, conversation });
      expect(await judge.evaluate({ criterion, conversation })).toMatchObject({ verdict: 'yes', cached: false });
      expect(server.requests).toHaveLength(2);
      expect(await readdir(cacheDir)).toEqual([]);
    });

    it('never caches an error', async () => {
      // Each failed question is asked twice (JUDGE_ASKS) before it is an error.
      server.respond(sequence('garbage', 'garbage', { status: 400 }, { status: 400 }, verdictContent('yes')));
      const judge = openaiJudge();
      const conversation = asked('Capital?', 'Berlin.').snapshot();
      expect(await judge.evaluate({ criterion, conversation })).toMatchObject({ code: 'unparseable' });
      expect(await judge.evaluate({ criterion, conversation })).toMatchObject({ code: 'http_status' });
      expect(await judge.evaluate({ criterion, conversation })).toMatchObject({ verdict: 'yes', cached: false });
      expect(server.requests).toHaveLength(5);
    });

    it('does not cache an aborted evaluation', async () => {
      server.respond(() => ({ hang: true }));
      const conversation = asked('Capital?', 'Berlin.').snapshot();
      const controller = new AbortController();
      const pending = openaiJudge().evaluate({ criterion, conversation, signal: controller.signal });
      await expect.poll(() => server.requests.length).toBe(1);
      controller.abort(new Error('scenario stopped'));
      await expect(pending).rejects.toThrow('scenario stopped');
      server.respond(() => verdictContent('no'));
      expect(await openaiJudge().evaluate({ criterion, conversation })).toMatchObject({ verdict: 'no', cached: false });
    });
  });

  describe('secrets', () => {
    it('sends the key as a bearer header but keeps it out of errors, traces and the cache', async () => {
      const scenarioKey = 'sk-written-in-the-scenario-42';
      server.respond(
        sequence(verdictContent('yes', `the header was Bearer ${scenarioKey}`), {
          status: 401,
          body: { error: { message: `bad key ${scenarioKey}` } },
        }),
      );
      const judge = createJudge({
        config: { service: 'openai', endpoint: server.url, api_key: scenarioKey },
        env: {},
        cacheDir,
        trace: (line) => traced.push(line),
      });
      const verdict = await judge.evaluate({ criterion: 'c', conversation: asked('q', 'a').snapshot() });
      const error = await judge.evaluate({ criterion: 'c', conversation: asked('q', 'b').snapshot() });
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${scenarioKey}`);
      expect(error).toMatchObject({ code: 'http_status', status: 401 });
      const cacheFiles = await readAll(cacheDir);
      expect(cacheFiles).toHaveLength(1);
      const everything = [
        JSON.stringify(verdict),
        (error as JudgeError).message,
        (error as JudgeError).raw,
        ...traced,
        ...cacheFiles,
      ].join('\n');
      expect(everything).not.toContain(scenarioKey);
      expect(everything).toContain('[redacted]');
    });
  });

  describe('request fields', () => {
    it('passes extra through as top-level request fields, over temperature 0 and max_tokens 200', async () => {
      server.respond(() => verdictContent('yes'));
      await openaiJudge(
        {},
        { extra: { top_p: 0.5, seed: 7, response_format: { type: 'json_object' }, temperature: null } },
      ).evaluate({
        criterion: 'c',
        conversation: asked('q', 'a').snapshot(),
      });
      const body = server.requests[0].body;
      expect(body).toMatchObject({
        model: 'judge-model',
        max_tokens: 200,
        top_p: 0.5,
        seed: 7,
        response_format: { type: 'json_object' },
        stream: false,
      });
      expect(body).not.toHaveProperty('temperature');
    });
  });

  describe('services', () => {
    it('takes a new service from the table it is given (a factory and a line)', async () => {
      server.respond(() => verdictContent('yes'));
      const services = {
        ...JUDGE_SERVICES,
        'local-vllm': (config: JudgeServiceConfig, env: NodeJS.ProcessEnv) =>
          JUDGE_SERVICES.openai({ ...config, endpoint: server.url }, env),
      };
      const judge = createJudge({ config: { service: 'local-vllm', model: 'qwen' }, env: {}, services, noCache: true });
      expect(await judge.evaluate({ criterion: 'c', conversation: asked('q', 'a').snapshot() })).toMatchObject({
        verdict: 'yes',
      });
      expect(server.requests[0].body.model).toBe('qwen');
    });

    it('uses a backend the caller built (an allowed factory hook) instead of resolving the config', async () => {
      server.respond(() => verdictContent('no'));
      const backend = resolveJudgeService({ service: 'openai', endpoint: server.url, model: 'from-hook' }, {});
      const judge = createJudge({ config: { factory: 'hooks.mjs#judge' }, backend, env: {}, noCache: true });
      expect(judge.description).toBe(`openai/from-hook @ ${server.url}`);
      expect(await judge.evaluate({ criterion: 'c', conversation: asked('q', 'a').snapshot() })).toMatchObject({
        verdict: 'no',
      });
    });

    it('traces the judge.eval fields it ignores', () => {
      openaiJudge({}, { temperature: 0 });
      expect(traced).toEqual(['judge: ignoring judge.eval.temperature (no judge service reads it)']);
    });
  });

  describe('ollama service', () => {
    it('talks to OLLAMA_HOST over its OpenAI-compatible /v1 API, without a key', async () => {
      server.respond(capitalRules);
      const judge = createJudge({
        config: { service: 'ollama', model: 'gemma-test' },
        env: { OLLAMA_HOST: server.origin },
        cacheDir,
      });
      expect(judge.description).toBe(`ollama/gemma-test @ ${server.origin}/v1`);
      const verdict = await judge.evaluate({
        criterion: 'says the capital is Berlin',
        conversation: asked('Capital?', 'Berlin.').snapshot(),
      });
      expect(verdict).toMatchObject({ verdict: 'yes' });
      const [request] = server.requests;
      expect(request.path).toBe('/v1/chat/completions');
      expect(request.headers.authorization).toBeUndefined();
      expect(request.body).toMatchObject({ model: 'gemma-test', temperature: 0 });
      expect(request.body).not.toHaveProperty('reasoning_effort');
    });

    it("sends Pipecat's default judge model with reasoning off when the scenario names none", async () => {
      server.respond(() => verdictContent('no'));
      await createJudge({ env: { OLLAMA_HOST: server.origin }, noCache: true }).evaluate({
        criterion: 'c',
        conversation: asked('q', 'a').snapshot(),
      });
      expect(server.requests[0].body).toMatchObject({ model: 'gemma4:12b', reasoning_effort: 'none' });
    });
  });
});

async function readAll(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) out.push(await readFile(join(entry.parentPath, entry.name), 'utf8'));
  }
  return out;
}
