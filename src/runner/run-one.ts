import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { errorMessage } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import type { ScenarioStart } from '../report/index.js';
import {
  errorResult,
  failure,
  type Failure,
  type FailureKind,
  type ScenarioResult,
  type ScenarioRun,
} from '../results/index.js';
import {
  BotProcess,
  checkSpawnTemplate,
  describeExit,
  expandSpawn,
  type PortAllocator,
  type ReadyOutcome,
} from '../bots/index.js';
import { writeDocumentsFile } from './documents-file.js';
import { runnableTags } from '../drivers/index.js';
import { keepArtifacts, safeName } from './artifacts.js';
import type { RunContext, RunSource } from './execute.js';
import type { PlannedRun } from './plan.js';
import { sessionFor } from './run-config.js';
import { notRunTurns, runRunnable } from './run-kind.js';

/**
 * One run of a suite: a fresh bot on a free port, readiness, the scenario,
 * then the bot stopped and its log kept beside the results. Everything the bot
 * does wrong becomes a failure value; only an abort (a signal) throws.
 */

export interface BotSettings {
  spawn: string;
  python: string;
  usesBot: boolean;
  host: string;
  selfCommand?: readonly string[];
  spawnTimeoutMs: number;
  stopTimeoutMs: number;
  termTimeoutMs: number;
}

/** The source of `earshot suite`: a bot spawned for each planned run, on its own free port. */
export class SpawnedBots implements RunSource<PlannedRun> {
  /** Bots alive right now, so an exiting process can kill them. */
  private readonly live = new Set<BotProcess>();

  constructor(
    private readonly bots: BotSettings,
    private readonly ports: PortAllocator,
    /** The plan's repeat count, for the artifact names. */
    private readonly repeat: number,
    private readonly shard?: string,
  ) {}

  describe(run: PlannedRun): ScenarioStart {
    return startInfo(run);
  }

  run(run: PlannedRun, info: ScenarioStart, ctx: RunContext): Promise<ScenarioResult | null> {
    const echo = ctx.echo;
    return runOne(run, runStem(run, this.repeat), info, {
      ...ctx,
      bots: this.bots,
      ports: this.ports,
      live: this.live,
      ...(this.shard !== undefined ? { shard: this.shard } : {}),
      ...(echo ? { say: (line: string) => echo(`[${run.label} ${run.id}#${run.repeat_index}] ${line}`) } : {}),
    });
  }

  /**
   * Last resort: kills every bot still alive (an uncaught error, process.exit). Bound, to serve as an 'exit' listener.
   */
  readonly close = (): void => {
    this.live.forEach((b) => {
      b.killNow();
    });
    this.ports.releaseAll();
  };
}

interface OneRunContext extends RunContext {
  bots: BotSettings;
  ports: PortAllocator;
  live: Set<BotProcess>;
  shard?: string;
  /** The run's debug trace lines, labelled with its bot and scenario (`--verbose`). */
  say?: (line: string) => void;
}

/** The stop used when a signal interrupts a run: short grace, then the signals. */
const INTERRUPT_GRACE_MS = 500;
const LOG_TAIL_LINES = 12;

export function startInfo(run: PlannedRun): ScenarioStart {
  return {
    name: run.id,
    file: run.file,
    bot: run.label,
    repeat_index: run.repeat_index,
    turn_count: run.loaded.kind === 'script' ? run.loaded.turns.length : 0,
    ...runnableTags(run.loaded),
  };
}

export function runInfo(run: PlannedRun, extra: Partial<ScenarioRun> = {}, shard?: string): ScenarioRun {
  const info: ScenarioRun = {
    bot: run.label,
    ...(run.label !== run.bot ? { bot_path: run.bot } : {}),
    repeat_index: run.repeat_index,
    attempt: 1,
    ...extra,
  };
  if (shard !== undefined) info.shard = shard;
  if (run.loaded.kind === 'simulation') info.pass_threshold = run.loaded.pass_threshold;
  return info;
}

/**
 * `003-voice-bot__greeting__greeting__r1` (bot, then the entry's label when it
 * has its own, then the scenario's name with `/` as `__`): unique in the run
 * and across shards (the ordinal is the manifest's).
 */
export function runStem(run: PlannedRun, repeat: number): string {
  const bot = (name: string): string => name.replace(/\.[A-Za-z0-9]+$/, '').replace(/[^A-Za-z0-9._-]+/g, '_');
  const label = run.label !== run.bot ? `__${run.label.replace(/[^A-Za-z0-9._-]+/g, '_')}` : '';
  const base =
    `${bot(run.bot)}${label}__${safeName(run.id, 100)}` +
    `${repeat > 1 || run.repeat_index > 0 ? `__r${run.repeat_index}` : ''}`;
  return `${String(run.ordinal + 1).padStart(3, '0')}-${base.slice(0, 120) || 'run'}`;
}

/**
 * Runs one scenario or simulation against its own bot. Returns null when a signal interrupted it (nothing finished).
 */
async function runOne(
  run: PlannedRun,
  stem: string,
  info: ScenarioStart,
  ctx: OneRunContext,
): Promise<ScenarioResult | null> {
  const scenario = run.loaded;
  const startedAt = new Date().toISOString();
  const t0 = ctx.settings.clock.now();
  const logFile = join(ctx.outDir, `${stem}.bot.log`);
  const artifacts = { bot_log: relative(ctx.outDir, logFile) };
  const notStarted = (reason: string, withLog: boolean): ScenarioResult => ({
    name: info.name,
    file: run.file,
    status: 'failed',
    started_at: startedAt,
    duration_ms: Math.round(ctx.settings.clock.now() - t0),
    turns: notRunTurns(scenario),
    failures: [failure('connect_failed', ctx.redactor.text(reason))],
    ...(withLog ? { artifacts } : {}),
    run: runInfo(run, {}, ctx.shard),
    ...runnableTags(scenario),
  });

  if (ctx.bots.usesBot && !existsSync(run.bot_path)) {
    return notStarted(`bot not found: ${run.bot_path} (bot: ${run.bot})`, false);
  }
  const port = await ctx.ports.acquire();
  const url = `ws://${ctx.bots.host.includes(':') ? `[${ctx.bots.host}]` : ctx.bots.host}:${port}`;
  let bot: BotProcess | undefined;
  try {
    const docs = checkSpawnTemplate(ctx.bots.spawn).has('documents')
      ? await writeDocumentsFile(scenario, ctx.outDir, stem)
      : undefined;
    if (docs && 'error' in docs) return notStarted(docs.error, false);
    const cmd = expandSpawn(
      ctx.bots.spawn,
      { python: ctx.bots.python, bot: run.bot_path, port, ...(docs ? { documents: docs.file } : {}) },
      { runnerBody: await runnerBodyFile(run, ctx.outDir, stem), selfCommand: ctx.bots.selfCommand },
    );
    bot = BotProcess.spawn({
      command: cmd.command,
      args: cmd.args,
      // Pipecat runs a bot with a runner body in the body's folder, so paths inside it resolve there.
      cwd: run.runner_body !== undefined ? dirname(run.runner_body) : undefined,
      env: {
        ...ctx.settings.env,
        EARSHOT_BOT: run.bot,
        EARSHOT_SCENARIO: run.id,
        EARSHOT_REPEAT_INDEX: String(run.repeat_index),
        EARSHOT_PORT: String(port),
        ...(docs ? { EARSHOT_DOCUMENTS: docs.file } : {}),
      },
      logFile,
      clock: ctx.settings.clock,
    });
    ctx.live.add(bot);
    const spawned = `bot: spawned ${[cmd.command, ...cmd.args].map(quoteArg).join(' ')} (pid ${bot.pid ?? '?'})`;
    ctx.say?.(spawned);
    const ready: ReadyOutcome = await bot.waitReady({
      host: ctx.bots.host,
      port,
      timeoutMs: ctx.bots.spawnTimeoutMs,
      signal: ctx.signal,
    });
    const readyLine = ready.ready
      ? `bot: accepting connections on port ${port} after ${ready.afterMs} ms`
      : `bot: not ready (${ready.why})`;
    ctx.say?.(readyLine);
    if (!ready.ready) {
      const what =
        ready.why === 'exited'
          ? `bot ${run.bot} ${describeExit(ready.exit)} before accepting connections on port ${port}`
          : `bot ${run.bot} did not accept connections on port ${port} within ${ctx.bots.spawnTimeoutMs} ms`;
      await stopBot(bot, ctx, true);
      return notStarted(`${what}${logSuffix(bot)}`, true);
    }

    let outcome: Awaited<ReturnType<typeof runRunnable>> | ReturnType<typeof harnessError>;
    try {
      const session = { url, handshake: run.handshake, stopBot: true, run: runInfo(run, { url }, ctx.shard) };
      outcome = await runRunnable(scenario, sessionFor(ctx, info, stem, session, ctx.say));
    } catch (err) {
      if (ctx.signal?.aborted) throw err;
      outcome = harnessError(run, info, startedAt, Math.round(ctx.settings.clock.now() - t0), err, ctx.shard);
    }
    // A bot without RTVI was not asked to stop: no point waiting for it to leave by itself.
    const stop = await stopBot(bot, ctx, (run.handshake ?? ctx.settings.handshake) === 'none');
    const result: ScenarioResult = { ...outcome.result, name: info.name, file: run.file };
    if (stop.how === 'exited') explainCrash(result.failures, run.bot, bot, ctx.redactor);
    ctx.say?.(stop.line);
    const trace = ctx.redactor.text(`${spawned}\n${readyLine}\n${outcome.trace}${stop.line}\n`);
    return await keepArtifacts(ctx.outDir, stem, result, trace, outcome.recording, artifacts, outcome.evidence);
  } catch (err) {
    if (ctx.signal?.aborted) return null;
    throw err;
  } finally {
    if (bot) {
      if (!bot.exitInfo) await stopBot(bot, ctx, true);
      ctx.live.delete(bot);
    }
    ctx.ports.release(port);
  }
}

/**
 * The body file passed as `--runner-body`: the entry's file, or its inline `data:` written beside the results as
 * `<stem>.body.json` (as Pipecat does).
 */
async function runnerBodyFile(run: PlannedRun, outDir: string, stem: string): Promise<string | undefined> {
  if (run.runner_body_data === undefined) return run.runner_body;
  const file = join(outDir, `${stem}.body.json`);
  await writeFile(file, `${JSON.stringify(run.runner_body_data)}\n`);
  return file;
}

function quoteArg(arg: string): string {
  return /^[\w./:=@%+,-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`;
}

interface StopNote {
  how: 'exited' | 'SIGTERM' | 'SIGKILL';
  /** The bot had already exited when the session ended: it crashed or left mid-scenario. */
  early: boolean;
  line: string;
}

async function stopBot(bot: BotProcess, ctx: OneRunContext, hurry: boolean): Promise<StopNote> {
  const early = bot.exitInfo !== null;
  const t0 = ctx.settings.clock.now();
  const interrupted = hurry || ctx.signal?.aborted === true;
  const graceMs = interrupted ? Math.min(INTERRUPT_GRACE_MS, ctx.bots.stopTimeoutMs) : ctx.bots.stopTimeoutMs;
  const out = await bot.stop({ graceMs, termGraceMs: ctx.bots.termTimeoutMs });
  const how =
    out.how === 'exited'
      ? early
        ? `had already ${describeExit(out.exit)}`
        : `${describeExit(out.exit)} ${Math.round(ctx.settings.clock.now() - t0)} ms after the session ended`
      : `did not exit within ${graceMs} ms; stopped with ` +
        `${out.how}${out.how === 'SIGKILL' ? ` after SIGTERM went unanswered for ${ctx.bots.termTimeoutMs} ms` : ''}`;
  return { how: out.how, early, line: `bot: ${how}${out.strays ? '; leftover processes of its group killed' : ''}` };
}

const CRASH_KINDS: ReadonlySet<FailureKind> = new Set([
  'bot_disconnected',
  'connect_failed',
  'handshake_timeout',
  'protocol_error',
]);

/**
 * A bot that crashed mid-scenario (it left by itself, not cleanly): the failure
 * that says the socket closed also says how the bot ended and what it last
 * logged. A clean exit (code 0) is how a bot answers eval-cancel; it explains nothing.
 */
function explainCrash(failures: Failure[], botName: string, bot: BotProcess, redactor: Redactor): void {
  const exit = bot.exitInfo;
  if (!exit || (exit.code === 0 && exit.signal === null)) return;
  const target = failures.find((f) => CRASH_KINDS.has(f.kind));
  if (!target) return;
  target.reason = redactor.text(`${target.reason} (bot ${botName} ${describeExit(exit)}${logSuffix(bot)})`);
}

function logSuffix(bot: BotProcess): string {
  const tail = bot.logTail(LOG_TAIL_LINES);
  return tail ? `; last lines of its log:\n${tail}` : '; its log is empty';
}

function harnessError(
  run: PlannedRun,
  info: ScenarioStart,
  startedAt: string,
  durationMs: number,
  err: unknown,
  shard?: string,
) {
  const reason = `harness error: ${errorMessage(err)}`;
  const result = errorResult(
    {
      name: info.name,
      file: run.file,
      started_at: startedAt,
      duration_ms: durationMs,
      turns: notRunTurns(run.loaded),
      run: runInfo(run, {}, shard),
      ...runnableTags(run.loaded),
    },
    reason,
  );
  return {
    result,
    trace: `${reason}\n`,
    recording: undefined as string | undefined,
    evidence: undefined as Record<string, unknown> | undefined,
  };
}
