import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../core/redact.js';
import { sequence, startLlmServer, verdictContent, type LlmServer } from '../../test/support/llm-server.js';
import { chatComplete, type ChatCallContext, type ChatEndpoint } from './chat-completions.js';
import { JudgeError } from './errors.js';
import type { ChatMessage } from './types.js';

const KEY = 'sk-test-0123456789abcdef';
const MESSAGES: ChatMessage[] = [
  { role: 'system', content: 'be a judge' },
  { role: 'user', content: 'does it?' },
];

let server: LlmServer;
let traced: string[];

beforeEach(async () => {
  server = await startLlmServer();
  traced = [];
});
afterEach(async () => {
  await server.close();
});

function endpoint(overrides: Partial<ChatEndpoint> = {}): ChatEndpoint {
  return {
    service: 'openai',
    model: 'judge-model',
    baseUrl: server.url,
    apiKey: KEY,
    fields: { temperature: 0, max_tokens: 200 },
    ...overrides,
  };
}

function ctx(overrides: Partial<ChatCallContext['policy']> = {}, signal?: AbortSignal): ChatCallContext {
  const redactor = new Redactor({});
  redactor.add(KEY);
  return {
    policy: { requestTimeoutMs: 5_000, maxAttempts: 3, retryBaseDelayMs: 1, retryMaxDelayMs: 20, ...overrides },
    redactor,
    trace: (line) => traced.push(line),
    random: () => 0.5,
    ...(signal ? { signal } : {}),
  };
}

describe('chatComplete (OpenAI Chat Completions wire)', () => {
  it('POSTs model, messages and the request fields as JSON with a bearer key, and returns the content', async () => {
    server.respond(() => verdictContent('yes', 'fine'));
    const result = await chatComplete(endpoint(), MESSAGES, ctx());
    expect(result).toEqual({ content: '{"verdict":"yes","reason":"fine"}', attempts: 1 });
    const [request] = server.requests;
    expect(request.method).toBe('POST');
    expect(request.path).toBe('/v1/chat/completions');
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.body).toEqual({
      model: 'judge-model',
      messages: MESSAGES,
      temperature: 0,
      max_tokens: 200,
      stream: false,
    });
  });

  it('sends no authorization header when there is no key', async () => {
    server.respond(() => 'ok');
    await chatComplete(endpoint({ apiKey: undefined }), MESSAGES, ctx());
    expect(server.requests[0].headers.authorization).toBeUndefined();
  });

  it('joins content sent as an array of text parts', async () => {
    server.respond(() => ({
      status: 200,
      body: {
        choices: [
          {
            message: {
              role: 'assistant',
              content: [
                { type: 'text', text: 'a' },
                { type: 'text', text: 'b' },
              ],
            },
          },
        ],
      },
    }));
    expect(await chatComplete(endpoint(), MESSAGES, ctx())).toEqual({ content: 'ab', attempts: 1 });
  });

  describe('retries', () => {
    it('retries 500 and 503, then succeeds', async () => {
      server.respond(sequence({ status: 500 }, { status: 503 }, 'third time'));
      expect(await chatComplete(endpoint(), MESSAGES, ctx())).toEqual({ content: 'third time', attempts: 3 });
      expect(server.requests).toHaveLength(3);
      expect(traced).toEqual([
        expect.stringMatching(/attempt 1\/3: HTTP 500; retrying in \d+ ms$/),
        expect.stringMatching(/attempt 2\/3: HTTP 503; retrying in \d+ ms$/),
      ]);
    });

    it('honours Retry-After on 429, capped at the longest backoff', async () => {
      server.respond(sequence({ status: 429, headers: { 'retry-after': '30' } }, 'ok'));
      expect(await chatComplete(endpoint(), MESSAGES, ctx({ retryMaxDelayMs: 40 }))).toEqual({
        content: 'ok',
        attempts: 2,
      });
      expect(traced[0]).toMatch(/HTTP 429; retrying in 40 ms$/);
    });

    it('gives up after maxAttempts with an http_status error that says how often it tried', async () => {
      server.respond(() => ({ status: 502, body: { error: { message: 'upstream down' } } }));
      const result = await chatComplete(endpoint(), MESSAGES, ctx({ maxAttempts: 2 }));
      expect(result).toBeInstanceOf(JudgeError);
      expect(result).toMatchObject({ code: 'http_status', status: 502, attempts: 2 });
      expect((result as JudgeError).message).toMatch(/answered HTTP 502: upstream down \(after 2 attempts\)$/);
      expect(server.requests).toHaveLength(2);
    });

    it('does not retry a client error such as 400 or 404', async () => {
      server.respond(() => ({
        status: 404,
        body: { error: { message: 'model "judge-model" not found, try pulling it first' } },
      }));
      const result = await chatComplete(endpoint(), MESSAGES, ctx());
      expect(result).toMatchObject({ code: 'http_status', status: 404, attempts: 1 });
      expect((result as JudgeError).message).toContain('model "judge-model" not found');
      expect(server.requests).toHaveLength(1);
    });

    it('retries a refused connection, then reports a network error naming the cause', async () => {
      const url = server.url;
      await server.close();
      const result = await chatComplete(endpoint({ baseUrl: url }), MESSAGES, ctx({ maxAttempts: 2 }));
      expect(result).toMatchObject({ code: 'network', attempts: 2 });
      expect((result as JudgeError).message).toMatch(
        /cannot reach http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions: ECONNREFUSED/,
      );
      expect(traced).toHaveLength(1);
    });
  });

  describe('timeouts and aborts', () => {
    it('ends an attempt at the request timeout with a timeout error, without retrying', async () => {
      server.respond(() => ({ hang: true }));
      const result = await chatComplete(endpoint(), MESSAGES, ctx({ requestTimeoutMs: 150 }));
      expect(result).toMatchObject({ code: 'timeout', attempts: 1 });
      expect((result as JudgeError).message).toMatch(/within 150 ms/);
      expect(server.requests).toHaveLength(1);
    });

    it("rejects with the caller's abort reason mid-request", async () => {
      server.respond(() => ({ hang: true }));
      const controller = new AbortController();
      const pending = chatComplete(endpoint(), MESSAGES, ctx({}, controller.signal));
      await expect.poll(() => server.requests.length).toBe(1);
      const reason = new Error('turn deadline');
      controller.abort(reason);
      await expect(pending).rejects.toBe(reason);
    });

    it('rejects with the abort reason during a backoff wait', async () => {
      server.respond(() => ({ status: 503 }));
      const controller = new AbortController();
      const pending = chatComplete(
        endpoint(),
        MESSAGES,
        ctx({ retryBaseDelayMs: 10_000, retryMaxDelayMs: 10_000 }, controller.signal),
      );
      await expect.poll(() => traced.length).toBe(1);
      controller.abort(new Error('stop'));
      await expect(pending).rejects.toThrow('stop');
      expect(server.requests).toHaveLength(1);
    });
  });

  describe('responses that are not answers', () => {
    it('reports a body that is not JSON', async () => {
      server.respond(() => ({ status: 200, body: '<html>proxy</html>' }));
      expect(await chatComplete(endpoint(), MESSAGES, ctx())).toMatchObject({
        code: 'bad_response',
        raw: '<html>proxy</html>',
      });
    });

    it('stops reading a body over the size cap and reports it as bad_response, without retrying', async () => {
      const huge = `{"choices":[{"message":{"content":"${'y'.repeat(200_000)}"}}]}`;
      server.respond(() => ({ status: 200, body: huge }));
      const capped = await chatComplete(endpoint(), MESSAGES, { ...ctx(), maxResponseBytes: 64 * 1024 });
      expect(capped).toMatchObject({ code: 'bad_response', status: 200, attempts: 1 });
      expect((capped as JudgeError).message).toContain('body over 65536 bytes');
      // Under the cap the same answer is read whole.
      const read = await chatComplete(endpoint(), MESSAGES, { ...ctx(), maxResponseBytes: 256 * 1024 });
      expect(read).toMatchObject({ content: 'y'.repeat(200_000) });
    });

    it('reports JSON without choices', async () => {
      server.respond(() => ({ status: 200, body: { id: 'x' } }));
      expect(await chatComplete(endpoint(), MESSAGES, ctx())).toMatchObject({ code: 'bad_response' });
    });

    it('reports an empty answer and a refusal', async () => {
      server.respond(() => '');
      expect(await chatComplete(endpoint(), MESSAGES, ctx())).toMatchObject({ code: 'empty_answer' });
      server.respond(() => ({
        status: 200,
        body: { choices: [{ message: { content: null, refusal: 'I cannot judge this.' } }] },
      }));
      const refused = await chatComplete(endpoint(), MESSAGES, ctx());
      expect((refused as JudgeError).message).toMatch(/the model refused: I cannot judge this\.$/);
    });
  });

  describe('the key never leaks', () => {
    it('masks a key echoed by the server in the error message, raw body and trace', async () => {
      server.respond(
        sequence(
          { status: 500, body: { error: { message: `boom for key ${KEY}` } } },
          { status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}; header was Bearer ${KEY}` } } },
        ),
      );
      const result = await chatComplete(endpoint(), MESSAGES, ctx());
      expect(server.requests[0].headers.authorization).toBe(`Bearer ${KEY}`);
      expect(result).toMatchObject({ code: 'http_status', status: 401 });
      const error = result as JudgeError;
      const everything = [error.message, error.raw ?? '', String(error.stack), JSON.stringify(error), ...traced].join(
        '\n',
      );
      expect(everything).not.toContain(KEY);
      expect(error.message).toContain('Incorrect API key provided: [redacted]');
    });
  });
});
