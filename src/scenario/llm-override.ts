import { UsageError } from '../core/errors.js';
import type { LlmConfig } from './types.js';

/** The services an LLM block given on the command line may name. */
export const LLM_OVERRIDE_SERVICES = ['openai', 'ollama'] as const;

/** The flags that take an LLM as `SERVICE:MODEL[@URL]`. */
export type LlmOverrideFlag = '--judge' | '--simulator';

/**
 * An LLM block written on the command line, `SERVICE:MODEL[@URL]`: `--judge`
 * in place of every file's `judge.eval` service, `--simulator` in place of
 * every simulation's `simulator:` block (the way `--tts`/`--stt` replace the
 * speech services). What belongs to the files stays theirs (`allow_continue`,
 * `explain_below`). This is what runs Pipecat's corpus, whose judges are
 * Python classifiers, against a local model.
 *
 *   openai:gpt-4o-mini                          OPENAI_BASE_URL or api.openai.com
 *   openai:gpt-4o-mini@http://127.0.0.1:8000/v1 any OpenAI-compatible server
 *   ollama:gemma3:4b                            OLLAMA_HOST (the model may hold colons)
 *   ollama:gemma3:4b@http://gpu-box:11434
 *
 * Parsed once, where the flag or option enters earshot; a bad value is a
 * `UsageError` that names the flag.
 */
export function parseLlmOverride(flag: LlmOverrideFlag, value: string): LlmConfig {
  const bad = (why: string): UsageError =>
    new UsageError(
      `${flag} ${value}: ${why} (expected openai:MODEL[@URL] or ollama:MODEL[@URL], ` +
        'e.g. openai:gpt-4o-mini@http://127.0.0.1:8000/v1)',
    );
  const colon = value.indexOf(':');
  if (colon <= 0) throw bad('no service');
  const service = value.slice(0, colon).trim().toLowerCase();
  if (!(LLM_OVERRIDE_SERVICES as readonly string[]).includes(service)) {
    throw bad(`unknown service '${value.slice(0, colon)}'`);
  }
  const rest = value.slice(colon + 1);
  const at = rest.indexOf('@');
  const model = (at >= 0 ? rest.slice(0, at) : rest).trim();
  if (model === '') throw bad('no model');
  const config: LlmConfig = { service, model };
  if (at >= 0) {
    const endpoint = rest.slice(at + 1).trim();
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw bad(`'${endpoint}' is not a URL`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw bad(`the URL must be http(s), got ${url.protocol}`);
    config.endpoint = endpoint;
  }
  return config;
}

/** The flag's form of an LLM block parsed from one (`service:model[@endpoint]`), for traces. */
export function formatLlmOverride(config: LlmConfig): string {
  return `${config.service}:${config.model ?? ''}${config.endpoint !== undefined ? `@${config.endpoint}` : ''}`;
}
