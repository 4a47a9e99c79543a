import { describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { formatLlmOverride, parseLlmOverride } from './llm-override.js';

describe('an LLM on the command line (--judge, --simulator SERVICE:MODEL[@URL])', () => {
  it('parses openai and ollama, an Ollama model with colons, and an endpoint', () => {
    expect(parseLlmOverride('--judge', 'openai:gpt-4o-mini')).toEqual({ service: 'openai', model: 'gpt-4o-mini' });
    expect(parseLlmOverride('--judge', 'openai:gpt-4o-mini@http://127.0.0.1:8000/v1')).toEqual({
      service: 'openai',
      model: 'gpt-4o-mini',
      endpoint: 'http://127.0.0.1:8000/v1',
    });
    expect(parseLlmOverride('--simulator', 'ollama:qwen3:8b@http://127.0.0.1:11434/v1')).toEqual({
      service: 'ollama',
      model: 'qwen3:8b',
      endpoint: 'http://127.0.0.1:11434/v1',
    });
    expect(parseLlmOverride('--judge', 'Ollama:gemma3:4b@http://gpu:11434')).toEqual({
      service: 'ollama',
      model: 'gemma3:4b',
      endpoint: 'http://gpu:11434',
    });
  });

  it('refuses what it cannot use with a usage error naming the flag', () => {
    for (const [flag, value, why] of [
      ['--judge', 'gpt-4o', 'no service'],
      ['--judge', 'typesafe:jev', "unknown service 'typesafe'"],
      ['--simulator', 'openai:', 'no model'],
      ['--simulator', 'openai:m@not a url', "'not a url' is not a URL"],
      ['--judge', 'openai:m@ftp://x/v1', 'the URL must be http(s), got ftp:'],
    ] as const) {
      const err = (() => {
        try {
          parseLlmOverride(flag, value);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(UsageError);
      expect((err as Error).message.startsWith(`${flag} ${value}: ${why} (expected openai:MODEL[@URL]`)).toBe(true);
    }
  });

  it('formats a parsed block back as the flag would be written', () => {
    for (const value of ['openai:gpt-4o-mini', 'ollama:gemma3:4b@http://gpu:11434']) {
      expect(formatLlmOverride(parseLlmOverride('--judge', value))).toBe(value);
    }
  });
});
