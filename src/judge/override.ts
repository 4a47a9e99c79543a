import { UsageError } from '../core/errors.js';
import type { JudgeServiceConfig } from './services.js';

/**
 * `--judge SERVICE:MODEL[@URL]`: the judge for every scenario of a run, in
 * place of each file's `judge.eval` service, model, endpoint, extra fields
 * and factory (and so its explainer: the override's LLM gives its own
 * reasons), the way `--tts`/`--stt` replace the speech services. What
 * belongs to the scenarios stays theirs: `allow_continue`, `explain_below`.
 * This is what runs Pipecat's corpus, whose judges are Python classifiers,
 * against a local model.
 *
 *   openai:gpt-4o-mini                          OPENAI_BASE_URL or api.openai.com
 *   openai:gpt-4o-mini@http://127.0.0.1:8000/v1 any OpenAI-compatible server
 *   ollama:gemma3:4b                            OLLAMA_HOST (the model may hold colons)
 *   ollama:gemma3:4b@http://gpu-box:11434
 */
export const JUDGE_OVERRIDE_SERVICES = ['openai', 'ollama'] as const;

export function parseJudgeOverride(value: string): JudgeServiceConfig {
  const bad = (why: string): UsageError =>
    new UsageError(
      `--judge ${value}: ${why} (expected openai:MODEL[@URL] or ollama:MODEL[@URL], e.g. openai:gpt-4o-mini@http://127.0.0.1:8000/v1)`,
    );
  const colon = value.indexOf(':');
  if (colon <= 0) throw bad('no service');
  const service = value.slice(0, colon).trim().toLowerCase();
  if (!(JUDGE_OVERRIDE_SERVICES as readonly string[]).includes(service))
    throw bad(`unknown service '${value.slice(0, colon)}'`);
  const rest = value.slice(colon + 1);
  const at = rest.indexOf('@');
  const model = (at >= 0 ? rest.slice(0, at) : rest).trim();
  if (model === '') throw bad('no model');
  const config: JudgeServiceConfig = { service, model };
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
