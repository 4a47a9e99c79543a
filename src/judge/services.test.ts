import { describe, expect, it } from 'vitest';
import { JudgeConfigError } from './errors.js';
import { ollamaHostUrl, resolveJudgeService, unknownJudgeFields } from './services.js';

function configError(fn: () => unknown): JudgeConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof JudgeConfigError) return err;
    throw err;
  }
  throw new Error('expected a JudgeConfigError');
}

describe('judge services', () => {
  describe('ollama (the default service)', () => {
    it("is Pipecat's default judge when the block is empty: gemma4:12b with reasoning off, on the local host", () => {
      const backend = resolveJudgeService(undefined, {});
      expect(backend).toMatchObject({
        service: 'ollama',
        model: 'gemma4:12b',
        endpoint: 'http://127.0.0.1:11434/v1',
        secrets: [],
      });
      expect(backend.identity.fields).toEqual({ temperature: 0, max_tokens: 200, reasoning_effort: 'none' });
    });

    it('sends only the extras asked for when the scenario names a model', () => {
      const backend = resolveJudgeService({ model: 'qwen3:8b' }, {});
      expect(backend.identity.fields).toEqual({ temperature: 0, max_tokens: 200 });
    });

    it('reads OLLAMA_HOST the way the Ollama CLI does', () => {
      expect(ollamaHostUrl(undefined)).toBe('http://127.0.0.1:11434');
      expect(ollamaHostUrl('gpu-box')).toBe('http://gpu-box:11434');
      expect(ollamaHostUrl('0.0.0.0:8080')).toBe('http://0.0.0.0:8080');
      expect(ollamaHostUrl('localhost:80')).toBe('http://localhost');
      expect(ollamaHostUrl('https://ollama.example.com')).toBe('https://ollama.example.com');
      expect(ollamaHostUrl('http://10.0.0.5:11434/')).toBe('http://10.0.0.5:11434');
      expect(resolveJudgeService({}, { OLLAMA_HOST: 'gpu-box:9999' }).endpoint).toBe('http://gpu-box:9999/v1');
      expect(configError(() => ollamaHostUrl('ftp://x')).field).toBe('OLLAMA_HOST');
    });

    it('prefers the scenario endpoint over OLLAMA_HOST and adds /v1 to a bare host', () => {
      const env = { OLLAMA_HOST: 'ignored:1' };
      expect(resolveJudgeService({ endpoint: 'http://gpu:11434/v1' }, env).endpoint).toBe('http://gpu:11434/v1');
      expect(resolveJudgeService({ endpoint: 'http://gpu:11434' }, env).endpoint).toBe('http://gpu:11434/v1');
    });

    it('sends a bearer key only when one is configured', () => {
      expect(resolveJudgeService({}, { OLLAMA_API_KEY: 'ollama-secret-1' }).secrets).toEqual(['ollama-secret-1']);
    });
  });

  describe('openai (any OpenAI-compatible API)', () => {
    it("never sends the environment's key to a host a scenario's endpoint names (only where the environment points, or loopback)", () => {
      const env = { OPENAI_API_KEY: 'sk-env-secret-123456', OPENAI_BASE_URL: 'https://gateway.example/v1' };
      expect(resolveJudgeService({ service: 'openai', endpoint: 'https://attacker.example/v1' }, env).secrets).toEqual(
        [],
      );
      expect(
        resolveJudgeService({ service: 'openai', endpoint: 'https://gateway.example/other/v1' }, env).secrets,
      ).toEqual(['sk-env-secret-123456']);
      expect(resolveJudgeService({ service: 'openai', endpoint: 'http://127.0.0.1:8000/v1' }, env).secrets).toEqual([
        'sk-env-secret-123456',
      ]);
      expect(
        resolveJudgeService(
          { service: 'openai', endpoint: 'https://attacker.example/v1', api_key: 'sk-own-key-123' },
          env,
        ).secrets,
      ).toEqual(['sk-own-key-123']);
      expect(
        resolveJudgeService({ endpoint: 'http://elsewhere:11434' }, { OLLAMA_API_KEY: 'ollama-secret-1' }).secrets,
      ).toEqual([]);
    });

    it('uses the endpoint, else OPENAI_BASE_URL, else api.openai.com', () => {
      const env = { OPENAI_API_KEY: 'sk-test-123456', OPENAI_BASE_URL: 'http://proxy.local:8000/v1/' };
      expect(resolveJudgeService({ service: 'openai', endpoint: 'http://vllm:8000/v1' }, env).endpoint).toBe(
        'http://vllm:8000/v1',
      );
      expect(resolveJudgeService({ service: 'openai' }, env).endpoint).toBe('http://proxy.local:8000/v1');
      expect(resolveJudgeService({ service: 'OpenAI' }, { OPENAI_API_KEY: 'sk-test-123456' }).endpoint).toBe(
        'https://api.openai.com/v1',
      );
    });

    it("defaults to Pipecat's gpt-4o and accepts a full /chat/completions URL as the endpoint", () => {
      const backend = resolveJudgeService({ service: 'openai', endpoint: 'http://h:1/v1/chat/completions' }, {});
      expect(backend.model).toBe('gpt-4o');
      expect(backend.endpoint).toBe('http://h:1/v1');
    });

    it("takes the key from the scenario's api_key before OPENAI_API_KEY, and keeps it out of the cache identity", () => {
      const backend = resolveJudgeService(
        { service: 'openai', api_key: 'sk-from-scenario' },
        { OPENAI_API_KEY: 'sk-from-env-123' },
      );
      expect(backend.secrets).toEqual(['sk-from-scenario']);
      expect(JSON.stringify(backend.identity)).not.toContain('sk-');
    });

    it('refuses api.openai.com without a key, but not a local server', () => {
      const err = configError(() => resolveJudgeService({ service: 'openai' }, {}));
      expect(err.message).toMatch(/OPENAI_API_KEY/);
      expect(err.exitCode).toBe(2);
      expect(resolveJudgeService({ service: 'openai', endpoint: 'http://127.0.0.1:8080/v1' }, {}).secrets).toEqual([]);
    });
  });

  describe('extra', () => {
    it('passes extra fields through over the defaults, and null removes a default', () => {
      const backend = resolveJudgeService(
        {
          service: 'openai',
          endpoint: 'http://h/v1',
          extra: { temperature: null, max_tokens: 50, top_p: 0.1, options: { num_ctx: 4096 } },
        },
        {},
      );
      expect(backend.identity.fields).toEqual({ max_tokens: 50, top_p: 0.1, options: { num_ctx: 4096 } });
    });

    it('refuses fields earshot owns', () => {
      for (const key of ['model', 'messages', 'stream']) {
        expect(configError(() => resolveJudgeService({ extra: { [key]: 1 } }, {})).field).toBe(
          `judge.eval.extra.${key}`,
        );
      }
    });
  });

  describe('bad configuration gets a located error', () => {
    it('names the unknown service and lists the known ones', () => {
      const err = configError(() => resolveJudgeService({ service: 'anthropic' }, {}));
      expect(err.field).toBe('judge.eval.service');
      expect(err.message).toMatch(/unknown judge service "anthropic"; known: openai, ollama/);
    });

    it('refuses a factory hook it was not handed a backend for, with a way forward', () => {
      expect(configError(() => resolveJudgeService({ factory: 'my.mod.make' }, {})).message).toMatch(
        /^judge\.eval\.factory: is a code hook.*OpenAI-compatible/,
      );
    });

    it('ignores fields no service reads, as Pipecat does, and names them', () => {
      expect(resolveJudgeService({ model: 'm', temperature: 0 }, {}).model).toBe('m');
      expect(unknownJudgeFields({ model: 'm', temperature: 0, modle: 'x' })).toEqual(['temperature', 'modle']);
      expect(unknownJudgeFields(undefined)).toEqual([]);
    });

    it('refuses wrong types, non-http URLs and URLs with credentials', () => {
      expect(configError(() => resolveJudgeService({ model: 7 }, {})).field).toBe('judge.eval.model');
      expect(configError(() => resolveJudgeService({ extra: [1] }, {})).field).toBe('judge.eval.extra');
      expect(configError(() => resolveJudgeService('ollama', {})).field).toBe('judge.eval');
      expect(configError(() => resolveJudgeService({ endpoint: 'not a url' }, {})).field).toBe('judge.eval.endpoint');
      expect(configError(() => resolveJudgeService({ endpoint: 'ws://h/v1' }, {})).message).toMatch(/http\(s\)/);
      const creds = configError(() =>
        resolveJudgeService({ service: 'openai', endpoint: 'https://u:hunter2@h/v1' }, {}),
      );
      expect(creds.message).not.toContain('hunter2');
    });

    it('names OPENAI_BASE_URL when that is what is broken', () => {
      expect(configError(() => resolveJudgeService({ service: 'openai' }, { OPENAI_BASE_URL: 'nope' })).field).toBe(
        'OPENAI_BASE_URL',
      );
    });
  });
});
