import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConversationLog } from '../../src/judge/conversation.js';
import { judgeMessages } from '../../src/judge/prompt.js';
import { judgeRules, readJudgePrompt, sequence, startLlmServer, verdictContent, type LlmServer } from './llm-server.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(async () => {
  await server.close();
});

function post(body: unknown, path = '/v1/chat/completions', init: RequestInit = {}): Promise<Response> {
  return fetch(server.origin + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

const CHAT = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

describe('the stand-in LLM server', () => {
  it('listens on an ephemeral 127.0.0.1 port and gives an OpenAI base URL and an Ollama host', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(server.url).toBe(`${server.origin}/v1`);
  });

  it('answers a Chat Completions request in the OpenAI wire format and logs it', async () => {
    server.respond(() => 'hello there');
    const res = await post({ ...CHAT, temperature: 0 }, '/v1/chat/completions', {
      headers: { 'content-type': 'application/json', authorization: 'Bearer k' },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      object: 'chat.completion',
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'hello there' }, finish_reason: 'stop' }],
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({
      index: 0,
      method: 'POST',
      path: '/v1/chat/completions',
      body: { ...CHAT, temperature: 0 },
    });
    expect(server.requests[0].headers.authorization).toBe('Bearer k');
  });

  it('streams the content as SSE chunks ending in [DONE] when asked to', async () => {
    server.respond(() => ({ content: 'one two three', finishReason: 'length' }));
    const res = await post({ ...CHAT, stream: true });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const events = (await res.text())
      .split('\n\n')
      .filter(Boolean)
      .map((e) => e.replace(/^data: /, ''));
    expect(events.at(-1)).toBe('[DONE]');
    const chunks = events.slice(0, -1).map(
      (e) =>
        JSON.parse(e) as {
          object: string;
          choices: Array<{ delta: { content?: string }; finish_reason: string | null }>;
        },
    );
    expect(chunks.every((c) => c.object === 'chat.completion.chunk')).toBe(true);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks.map((c) => c.choices[0].delta.content ?? '').join('')).toBe('one two three');
    expect(chunks.at(-1)?.choices[0].finish_reason).toBe('length');
  });

  it('answers with tool calls as OpenAI does (content null, finish_reason tool_calls), also streamed; checks the tools offered', async () => {
    const tools = [
      { type: 'function', function: { name: 'end_call', parameters: { type: 'object', properties: {} } } },
    ];
    server.respond(() => ({ toolCalls: [{ name: 'end_call', arguments: { success: true, reason: 'done' } }] }));
    const body = (await (await post({ ...CHAT, tools })).json()) as {
      choices: Array<{ message: Record<string, unknown>; finish_reason: string }>;
    };
    expect(body.choices[0]).toMatchObject({
      finish_reason: 'tool_calls',
      message: {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_standin_0_0',
            type: 'function',
            function: { name: 'end_call', arguments: '{"success":true,"reason":"done"}' },
          },
        ],
      },
    });
    const streamed = (await (await post({ ...CHAT, tools, stream: true })).text())
      .split('\n\n')
      .filter((e) => e.includes('tool_calls'));
    expect(JSON.parse(streamed[0].replace(/^data: /, '')).choices[0].delta.tool_calls[0]).toMatchObject({
      index: 0,
      function: { name: 'end_call' },
    });
    // Scripted tool calls for a request that offered none is a test mistake, answered with 400.
    expect((await post(CHAT)).status).toBe(400);
    const bad = await post({ ...CHAT, tools: [{ type: 'function', function: { name: 'has space' } }] });
    expect(bad.status).toBe(400);
    expect(server.rejected.at(-1)?.message).toContain('tools[0].function.name');
  });

  it('refuses malformed requests the way the real API does, without calling the responder', async () => {
    let called = 0;
    server.respond(() => {
      called++;
      return 'x';
    });
    expect((await post('{not json')).status).toBe(400);
    expect((await post({ messages: CHAT.messages })).status).toBe(400);
    expect((await post({ model: 'm', messages: [{ role: 'wizard', content: 'x' }] })).status).toBe(400);
    const missing = await post(CHAT, '/v1/completions');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { type: string } }).error.type).toBe('invalid_request_error');
    expect((await fetch(`${server.url}/chat/completions`)).status).toBe(405);
    expect(called).toBe(0);
    expect(server.requests).toHaveLength(0);
    expect(server.rejected.map((r) => r.status)).toEqual([400, 400, 400, 404, 405]);
  });

  it('lists a model on GET /v1/models', async () => {
    const res = await fetch(`${server.url}/models`);
    expect(((await res.json()) as { data: Array<{ id: string }> }).data[0].id).toBe('stand-in');
  });

  it('plays scripted statuses, headers and bodies, in sequence', async () => {
    server.respond(sequence({ status: 429, headers: { 'retry-after': '2' } }, { status: 503, body: 'busy' }, 'ok'));
    const first = await post(CHAT);
    expect([first.status, first.headers.get('retry-after')]).toEqual([429, '2']);
    expect(((await first.json()) as { error: { message: string } }).error.message).toBe('scripted HTTP 429');
    const second = await post(CHAT);
    expect([second.status, await second.text()]).toEqual([503, 'busy']);
    expect((await post(CHAT)).status).toBe(200);
    expect((await post(CHAT)).status).toBe(200);
  });

  it('answers 500 when no responder is scripted or the responder throws', async () => {
    expect((await post(CHAT)).status).toBe(500);
    server.respond(() => {
      throw new Error('bad rule');
    });
    const res = await post(CHAT);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('bad rule');
  });

  it('delays an answer, and a hanging answer ends when the client gives up or the server closes', async () => {
    server.respond(() => ({ content: 'late', delayMs: 80 }));
    const started = performance.now();
    await post(CHAT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(75);
    server.respond(() => ({ hang: true }));
    await expect(post(CHAT, undefined, { signal: AbortSignal.timeout(100) })).rejects.toThrow();
    const pending = post(CHAT).catch((err: unknown) => err);
    await expect.poll(() => server.requests.length).toBe(3);
    await server.close();
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe('judgeRules', () => {
  function judgeRequest(log: ConversationLog, criterion: string): Promise<Response> {
    return post({ model: 'm', messages: judgeMessages(criterion, log.snapshot()) });
  }

  it('reads the criterion, the latest user input and the latest reply back out of a judge prompt', async () => {
    const log = new ConversationLog();
    log.botText('Welcome.');
    log.dtmf('2#');
    log.botText('Checking your account.');
    log.functionCall({ name: 'balance', args: { account: 2 } });
    log.botText('Your balance is "ten" dollars.');
    await judgeRequest(log, 'states the balance');
    const view = readJudgePrompt(server.requests[0]);
    expect(view).toMatchObject({
      criterion: 'states the balance',
      latestUser: '[DTMF 2#]',
      reply: 'Checking your account. Your balance is "ten" dollars.',
      replyLines: [
        'bot: "Checking your account."',
        'bot called function: "balance" with arguments {"account":2}',
        'bot: "Your balance is \\"ten\\" dollars."',
      ],
    });
    expect(view?.system).toMatch(/judge/);
  });

  it('answers with the first matching rule as verdict JSON, else the fallback', async () => {
    server.respond(
      judgeRules(
        [
          { when: ({ reply }) => reply.includes('moment'), verdict: 'continue' },
          {
            when: ({ criterion, reply }) => criterion.includes('Berlin') && reply.includes('Berlin'),
            verdict: 'yes',
            reason: 'says Berlin',
          },
        ],
        { verdict: 'no', reason: 'nothing matched' },
      ),
    );
    const content = async (res: Response): Promise<string> =>
      ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0].message.content;
    const log = new ConversationLog();
    log.user('Capital?');
    log.botText('One moment.');
    expect(await content(await judgeRequest(log, 'says Berlin'))).toBe(verdictContent('continue'));
    log.botText('It is Berlin.');
    expect(await content(await judgeRequest(log, 'says Berlin'))).toBe(
      '{"verdict":"continue","reason":"scripted continue"}',
    );
    const fresh = new ConversationLog();
    fresh.user('Capital?');
    fresh.botText('It is Berlin.');
    expect(await content(await judgeRequest(fresh, 'says Berlin'))).toBe(verdictContent('yes', 'says Berlin'));
    expect(await content(await judgeRequest(fresh, 'says Paris'))).toBe(verdictContent('no', 'nothing matched'));
  });

  it('refuses a request that is not an earshot judge prompt, so a test cannot pass by accident', async () => {
    server.respond(judgeRules([{ when: () => true, verdict: 'yes' }]));
    const res = await post(CHAT);
    expect(res.status).toBe(400);
  });
});
