import { describe, expect, it } from 'vitest';
import { resolveRunSettings } from './run-config.js';

describe("a run's session settings, merged once from its options", () => {
  it('takes the flags over the session block: --judge, --simulator, --allow-code, --trigger-disconnect', () => {
    const settings = resolveRunSettings({
      judge: 'ollama:gemma3:4b',
      simulator: 'openai:persona@http://127.0.0.1:9/v1',
      allowCode: true,
      triggerDisconnect: true,
      session: { judgeOverride: 'openai:other', codec: 'protobuf', latencyWaitMs: 900 },
    });
    expect(settings).toMatchObject({
      judge: { override: { service: 'ollama', model: 'gemma3:4b' } },
      simulatorOverride: { service: 'openai', model: 'persona', endpoint: 'http://127.0.0.1:9/v1' },
      allowCode: true,
      triggerDisconnect: true,
      codec: 'protobuf',
      latencyWaitMs: 900,
    });
  });

  it("keeps the session block's own choices when no flag says otherwise", () => {
    const settings = resolveRunSettings({ session: { allowCode: true, judgeOverride: 'openai:m' } });
    expect(settings.allowCode).toBe(true);
    expect(settings.judge.override).toEqual({ service: 'openai', model: 'm' });
  });

  it("the run's environment wins over the block's, and a runner's own settings over both", () => {
    const env = { A: '1' };
    const settings = resolveRunSettings(
      { env, session: { env: { B: '2' }, connectTimeoutMs: 1 } },
      { connectTimeoutMs: 2500 },
    );
    expect(settings.env).toBe(env);
    expect(settings.connectTimeoutMs).toBe(2500);
  });
});
