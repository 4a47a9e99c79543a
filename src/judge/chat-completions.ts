import { sleep } from '../core/abort.js';
import type { Redactor } from '../core/redact.js';
import { JudgeError } from './errors.js';
import type { ChatMessage } from './types.js';

/** Where and how to reach an OpenAI-compatible Chat Completions API. */
export interface ChatEndpoint {
  service: string;
  model: string;
  /** Base URL, e.g. `https://api.openai.com/v1`; `/chat/completions` is appended. */
  baseUrl: string;
  /** Sent as `Authorization: Bearer ...` when present. */
  apiKey?: string;
  /** Request fields besides `model` and `messages` (temperature, max_tokens, the scenario's `extra`). */
  fields: Record<string, unknown>;
}

/** A function the model may call instead of answering (an OpenAI `tools` entry of type `function`). */
export interface ChatTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

/** A call the model made; `args` is the parsed `arguments`, undefined when they are not a JSON object. */
export interface ToolCall {
  id?: string;
  name: string;
  arguments: string;
  args?: Record<string, unknown>;
}

/** Beyond the messages: tools the model may call (the simulated caller's `end_call`). */
export interface ChatRequest {
  tools?: readonly ChatTool[];
}

export interface ChatAnswer {
  /** The assistant's text; empty only when it called a tool instead. */
  content: string;
  attempts: number;
  /** Present when the request offered tools: the calls the model made (often none). */
  toolCalls?: ToolCall[];
}

export interface RetryPolicy {
  /** Per attempt, from sending the request to reading the whole body. */
  requestTimeoutMs: number;
  /** Attempts in all, the first included (>= 1). */
  maxAttempts: number;
  /** First backoff; doubles per retry, jittered to 50-100 %. */
  retryBaseDelayMs: number;
  /** Cap on one backoff, `Retry-After` included. */
  retryMaxDelayMs: number;
}

/** A minute per attempt, three attempts, backoff from half a second up to eight. */
export function retryPolicy(options: Partial<RetryPolicy> = {}): RetryPolicy {
  return {
    requestTimeoutMs: options.requestTimeoutMs ?? 60_000,
    maxAttempts: Math.max(1, options.maxAttempts ?? 3),
    retryBaseDelayMs: options.retryBaseDelayMs ?? 500,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 8_000,
  };
}

export interface ChatCallContext {
  policy: RetryPolicy;
  redactor: Redactor;
  trace: (line: string) => void;
  random: () => number;
  signal?: AbortSignal;
  /** Largest response body read (default `MAX_RESPONSE_BYTES`); a longer one fails `bad_response`. */
  maxResponseBytes?: number;
}

const MAX_ERROR_BODY_CHARS = 300;
/**
 * A verdict is a few hundred bytes and a verbose reasoning model's answer a few
 * hundred KB; the endpoint is named by the scenario file, so its body is not
 * trusted to be small.
 */
export const MAX_RESPONSE_BYTES = 4 * 1024 * 1024;

/** Statuses worth another try: the server is busy, rate-limiting or briefly down. */
function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 425 || status === 429 || status >= 500;
}

/**
 * One non-streaming completion. Resolves to the assistant's text (and, when
 * `request.tools` were offered, the tool calls it made), or to a `JudgeError`
 * when no usable answer came back within the retry policy; rejects only with
 * the caller's abort reason.
 */
export async function chatComplete(
  endpoint: ChatEndpoint,
  messages: ChatMessage[],
  ctx: ChatCallContext,
  request: ChatRequest = {},
): Promise<ChatAnswer | JudgeError> {
  const url = `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  const shownUrl = ctx.redactor.text(url);
  const tools = request.tools?.length ? { tools: request.tools.map((t) => ({ type: 'function', function: t })) } : {};
  const body = JSON.stringify({ ...endpoint.fields, model: endpoint.model, messages, ...tools, stream: false });
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (endpoint.apiKey) headers.authorization = `Bearer ${endpoint.apiKey}`;
  const fail = (fields: Omit<ConstructorParameters<typeof JudgeError>[0], 'service' | 'model'>): JudgeError =>
    new JudgeError({
      ...fields,
      message: ctx.redactor.text(fields.message),
      ...(fields.raw === undefined ? {} : { raw: ctx.redactor.text(fields.raw) }),
      service: endpoint.service,
      model: endpoint.model,
    });

  for (let attempt = 1; ; attempt++) {
    ctx.signal?.throwIfAborted();
    const timeout = AbortSignal.timeout(ctx.policy.requestTimeoutMs);
    const signal = ctx.signal ? AbortSignal.any([ctx.signal, timeout]) : timeout;
    let status: number;
    let text: string | null;
    let retryAfter: string | null = null;
    try {
      const response = await fetch(url, { method: 'POST', headers, body, signal });
      status = response.status;
      retryAfter = response.headers.get('retry-after');
      text = await readCapped(response, ctx.maxResponseBytes ?? MAX_RESPONSE_BYTES);
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (timeout.aborted) {
        return fail({
          code: 'timeout',
          message: `no answer from ${shownUrl} within ${ctx.policy.requestTimeoutMs} ms (attempt ${attempt})`,
          attempts: attempt,
        });
      }
      const problem = networkProblem(err);
      if (attempt >= ctx.policy.maxAttempts) {
        return fail({ code: 'network', message: `cannot reach ${shownUrl}: ${problem}`, attempts: attempt });
      }
      await backoff(ctx, attempt, null, `${problem}`, shownUrl);
      continue;
    }

    if (text === null) {
      return fail({
        code: 'bad_response',
        message:
          `${shownUrl} answered HTTP ${status} with a body over ${ctx.maxResponseBytes ?? MAX_RESPONSE_BYTES} bytes; ` +
          `stopped reading`,
        status,
        attempts: attempt,
      });
    }
    if (status >= 200 && status < 300) return readCompletion(text, attempt, fail, request.tools !== undefined);

    const detail = errorDetail(text);
    if (isRetryableStatus(status) && attempt < ctx.policy.maxAttempts) {
      await backoff(ctx, attempt, retryAfter, `HTTP ${status}`, shownUrl);
      continue;
    }
    return fail({
      code: 'http_status',
      message:
        `${shownUrl} answered HTTP ${status}${detail ? `: ${detail}` : ''}` +
        `${attempt > 1 ? ` (after ${attempt} attempts)` : ''}`,
      status,
      attempts: attempt,
      raw: text.slice(0, MAX_ERROR_BODY_CHARS),
    });
  }
}

/** The body as text, or null once it passes `maxBytes` (the rest is not read). */
async function readCapped(response: Response, maxBytes: number): Promise<string | null> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel();
    return null;
  }
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

async function backoff(
  ctx: ChatCallContext,
  attempt: number,
  retryAfter: string | null,
  why: string,
  shownUrl: string,
): Promise<void> {
  const exponential = ctx.policy.retryBaseDelayMs * 2 ** (attempt - 1) * (0.5 + ctx.random() / 2);
  const asked = retryAfterMs(retryAfter);
  const delayMs = Math.round(Math.min(ctx.policy.retryMaxDelayMs, asked ?? exponential));
  ctx.trace(
    ctx.redactor.text(
      `judge: ${shownUrl} attempt ${attempt}/${ctx.policy.maxAttempts}: ${why}; retrying in ${delayMs} ms`,
    ),
  );
  await sleep(delayMs, ctx.signal);
}

/** `Retry-After` is seconds or an HTTP date. */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function readCompletion(
  text: string,
  attempts: number,
  fail: (fields: Omit<ConstructorParameters<typeof JudgeError>[0], 'service' | 'model'>) => JudgeError,
  withTools = false,
): ChatAnswer | JudgeError {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return fail({
      code: 'bad_response',
      message: 'the response body is not JSON',
      attempts,
      raw: text.slice(0, MAX_ERROR_BODY_CHARS),
    });
  }
  const choice = (parsed as { choices?: unknown }).choices;
  const message = Array.isArray(choice) ? (choice[0] as { message?: unknown } | undefined)?.message : undefined;
  if (typeof message !== 'object' || message === null) {
    return fail({
      code: 'bad_response',
      message: 'the response has no choices[0].message (not a Chat Completions response?)',
      attempts,
      raw: text.slice(0, MAX_ERROR_BODY_CHARS),
    });
  }
  const content = contentText((message as { content?: unknown }).content);
  const toolCalls = withTools ? readToolCalls((message as { tool_calls?: unknown }).tool_calls) : undefined;
  if (toolCalls?.length) return { content, attempts, toolCalls };
  if (content.trim() === '') {
    const refusal = (message as { refusal?: unknown }).refusal;
    return fail({
      code: 'empty_answer',
      message: typeof refusal === 'string' ? `the model refused: ${refusal}` : 'the model returned no text',
      attempts,
      raw: text.slice(0, MAX_ERROR_BODY_CHARS),
    });
  }
  return toolCalls ? { content, attempts, toolCalls } : { content, attempts };
}

/** `tool_calls` of type `function`; a call without a name is not one. */
function readToolCalls(raw: unknown): ToolCall[] {
  if (!Array.isArray(raw)) return [];
  const calls: ToolCall[] = [];
  for (const item of raw as unknown[]) {
    const fn = typeof item === 'object' && item !== null ? (item as { function?: unknown }).function : undefined;
    if (typeof fn !== 'object' || fn === null) continue;
    const { name, arguments: args } = fn as { name?: unknown; arguments?: unknown };
    if (typeof name !== 'string' || name === '') continue;
    const call: ToolCall = { name, arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}) };
    const id = (item as { id?: unknown }).id;
    if (typeof id === 'string') call.id = id;
    try {
      const parsed: unknown = JSON.parse(call.arguments || '{}');
      if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
        call.args = parsed as Record<string, unknown>;
    } catch {
      // Arguments that are not JSON are kept as text; the caller decides what a call without args means.
    }
    calls.push(call);
  }
  return calls;
}

/** `content` is a string on the classic wire; some servers send an array of typed parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((part: unknown) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : '',
    )
    .join('');
}

/** The human part of an OpenAI-style error body (`{"error": {"message": ...}}`), else the body's start. */
function errorDetail(text: string): string {
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    const e = parsed.error;
    if (typeof e === 'string') return e.slice(0, MAX_ERROR_BODY_CHARS);
    if (e && typeof e.message === 'string') return e.message.slice(0, MAX_ERROR_BODY_CHARS);
  } catch {
    // not JSON: fall through to the raw text
  }
  return text.trim().slice(0, MAX_ERROR_BODY_CHARS);
}

function networkProblem(err: unknown): string {
  // undici reports "fetch failed" and keeps the useful part (ECONNREFUSED ...) in `cause`.
  const cause = err instanceof Error ? (err.cause as { code?: unknown; message?: unknown } | undefined) : undefined;
  if (cause && typeof cause.code === 'string') return cause.code;
  if (cause && typeof cause.message === 'string') return cause.message;
  return err instanceof Error ? err.message : String(err);
}
