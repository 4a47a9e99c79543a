import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { UsageError } from '../core/errors.js';
import { ManualTimerDriver } from '../core/timers.js';
import {
  BOT_QUIET_MAX_WAIT_MS,
  BOT_READY_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_LATENCY_WAIT_MS,
  resolveSessionConfig,
  resolveSessionSettings,
  SEND_AFTER_MAX_WAIT_MS,
  sessionConfig,
} from './config.js';

describe("a session's config, resolved once", () => {
  it('fills every default in one place', () => {
    const settings = resolveSessionSettings({ env: {} });
    expect(settings).toMatchObject({
      codec: 'pipecat-eval',
      handshake: 'rtvi',
      botInputRate: 16000,
      connectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
      handshakeTimeoutMs: BOT_READY_TIMEOUT_MS,
      sendAfterMaxWaitMs: SEND_AFTER_MAX_WAIT_MS,
      botQuietMaxWaitMs: BOT_QUIET_MAX_WAIT_MS,
      latencyWaitMs: DEFAULT_LATENCY_WAIT_MS,
      triggerDisconnect: false,
      allowCode: false,
      judge: { override: null, cacheDir: undefined, cache: true },
      simulatorOverride: null,
      media: null,
    });
  });

  it('parses --judge and --simulator into their typed form, and takes a typed block as it is', () => {
    const typed = { service: 'ollama', model: 'qwen3:8b' };
    const settings = resolveSessionSettings({
      judgeOverride: 'openai:gpt-4o-mini@http://127.0.0.1:8000/v1',
      simulatorOverride: typed,
    });
    expect(settings.judge.override).toEqual({
      service: 'openai',
      model: 'gpt-4o-mini',
      endpoint: 'http://127.0.0.1:8000/v1',
    });
    expect(settings.simulatorOverride).toBe(typed);
    expect(() => resolveSessionSettings({ judgeOverride: 'gpt-4o' })).toThrow(UsageError);
    expect(() => resolveSessionSettings({ simulatorOverride: 'typesafe:x' })).toThrow(/^--simulator typesafe:x: /);
  });

  it('is read-only, and resolving what is resolved gives it back unchanged', () => {
    const settings = resolveSessionSettings({ codec: 'protobuf' });
    expect(Object.isFrozen(settings)).toBe(true);
    expect(Object.isFrozen(settings.judge)).toBe(true);
    expect(resolveSessionSettings(settings)).toBe(settings);
    const config = sessionConfig(settings, { url: 'ws://127.0.0.1:7860' });
    expect(resolveSessionConfig(config)).toBe(config);
    expect(() => {
      (config as { codec: string }).codec = 'pipecat-eval';
    }).toThrow(TypeError);
  });

  it("adds one session's bot to the shared settings: a manifest entry's handshake wins over the run's", () => {
    const clock = new ManualClock();
    const timers = new ManualTimerDriver(clock);
    const settings = resolveSessionSettings({ handshake: 'rtvi', clock, timers });
    const config = sessionConfig(settings, { url: 'ws://h:1', handshake: 'none', stopBot: true, run: { attempt: 1 } });
    expect(config).toMatchObject({ url: 'ws://h:1', handshake: 'none', stopBot: true, run: { attempt: 1 } });
    expect(config.clock).toBe(clock);
    expect(config.timers).toBe(timers);
    expect(sessionConfig(settings, { url: 'ws://h:2' }).handshake).toBe('rtvi');
  });

  it('plain session options resolve to the same config a runner derives', () => {
    const env = { OPENAI_API_KEY: 'sk-test' };
    const direct = resolveSessionConfig({ url: 'ws://h:1', env, codec: 'protobuf', stopBot: true });
    const derived = sessionConfig(resolveSessionSettings({ env, codec: 'protobuf' }), {
      url: 'ws://h:1',
      stopBot: true,
    });
    const { redactor: a, timers: ta, ...restA } = direct;
    const { redactor: b, timers: tb, ...restB } = derived;
    expect(restA).toEqual(restB);
    expect(a.text('key sk-test')).toBe(b.text('key sk-test'));
  });
});
