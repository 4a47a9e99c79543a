import { dirname } from 'node:path';
import { FactoryError, loadFactory } from '../core/code-hooks.js';
import type { JudgeBackend } from '../judge/index.js';
import type { LlmConfig } from '../scenario/index.js';

/**
 * A backend a `factory:` module builds, when the block names one; undefined for a service block. Shared by the
 * simulated caller, the GAIA turn writer and their judges: `block` names the field in errors, `file` is the
 * scenario the factory path is relative to.
 */
export async function factoryBackend(
  config: LlmConfig,
  block: string,
  file: string,
  allowCode: boolean,
  env: NodeJS.ProcessEnv,
): Promise<JudgeBackend | undefined> {
  if (typeof config.factory !== 'string') return undefined;
  const fn = await loadFactory(config.factory, { allowCode, baseDir: dirname(file) });
  let made: unknown;
  try {
    made = await fn(config, env);
  } catch (err) {
    throw new FactoryError(config.factory, `threw: ${(err as Error).message}`, { cause: err });
  }
  const backend = made as Partial<JudgeBackend> | null;
  if (!backend || typeof backend !== 'object' || typeof backend.complete !== 'function') {
    throw new FactoryError(
      config.factory,
      `${block}: must return an object with a complete(messages, ctx, request) method (a chat backend)`,
    );
  }
  return {
    service: backend.service ?? 'factory',
    model: backend.model ?? config.factory,
    endpoint: backend.endpoint ?? config.factory,
    secrets: backend.secrets ?? [],
    identity: backend.identity ?? { factory: config.factory },
    complete: backend.complete.bind(backend),
  };
}
