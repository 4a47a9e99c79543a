import { join } from 'node:path';
import type { ScenarioStart } from '../report/index.js';
import {
  resolveSessionSettings,
  sessionConfig,
  type SessionBot,
  type SessionConfig,
  type SessionSettings,
  type SessionSettingsOptions,
} from '../session/index.js';
import type { RunContext } from './execute.js';

/** What a runner's options say about its sessions: the `session:` block and the flags written beside it. */
export interface RunSettingsInput {
  env?: NodeJS.ProcessEnv;
  clock?: SessionSettingsOptions['clock'];
  allowCode?: boolean;
  triggerDisconnect?: boolean;
  /** `--judge SERVICE:MODEL[@URL]`. */
  judge?: string;
  /** `--simulator SERVICE:MODEL[@URL]`. */
  simulator?: string;
  session?: SessionSettingsOptions;
}

/**
 * The session settings of a run, merged once from its options: the flags
 * (`--allow-code`, `--trigger-disconnect`, `--judge`, `--simulator`) over the
 * `session:` block, the run's environment and clock over the block's, `more`
 * (what only this runner knows) over both; then every default filled in and
 * the overrides parsed (session/config.ts). Everything after reads the result.
 */
export function resolveRunSettings(options: RunSettingsInput, more: SessionSettingsOptions = {}): SessionSettings {
  const session = options.session ?? {};
  return resolveSessionSettings({
    ...session,
    allowCode: options.allowCode === true || session.allowCode === true,
    triggerDisconnect: options.triggerDisconnect === true || session.triggerDisconnect === true,
    judgeOverride: options.judge ?? session.judgeOverride,
    simulatorOverride: options.simulator ?? session.simulatorOverride,
    env: options.env,
    clock: options.clock,
    ...more,
  });
}

/**
 * One run's session config from the run's settings: its bot (from the run
 * source), the recording beside results.jsonl as `<stem>.wav`, the run's
 * secrets and signal, progress to the reporters, the `-v` trace echo.
 */
export function sessionFor(
  ctx: RunContext,
  info: ScenarioStart,
  stem: string,
  bot: SessionBot,
  echo = ctx.echo,
): SessionConfig {
  return sessionConfig(ctx.settings, bot, {
    recordingPath: join(ctx.outDir, `${stem}.wav`),
    redactor: ctx.redactor,
    signal: ctx.signal,
    onProgress: (p) => ctx.onProgress(info, p),
    ...(echo ? { traceEcho: echo } : {}),
  });
}
