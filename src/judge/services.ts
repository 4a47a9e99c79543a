import {
  chatComplete,
  type ChatAnswer,
  type ChatCallContext,
  type ChatEndpoint,
  type ChatRequest,
} from './chat-completions.js';
import { JudgeConfigError, type JudgeError } from './errors.js';
import type { ChatMessage } from './types.js';

/**
 * The scenario's `judge.eval` block, as Pipecat writes it. Everything optional:
 * an empty block is Pipecat's default judge (Ollama, `gemma4:12b`, reasoning off).
 */
export interface JudgeServiceConfig {
  service?: string;
  model?: string;
  /** Base URL of the API (`.../v1`). */
  endpoint?: string;
  /** Extra top-level request fields, forwarded as they are; `null` removes a default (e.g. `temperature: null`). */
  extra?: Record<string, unknown>;
  /** Discouraged (keys belong in the environment); redacted like any key. */
  api_key?: string;
  /** Pipecat's Python factory hook; refused with a clear error. */
  factory?: string;
}

/** A judge model behind some API: what it is (for logs and the cache key) and how to ask it. */
export interface JudgeBackend {
  service: string;
  model: string;
  /** Base URL, for logs. */
  endpoint: string;
  /** Values the redactor must mask (API keys). */
  secrets: string[];
  /** Everything that changes the answers besides the prompt; part of the cache key, never a secret. */
  identity: Record<string, unknown>;
  /**
   * `request.tools`: functions the model may call (a backend that cannot offer them ignores them and answers in text).
   */
  complete(messages: ChatMessage[], ctx: ChatCallContext, request?: ChatRequest): Promise<ChatAnswer | JudgeError>;
}

export type JudgeServiceFactory = (config: JudgeServiceConfig, env: NodeJS.ProcessEnv) => JudgeBackend;

export const DEFAULT_OPENAI_BASE_URL = 'https://api.openai.com/v1';
export const DEFAULT_OPENAI_MODEL = 'gpt-4o';
export const DEFAULT_OLLAMA_HOST = 'http://127.0.0.1:11434';
/** Pipecat's default judge since 43a12e675: a thinking-capable model with its reasoning switched off. */
export const DEFAULT_OLLAMA_MODEL = 'gemma4:12b';
export const DEFAULT_OLLAMA_EXTRA: Readonly<Record<string, unknown>> = Object.freeze({ reasoning_effort: 'none' });

/** Deterministic answers, and room for a verdict plus one sentence. */
export const DEFAULT_REQUEST_FIELDS: Readonly<Record<string, unknown>> = Object.freeze({
  temperature: 0,
  max_tokens: 200,
});

const KNOWN_FIELDS = ['service', 'model', 'endpoint', 'extra', 'api_key', 'factory'];
const RESERVED_EXTRA = ['model', 'messages', 'stream'];

const openai: JudgeServiceFactory = (config, env) => {
  const baseUrl = checkedBaseUrl(
    config.endpoint ?? nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL,
    config.endpoint !== undefined ? 'judge.eval.endpoint' : 'OPENAI_BASE_URL',
  );
  const envBase = checkedBaseUrl(nonEmpty(env.OPENAI_BASE_URL) ?? DEFAULT_OPENAI_BASE_URL, 'OPENAI_BASE_URL');
  const apiKey = config.api_key ?? (envKeyMayGoTo(baseUrl, envBase) ? nonEmpty(env.OPENAI_API_KEY) : undefined);
  if (!apiKey && new URL(baseUrl).hostname === 'api.openai.com') {
    throw new JudgeConfigError(
      'judge.eval',
      'service "openai" needs OPENAI_API_KEY in the environment (or an endpoint that needs no key)',
    );
  }
  return chatBackend({
    service: 'openai',
    model: config.model ?? DEFAULT_OPENAI_MODEL,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    fields: requestFields(config.extra ?? {}),
  });
};

/**
 * Ollama through its OpenAI-compatible `/v1/chat/completions`, not the native
 * `/api/chat`: Pipecat's judge talks to `/v1`, so the `extra:` fields written in
 * Pipecat scenarios (`reasoning_effort: none` in its own default) mean the same
 * here, and one wire client serves both services. Native-only knobs such as
 * `options.num_ctx` are out of reach this way; a model tag with the setting baked
 * in (a Modelfile) covers that.
 */
const ollama: JudgeServiceFactory = (config, env) => {
  let baseUrl: string;
  if (config.endpoint !== undefined) {
    baseUrl = checkedBaseUrl(config.endpoint, 'judge.eval.endpoint');
    // Pipecat's endpoints carry /v1; accept the bare host too rather than 404 on it.
    const url = new URL(baseUrl);
    if (url.pathname === '/' || url.pathname === '') baseUrl = `${url.origin}/v1`;
  } else {
    baseUrl = `${ollamaHostUrl(env.OLLAMA_HOST)}/v1`;
  }
  const apiKey =
    config.api_key ??
    (envKeyMayGoTo(baseUrl, `${ollamaHostUrl(env.OLLAMA_HOST)}/v1`) ? nonEmpty(env.OLLAMA_API_KEY) : undefined);
  const model = config.model ?? DEFAULT_OLLAMA_MODEL;
  // Pipecat's rule: the default model comes with the extras it needs; a named model gets only what is asked.
  const extra = config.extra ?? (config.model === undefined ? { ...DEFAULT_OLLAMA_EXTRA } : {});
  return chatBackend({
    service: 'ollama',
    model,
    baseUrl,
    ...(apiKey ? { apiKey } : {}),
    fields: requestFields(extra),
  });
};

/**
 * A key from the environment goes only where the environment points (its
 * base URL, or the default), or to this machine. A scenario file is shared
 * between people: its `endpoint:` must not be able to collect the reader's key
 * by naming a host of its author's choosing. A scenario that needs a key for
 * another host names it with `api_key:`.
 */
export function envKeyMayGoTo(baseUrl: string, envBaseUrl: string): boolean {
  const target = new URL(baseUrl);
  if (target.origin === new URL(envBaseUrl).origin) return true;
  return ['localhost', '127.0.0.1', '[::1]', '::1'].includes(target.hostname);
}

/** Judge services by the name a scenario's `judge.eval.service` uses. A new one is a factory and a line. */
export const JUDGE_SERVICES: Readonly<Record<string, JudgeServiceFactory>> = Object.freeze({ openai, ollama });

/** Validates a `judge.eval` block and builds its backend; throws `JudgeConfigError` naming the field. */
export function resolveJudgeService(
  raw: unknown,
  env: NodeJS.ProcessEnv,
  services: Readonly<Record<string, JudgeServiceFactory>> = JUDGE_SERVICES,
): JudgeBackend {
  const config = checkedConfig(raw);
  const name = (config.service ?? 'ollama').toLowerCase();
  const factory = Object.hasOwn(services, name) ? services[name] : undefined;
  if (!factory) {
    throw new JudgeConfigError(
      'judge.eval.service',
      `unknown judge service ${JSON.stringify(config.service)}; known: ${Object.keys(services).join(', ')} ` +
        `(any OpenAI-compatible server works as "openai" with an endpoint)`,
    );
  }
  return factory(config, env);
}

/**
 * Fields of a `judge.eval` block that no service reads. Pipecat ignores them (they
 * may be meant for a factory), so they are not an error; the judge traces them.
 */
export function unknownJudgeFields(raw: unknown): string[] {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return [];
  return Object.keys(raw).filter((key) => !KNOWN_FIELDS.includes(key));
}

function checkedConfig(raw: unknown): JudgeServiceConfig {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw))
    throw new JudgeConfigError('judge.eval', 'must be a mapping (service, model, endpoint, extra)');
  const config = raw as Record<string, unknown>;
  if (config.factory !== undefined) {
    throw new JudgeConfigError(
      'judge.eval.factory',
      'is a code hook; it runs only when the run allows code, and the caller passes what it builds as the judge ' +
        "backend (Pipecat's Python factories cannot run here). " +
        "For another OpenAI-compatible server use 'service: openai' with 'endpoint:'",
    );
  }
  for (const key of ['service', 'model', 'endpoint', 'api_key'] as const) {
    const value = config[key];
    if (value !== undefined && (typeof value !== 'string' || value.trim() === '')) {
      throw new JudgeConfigError(`judge.eval.${key}`, 'must be a non-empty string');
    }
  }
  const extra = config.extra;
  if (extra !== undefined && (typeof extra !== 'object' || extra === null || Array.isArray(extra))) {
    throw new JudgeConfigError('judge.eval.extra', 'must be a mapping of request fields');
  }
  for (const key of Object.keys(extra ?? {})) {
    if (RESERVED_EXTRA.includes(key))
      throw new JudgeConfigError(`judge.eval.extra.${key}`, 'is set by earshot and cannot be overridden');
  }
  return config as JudgeServiceConfig;
}

/** Defaults, then the scenario's extra on top; a `null` in extra drops the field (models that reject temperature 0). */
function requestFields(extra: Record<string, unknown>): Record<string, unknown> {
  const fields: Record<string, unknown> = { ...DEFAULT_REQUEST_FIELDS };
  for (const [key, value] of Object.entries(extra)) {
    if (value === null) delete fields[key];
    else fields[key] = value;
  }
  return fields;
}

function chatBackend(endpoint: ChatEndpoint): JudgeBackend {
  return {
    service: endpoint.service,
    model: endpoint.model,
    endpoint: endpoint.baseUrl,
    secrets: endpoint.apiKey ? [endpoint.apiKey] : [],
    identity: { service: endpoint.service, model: endpoint.model, endpoint: endpoint.baseUrl, fields: endpoint.fields },
    complete: (messages, ctx, request) => chatComplete(endpoint, messages, ctx, request),
  };
}

function checkedBaseUrl(value: string, field: string): string {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new JudgeConfigError(
      field,
      `${JSON.stringify(value)} is not a URL (expected e.g. https://api.openai.com/v1)`,
    );
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new JudgeConfigError(field, `must be an http(s) URL, got ${url.protocol}`);
  if (url.username || url.password)
    throw new JudgeConfigError(field, 'must not carry credentials; put the key in the environment');
  if (url.search || url.hash) throw new JudgeConfigError(field, 'must be a base URL without query or fragment');
  const path = url.pathname.replace(/\/+$/, '').replace(/\/chat\/completions$/, '');
  return `${url.origin}${path}`;
}

/**
 * `OLLAMA_HOST` as the Ollama CLI reads it: `[scheme://]host[:port]`, scheme
 * defaulting to http and port to 11434 when no scheme is given (80/443 when one is).
 */
export function ollamaHostUrl(value: string | undefined): string {
  const s = (value ?? '').trim();
  if (s === '') return DEFAULT_OLLAMA_HOST;
  const hasScheme = s.includes('://');
  const withScheme = hasScheme ? s : `http://${s}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new JudgeConfigError('OLLAMA_HOST', `${JSON.stringify(value)} is not a host (expected e.g. 127.0.0.1:11434)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new JudgeConfigError('OLLAMA_HOST', `must be http or https, got ${url.protocol}`);
  // URL drops a port equal to the scheme's default, which is right only when the user wrote the scheme.
  if (!hasScheme && url.port === '' && !/:\d+(\/|$)/.test(s)) url.port = '11434';
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.origin}${path}`;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value !== undefined && value.trim() !== '' ? value.trim() : undefined;
}
