import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PROMPT_LINES } from '../../src/judge/prompt.js';

/**
 * A real OpenAI-compatible Chat Completions server for tests: node:http on an
 * ephemeral 127.0.0.1 port, the real wire format (JSON, and SSE for
 * `stream: true`), answers scripted by the test. It is the one stand-in the
 * project allows (for the paid/remote judge LLM); everything that talks to it
 * speaks the real protocol.
 */

export interface ChatCompletionRequestBody {
  model: string;
  messages: Array<{ role: string; content: unknown }>;
  stream?: boolean;
  [field: string]: unknown;
}

/** One request that reached the responder. Headers are lower-cased, as node:http gives them. */
export interface LoggedRequest {
  index: number;
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: ChatCompletionRequestBody;
  rawBody: string;
}

/** A request the server refused as malformed (never reaches the responder). */
export interface RejectedRequest {
  method: string;
  path: string;
  status: number;
  message: string;
}

/** A function call the scripted model makes (`arguments` as an object or as the raw JSON text). */
export interface ScriptedToolCall {
  name: string;
  arguments: Record<string, unknown> | string;
}

/**
 * What the responder scripts: assistant content (a string), content with a
 * delay, tool calls (with or without content: `finish_reason: tool_calls`, as
 * OpenAI answers them), an HTTP error (or any status and body), or no answer.
 */
export type ScriptedReply =
  | string
  | { content: string; delayMs?: number; finishReason?: string }
  | { toolCalls: ScriptedToolCall[]; content?: string; delayMs?: number }
  | { status: number; body?: unknown; headers?: Record<string, string>; delayMs?: number }
  | { hang: true };

export type Responder = (request: LoggedRequest) => ScriptedReply | Promise<ScriptedReply>;

export interface LlmServer {
  /** OpenAI base URL: `http://127.0.0.1:PORT/v1` (an `endpoint:` or `OPENAI_BASE_URL`). */
  url: string;
  /** `http://127.0.0.1:PORT` (an `OLLAMA_HOST`). */
  origin: string;
  /** Requests that reached the responder, in arrival order. */
  requests: LoggedRequest[];
  rejected: RejectedRequest[];
  /** Replaces the responder for later requests. */
  respond(responder: Responder): void;
  close(): Promise<void>;
}

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool']);

export async function startLlmServer(responder?: Responder): Promise<LlmServer> {
  let current: Responder =
    responder ??
    (() => ({ status: 500, body: { error: { message: 'llm-server: no responder scripted', type: 'server_error' } } }));
  const requests: LoggedRequest[] = [];
  const rejected: RejectedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();

  const wait = (ms: number, res: ServerResponse): Promise<boolean> =>
    new Promise((resolve) => {
      const timer = setTimeout(() => {
        timers.delete(timer);
        resolve(!res.destroyed);
      }, ms);
      timers.add(timer);
      res.once('close', () => {
        clearTimeout(timer);
        timers.delete(timer);
        resolve(false);
      });
    });

  const server = createServer((req, res) => {
    void handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendJson(res, 500, { error: { message: `llm-server: responder threw: ${String(err)}`, type: 'server_error' } });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const rawBody = await readBody(req);
    const method = req.method ?? 'GET';
    const path = (req.url ?? '/').split('?')[0];
    const reject = (status: number, message: string): void => {
      rejected.push({ method, path, status, message });
      sendJson(res, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });
    };
    if (method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, { object: 'list', data: [{ id: 'stand-in', object: 'model', owned_by: 'earshot-tests' }] });
      return;
    }
    if (path !== '/v1/chat/completions') return reject(404, `unknown path ${path}`);
    if (method !== 'POST') return reject(405, `method ${method} not allowed`);
    const checked = validate(rawBody);
    if (typeof checked === 'string') return reject(400, checked);

    const logged: LoggedRequest = {
      index: requests.length,
      method,
      path,
      headers: { ...req.headers },
      body: checked,
      rawBody,
    };
    requests.push(logged);
    const reply = await current(logged);

    if (typeof reply !== 'string' && 'hang' in reply) {
      await new Promise<void>((resolve) => res.once('close', resolve));
      return;
    }
    if (typeof reply !== 'string' && reply.delayMs && !(await wait(reply.delayMs, res))) return;
    if (typeof reply !== 'string' && 'status' in reply) {
      const body = reply.body ?? { error: { message: `scripted HTTP ${reply.status}`, type: 'server_error' } };
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      res.writeHead(reply.status, {
        'content-type': typeof body === 'string' ? 'text/plain' : 'application/json',
        ...reply.headers,
      });
      res.end(text);
      return;
    }
    const toolCalls =
      typeof reply !== 'string' && 'toolCalls' in reply
        ? reply.toolCalls.map((c, i) => ({
            id: `call_standin_${logged.index}_${i}`,
            type: 'function',
            function: {
              name: c.name,
              arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments),
            },
          }))
        : undefined;
    if (toolCalls && !Array.isArray(logged.body.tools))
      return reject(400, 'llm-server: scripted tool calls for a request that offered no tools');
    const content = typeof reply === 'string' ? reply : (reply.content ?? '');
    const finishReason = toolCalls
      ? 'tool_calls'
      : typeof reply === 'string' || !('finishReason' in reply)
        ? 'stop'
        : (reply.finishReason ?? 'stop');
    const id = `chatcmpl-standin-${logged.index}`;
    const created = Math.floor(Date.now() / 1000);
    if (logged.body.stream === true) {
      streamCompletion(res, {
        id,
        created,
        model: logged.body.model,
        content,
        finishReason,
        ...(toolCalls ? { toolCalls } : {}),
      });
      return;
    }
    // OpenAI sends content null beside tool calls when the model said nothing.
    const message = toolCalls
      ? { role: 'assistant', content: content === '' ? null : content, tool_calls: toolCalls }
      : { role: 'assistant', content };
    sendJson(res, 200, {
      id,
      object: 'chat.completion',
      created,
      model: logged.body.model,
      choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason }],
      usage: {
        prompt_tokens: Math.ceil(rawBody.length / 4),
        completion_tokens: Math.ceil(content.length / 4),
        total_tokens: Math.ceil((rawBody.length + content.length) / 4),
      },
    });
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/v1`,
    origin,
    requests,
    rejected,
    respond(next: Responder): void {
      current = next;
    },
    close(): Promise<void> {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      return new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

/** Replies in order, one per request; the last repeats. */
export function sequence(...replies: ScriptedReply[]): Responder {
  let next = 0;
  return () => replies[Math.min(next++, replies.length - 1)];
}

/** The JSON content a well-behaved judge model answers with. */
export function verdictContent(verdict: 'yes' | 'no' | 'continue', reason = `scripted ${verdict}`): string {
  return JSON.stringify({ verdict, reason });
}

/** What a judge rule sees of a request, read back from the earshot judge prompt. */
export interface JudgePromptView {
  criterion: string;
  /** The most recent reply's bot segments, joined with spaces. */
  reply: string;
  /** The most recent reply, line by line as rendered (segments and function calls). */
  replyLines: string[];
  /** The latest exchange's user text, or `[DTMF ...]` for keys. */
  latestUser?: string;
  /** For an `eval:` on a function call: the call judged, `"name" with arguments {...}`. */
  call?: string;
  /** The whole user message, for rules that need more. */
  prompt: string;
  system: string;
}

export interface JudgeRule {
  when: (view: JudgePromptView) => boolean;
  verdict: 'yes' | 'no' | 'continue';
  reason?: string;
}

/**
 * A responder that decides judge requests by rules, first match wins:
 * `judgeRules([{ when: ({criterion, reply}) => criterion.includes('capital') && reply.includes('Berlin'), verdict: 'yes' }])`.
 * Unmatched requests get `otherwise` (default "no"); a request that is not an
 * earshot judge prompt gets HTTP 400, so a test cannot pass by accident.
 */
export function judgeRules(
  rules: JudgeRule[],
  otherwise: { verdict: 'yes' | 'no' | 'continue'; reason?: string } = { verdict: 'no', reason: 'no rule matched' },
): Responder {
  return (request) => {
    const view = readJudgePrompt(request);
    if (!view)
      return {
        status: 400,
        body: { error: { message: 'llm-server: not an earshot judge prompt', type: 'invalid_request_error' } },
      };
    const rule = rules.find((r) => r.when(view)) ?? otherwise;
    return verdictContent(rule.verdict, rule.reason);
  };
}

/** Reads the criterion and the latest reply back out of a judge request; undefined if it is not one. */
export function readJudgePrompt(request: LoggedRequest): JudgePromptView | undefined {
  const messages = request.body.messages;
  const system = messages.find((m) => m.role === 'system')?.content;
  const user = [...messages].reverse().find((m) => m.role === 'user')?.content;
  if (typeof user !== 'string' || typeof system !== 'string') return undefined;
  const lines = user.split('\n');
  const criterionLine = lines.find((l) => l.startsWith(PROMPT_LINES.criterion));
  const latestAt = lines.indexOf(PROMPT_LINES.latestHeading);
  const replyAt = lines.indexOf(PROMPT_LINES.replyHeading);
  if (!criterionLine || latestAt === -1 || replyAt === -1) return undefined;

  const replyLines: string[] = [];
  for (const line of lines.slice(replyAt + 1)) {
    if (line === '') break;
    if (line.startsWith(PROMPT_LINES.bot) || line.startsWith(PROMPT_LINES.call)) replyLines.push(line);
  }
  const reply = replyLines
    .filter((l) => l.startsWith(PROMPT_LINES.bot))
    .map((l) => String(JSON.parse(l.slice(PROMPT_LINES.bot.length))).trim())
    .join(' ');
  const userLine = lines[latestAt + 1] ?? '';
  let latestUser: string | undefined;
  if (userLine.startsWith(PROMPT_LINES.user)) latestUser = String(JSON.parse(userLine.slice(PROMPT_LINES.user.length)));
  else if (userLine.startsWith(PROMPT_LINES.userKeys))
    latestUser = String(JSON.parse(userLine.slice(PROMPT_LINES.userKeys.length)));
  const view: JudgePromptView = {
    criterion: String(JSON.parse(criterionLine.slice(PROMPT_LINES.criterion.length))),
    reply,
    replyLines,
    prompt: user,
    system,
  };
  if (latestUser !== undefined) view.latestUser = latestUser;
  const callLine = lines.find((l) => l.startsWith(PROMPT_LINES.judgedCall));
  if (callLine) view.call = callLine.slice(PROMPT_LINES.judgedCall.length);
  return view;
}

function validate(rawBody: string): ChatCompletionRequestBody | string {
  let body: unknown;
  try {
    body = JSON.parse(rawBody);
  } catch {
    return 'We could not parse the JSON body of your request.';
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'the request body must be a JSON object';
  const b = body as Record<string, unknown>;
  if (typeof b.model !== 'string' || b.model === '') return 'you must provide a model parameter';
  if (!Array.isArray(b.messages) || b.messages.length === 0) return "'messages' must be a non-empty array";
  for (const [i, m] of (b.messages as unknown[]).entries()) {
    const msg = m as { role?: unknown; content?: unknown } | null;
    if (typeof msg !== 'object' || msg === null || typeof msg.role !== 'string' || !ROLES.has(msg.role)) {
      return `messages[${i}].role must be one of ${[...ROLES].join(', ')}`;
    }
    if (typeof msg.content !== 'string' && !Array.isArray(msg.content))
      return `messages[${i}].content must be a string or an array of parts`;
  }
  if (b.stream !== undefined && typeof b.stream !== 'boolean') return "'stream' must be a boolean";
  if (b.tools !== undefined) {
    if (!Array.isArray(b.tools) || b.tools.length === 0) return "'tools' must be a non-empty array";
    for (const [i, t] of (b.tools as unknown[]).entries()) {
      const tool = t as { type?: unknown; function?: { name?: unknown; parameters?: unknown } } | null;
      if (typeof tool !== 'object' || tool === null || tool.type !== 'function')
        return `tools[${i}].type must be 'function'`;
      if (typeof tool.function?.name !== 'string' || !/^[a-zA-Z0-9_-]{1,64}$/.test(tool.function.name))
        return `tools[${i}].function.name must match ^[a-zA-Z0-9_-]{1,64}$`;
      if (
        tool.function.parameters !== undefined &&
        (typeof tool.function.parameters !== 'object' || tool.function.parameters === null)
      )
        return `tools[${i}].function.parameters must be a JSON Schema object`;
    }
  }
  return b as ChatCompletionRequestBody;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function streamCompletion(
  res: ServerResponse,
  c: {
    id: string;
    created: number;
    model: string;
    content: string;
    finishReason: string;
    toolCalls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  },
): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  const chunk = (delta: Record<string, unknown>, finish: string | null): string =>
    `data: ${JSON.stringify({ id: c.id, object: 'chat.completion.chunk', created: c.created, model: c.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  res.write(chunk({ role: 'assistant', content: '' }, null));
  // A few pieces, split on word boundaries, so a client really has to join deltas.
  for (const piece of c.content.match(/\S+\s*|\s+/g) ?? []) res.write(chunk({ content: piece }, null));
  if (c.toolCalls) res.write(chunk({ tool_calls: c.toolCalls.map((t, index) => ({ index, ...t })) }, null));
  res.write(chunk({}, c.finishReason));
  res.end('data: [DONE]\n\n');
}
