import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { monotonicClock, type Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import type { TurnKind } from '../metrics/index.js';
import { ClientMessages, buildEvalUrl, connect, ConnectError, type ClientConnection, type CodecName } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { ExpectationResult, Failure, ScenarioResult, TurnResult } from '../results/types.js';
import type { Scenario, Turn } from '../scenario/index.js';
import { connectFlags, evalConfigure, modeOf } from './config.js';
import { DeadlineError, EventQueue, QueueClosedError } from './event-queue.js';
import { buildJudge, type SessionJudge } from './judge-port.js';
import { matchExpectation } from './matcher.js';
import type { MediaFactory, SessionMedia } from './media.js';
import { readLoop } from './read-loop.js';
import { SessionTiming } from './timing.js';
import { Trace } from './trace.js';
import { EventTranslator } from './translator.js';
import type { SessionProgress } from './progress.js';

export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
export const BOT_READY_TIMEOUT_MS = 10_000;
/** An event-anchored `send_after` waits at most this long for its event. */
export const SEND_AFTER_MAX_WAIT_MS = 30_000;

export interface SessionOptions {
  url: string;
  codec?: CodecName;
  connectTimeoutMs?: number;
  /** bot-ready must arrive within this (default 10 s, Pipecat's hard gate). */
  handshakeTimeoutMs?: number;
  /** An event-anchored `send_after` waits at most this long for its event (default 30 s, as Pipecat). */
  sendAfterMaxWaitMs?: number;
  /** Ask the bot to shut down (`eval-cancel`) when the scenario ends. */
  stopBot?: boolean;
  triggerDisconnect?: boolean;
  judgeCacheDir?: string;
  noJudgeCache?: boolean;
  /** Builds the audio side for audio-modality scenarios (see media.ts). */
  media?: MediaFactory;
  /** Where this run's stereo recording goes, if its media records one. */
  recordingPath?: string;
  /** Longest wait, after a turn's expectations, for the metrics its `latency:` block bounds (default 5 s; see timing.ts). */
  latencyWaitMs?: number;
  maxPayloadBytes?: number;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
  redactor?: Redactor;
  signal?: AbortSignal;
  onProgress?: (progress: SessionProgress) => void;
  /** Every trace line as it is written (`-v`). */
  traceEcho?: (line: string) => void;
  /** Load the scenario's `factory:` code hooks (`--allow-code`); without it such a scenario is an error. */
  allowCode?: boolean;
  /** Extra bookkeeping copied into the result (`run:`). */
  run?: ScenarioResult['run'];
}

export interface SessionOutcome {
  result: ScenarioResult;
  /** The debug trace, for `<name>.trace.log` beside the results. */
  trace: string;
  /** Absolute path of the recording, when media wrote one. */
  recording?: string;
}

const MIME: Record<string, string> = { '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.png': 'image/png', '.gif': 'image/gif', '.webp': 'image/webp' };

/** Runs one scenario against one bot over one connection; never throws for the bot's faults. */
export async function runSession(scenario: Scenario, options: SessionOptions): Promise<SessionOutcome> {
  const clock = options.clock ?? monotonicClock;
  const t0 = clock.now();
  const startedAt = new Date().toISOString();
  const redactor = options.redactor ?? new Redactor(options.env ?? process.env);
  if (scenario.user.speech?.api_key) redactor.add(scenario.user.speech.api_key);
  if (scenario.judge.eval.api_key) redactor.add(scenario.judge.eval.api_key);
  const trace = new Trace(clock, t0, redactor, undefined, undefined, options.traceEcho);
  const turns: TurnResult[] = scenario.turns.map((t, index) => ({ index, status: 'not_run', duration_ms: 0, input: inputOf(t), expectations: [] }));
  const failures: Failure[] = [];
  const queue = new EventQueue(clock);
  const controller = new AbortController();
  const signal = options.signal ? AbortSignal.any([options.signal, controller.signal]) : controller.signal;
  const since = (): number => Math.round(clock.now() - t0);
  let recording: string | undefined;
  let recordingStartedAtMs: number | undefined;
  let errorText: string | undefined;
  const timing = new SessionTiming({ clock, t0Ms: t0, latencyWaitMs: options.latencyWaitMs, onError: (l) => trace.log(l) });
  const emit = (event: EarshotEvent): void => {
    queue.push(event);
    timing.event(event.name, event.at_ms);
    trace.log(`event: ${event.name}${describe(event)}`);
  };

  const finishResult = (): SessionOutcome => {
    const status = errorText !== undefined || failures.some((f) => f.kind === 'harness_error') ? 'error' : failures.length ? 'failed' : 'passed';
    trace.log(`done: ${status.toUpperCase()} (${failures.length} failure(s))`);
    const result: ScenarioResult = {
      name: scenario.name,
      file: scenario.file,
      status,
      started_at: startedAt,
      duration_ms: since(),
      turns,
      failures,
      events: queue.seen,
      ...(recording !== undefined ? { recording_started_at_ms: recordingStartedAtMs ?? 0 } : {}),
      ...(errorText !== undefined ? { error: errorText } : {}),
      ...(options.run ? { run: options.run } : {}),
    };
    return { result: redactor.value(result), trace: trace.toText(), recording };
  };

  trace.log(`run: scenario '${scenario.name}' (${scenario.file}) -> ${options.url}`);
  trace.log(`modality: user ${scenario.user.modality}, judge ${scenario.judge.modality}; judge ${scenario.judge.eval.service}/${scenario.judge.eval.model ?? 'default'}`);
  if (scenario.requires_code && !options.allowCode) {
    errorText = `scenario names code hooks (${scenario.code_hooks.map((h) => `${h.block}.factory`).join(', ')}); rerun with --allow-code to load them`;
    return finishResult();
  }

  const mode = modeOf(scenario);
  let judge: SessionJudge | null = null;
  let noJudgeReason: string | undefined;
  try {
    judge = buildJudge(scenario, { cacheDir: options.judgeCacheDir, noCache: options.noJudgeCache, env: options.env, redactor, trace: (l) => trace.log(l) });
  } catch (err) {
    noJudgeReason = errorMessage(err);
    trace.log(`judge: not available: ${noJudgeReason}`);
  }
  const media = mode.botAudio || mode.userAudio ? (options.media?.(scenario, { recordingPath: options.recordingPath }) ?? null) : null;
  if ((mode.botAudio || mode.userAudio) && !media) {
    errorText = 'audio modality needs the audio engine, which this build of the session was not given';
    return finishResult();
  }
  const finishMedia = async (): Promise<void> => {
    if (!media) return;
    try {
      const artifacts = await media.finish();
      recording = artifacts.recording;
      recordingStartedAtMs = artifacts.recordingStartedAtMs;
      for (const { turn_index, note } of artifacts.notes ?? []) addNote(turn_index, note);
    } catch (err) {
      trace.log(`media: finish failed: ${errorMessage(err)}`);
    }
  };
  if (media) {
    try {
      await media.prepare({ clock, t0Ms: t0, emit, markUserSpeech: (a, b) => timing.markUserSpeech(a, b), trace: (l) => trace.log(l), signal });
    } catch (err) {
      await finishMedia();
      if (options.signal?.aborted) throw err;
      errorText = errorMessage(err);
      trace.log(`media: not ready: ${errorText}`);
      return finishResult();
    }
  }

  const url = buildEvalUrl(options.url, connectFlags(scenario, { triggerDisconnect: options.triggerDisconnect }));
  let conn: ClientConnection;
  try {
    conn = await connect(url, {
      codec: options.codec ?? 'pipecat-eval',
      connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
      clock,
      signal,
      ...(options.maxPayloadBytes ? { maxPayloadBytes: options.maxPayloadBytes } : {}),
    });
  } catch (err) {
    await finishMedia();
    if (signal.aborted) throw err;
    const reason = err instanceof ConnectError ? err.message : `failed to connect to ${options.url}: ${errorMessage(err)}`;
    trace.log(`connect: failed: ${reason}`);
    failures.push({ kind: 'connect_failed', turn_index: null, expectation_index: null, event: null, reason });
    return finishResult();
  }
  trace.log('connected');

  const messages = new ClientMessages();
  const translator = new EventTranslator({ botAudio: mode.botAudio });
  const reader = readLoop(conn, { queue, translator, trace, media, timing, t0, emit, judge });

  try {
    conn.send(messages.clientReady({ library: 'earshot', library_version: '0.1.0' }));
    try {
      await queue.whenSeen('bot_ready', clock.now() + (options.handshakeTimeoutMs ?? BOT_READY_TIMEOUT_MS), signal);
      trace.log('handshake: ok (bot-ready)');
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof QueueClosedError)) throw err;
      const reason =
        err instanceof QueueClosedError
          ? `the bot closed the connection before bot-ready: ${err.why}`
          : `bot-ready not received within ${options.handshakeTimeoutMs ?? BOT_READY_TIMEOUT_MS}ms`;
      trace.log(`handshake: failed: ${reason}`);
      failures.push({ kind: err instanceof QueueClosedError ? err.kind : 'handshake_timeout', turn_index: null, expectation_index: null, event: null, reason });
      return finishResult();
    }
    const configure = evalConfigure(scenario);
    if (configure) {
      conn.send(messages.evalConfigure(configure));
      trace.log(`send: eval-configure ${JSON.stringify(configure)}`);
    }
    if (scenario.context.length) {
      conn.send(messages.evalContext(scenario.context.map((m) => ({ role: String(m.role ?? 'user'), ...m }))));
      trace.log(`send: eval-context (${scenario.context.length} messages)`);
    }
    if (media) await media.start(conn);

    for (const [index, turn] of scenario.turns.entries()) {
      trace.turn = index;
      const turnFailures = await runTurn(turn, index);
      failures.push(...turnFailures);
      if (turnFailures.length && scenario.stop_on_failure) {
        trace.log(`turn ${index} failed; stopping scenario (stop_on_failure)`);
        break;
      }
    }
  } catch (err) {
    if (options.signal?.aborted) throw err;
    const failure: Failure = { kind: 'harness_error', turn_index: trace.turn >= 0 ? trace.turn : null, expectation_index: null, event: null, reason: errorMessage(err) };
    trace.log(`error: ${failure.reason}`);
    failures.push(failure);
    if (failure.turn_index !== null) turns[failure.turn_index].status = 'failed';
  } finally {
    await finishMedia();
    harvestMetrics(timing.end());
    if (options.stopBot && conn.isOpen) {
      conn.send(messages.evalCancel());
      trace.log('send: eval-cancel');
    }
    await conn.close(1000, 'scenario done');
    controller.abort();
    await reader;
  }
  return finishResult();

  async function runTurn(turn: Turn, index: number): Promise<Failure[]> {
    const started = clock.now();
    const record = turns[index];
    record.started_at_ms = Math.round(started - t0);
    const turnFailures: Failure[] = [];
    options.onProgress?.({ type: 'turn_start', turn_index: index, input: record.input });
    media?.beginTurn(index);
    harvestMetrics(timing.takeFinal());
    trace.log(`--- turn ${index}: ${turn.user !== undefined ? JSON.stringify(turn.user) : turn.dtmf !== undefined ? `dtmf ${turn.dtmf}` : '(observe)'}`);
    const pendingCalls: EarshotEvent[] = [];

    if (turn.send_after) {
      const failure = await waitSendAfter(turn, index);
      if (failure) {
        turnFailures.push(failure);
        return endTurn(record, started, turnFailures);
      }
    }
    if (turn.image) {
      const bytes = await readFile(turn.image);
      conn.send(messages.evalImage(bytes.toString('base64'), MIME[extname(turn.image).toLowerCase()] ?? 'image/jpeg'));
      trace.log(`send: image ${turn.image}`);
    }
    const sends = turn.user !== undefined || turn.dtmf !== undefined || turn.audio !== undefined;
    if (sends) {
      // Anything still queued is an earlier turn's output: this turn's input has not reached the bot yet.
      translator.resetBuffers();
      media?.dropPending('before send');
      const dropped = queue.dropPending((e) => e.name === 'user_transcription');
      if (dropped) trace.log(`discard: dropped ${dropped} queued event(s) before send`);
    }
    let anchor = clock.now();
    let kind: TurnKind = 'none';
    if (turn.dtmf !== undefined) {
      kind = 'dtmf';
      conn.send(messages.dtmf(turn.dtmf));
      judge?.addUser({ kind: 'dtmf', keys: turn.dtmf });
      trace.log(`send: dtmf ${JSON.stringify(turn.dtmf)}`);
      anchor = clock.now();
    } else if (turn.user !== undefined || turn.audio !== undefined) {
      if (mode.userAudio && media) {
        kind = 'audio';
        anchor = await media.speak(turn, index, signal);
        trace.log(`send: speech ${JSON.stringify(turn.user ?? turn.audio)} (due at ${(anchor - t0).toFixed(1)}ms)`);
      } else {
        kind = 'text';
        conn.send(messages.sendText(turn.user ?? '', { runImmediately: true, audioResponse: mode.botAudio }));
        trace.log(`send: text ${JSON.stringify(turn.user)}`);
        anchor = clock.now();
      }
      if (turn.user !== undefined) judge?.addUser({ kind: 'text', text: turn.user });
    }
    timing.beginTurn(index, anchor - t0, kind);
    record.started_at_ms = Math.round(anchor - t0);

    for (const [expIndex, exp] of turn.expect.entries()) {
      const outcome = await matchExpectation(exp, expIndex, {
        queue,
        clock,
        turnIndex: index,
        anchorMs: anchor,
        defaultWithinMs: exp.within_ms,
        judge,
        noJudgeReason,
        pendingCalls,
        trace: (l) => trace.log(l),
        signal,
      });
      const expResult: ExpectationResult = { index: expIndex, event: exp.event, status: outcome.ok ? 'passed' : 'failed' };
      if (outcome.ok) {
        if (outcome.atMs !== undefined) expResult.matched_after_ms = Math.round(outcome.atMs - (anchor - t0));
        if (outcome.text !== undefined) expResult.text = outcome.text;
        if (outcome.judgeReason !== undefined) expResult.judge_reason = outcome.judgeReason;
        trace.log(`matched: ${exp.event}${outcome.summary ? ` ${JSON.stringify(outcome.summary)}` : ''}`);
      } else {
        if (outcome.text !== undefined) expResult.text = outcome.text;
        turnFailures.push(outcome.failure);
        trace.log(`FAIL: ${exp.event}: [${outcome.failure.kind}] ${outcome.failure.reason}`);
      }
      record.expectations.push(expResult);
      options.onProgress?.({ type: 'expectation', turn_index: index, expectation: expResult, failure: outcome.ok ? undefined : outcome.failure });
      if (!outcome.ok && outcome.endsTurn) break;
    }
    for (let i = record.expectations.length; i < turn.expect.length; i++) {
      record.expectations.push({ index: i, event: turn.expect[i].event, status: 'not_run' });
    }
    const latency = await timing.checkTurn(index, turn.latency, () => queue.closedReason !== null, signal);
    if (turn.latency) trace.log(`latency: ${latency.failures.length ? latency.failures.map((f) => f.reason).join('; ') : 'within bounds'} (waited ${latency.waitedMs}ms for the metrics)`);
    turnFailures.push(...latency.failures);
    return endTurn(record, started, turnFailures);
  }

  function harvestMetrics(derived: ReturnType<SessionTiming['takeFinal']>): void {
    for (const d of derived) {
      const record = turns[d.turn_index];
      if (!record) continue;
      record.metrics = d.metrics;
      for (const note of d.notes) addNote(d.turn_index, note);
    }
  }

  function addNote(turnIndex: number, note: string): void {
    const record = turns[turnIndex];
    if (!record) return;
    const notes = (record.notes ??= []);
    if (!notes.includes(note)) notes.push(note);
  }

  function endTurn(record: TurnResult, started: number, turnFailures: Failure[]): Failure[] {
    record.status = turnFailures.length ? 'failed' : 'passed';
    record.duration_ms = Math.round(clock.now() - started);
    options.onProgress?.({ type: 'turn_end', turn: record, failures: turnFailures });
    return turnFailures;
  }

  async function waitSendAfter(turn: Turn, index: number): Promise<Failure | null> {
    const sendAfter = turn.send_after!;
    if (sendAfter.event === undefined) {
      trace.log(`send_after: waiting ${sendAfter.delay_ms}ms`);
      await sleepUntil(clock.now() + sendAfter.delay_ms);
      return null;
    }
    const maxWait = options.sendAfterMaxWaitMs ?? SEND_AFTER_MAX_WAIT_MS;
    trace.log(`send_after: waiting for '${sendAfter.event}' + ${sendAfter.delay_ms}ms`);
    try {
      // Anchored at the event's latest arrival, even one that came before this turn started.
      const seenAt = await queue.whenSeen(sendAfter.event, clock.now() + maxWait, signal);
      await sleepUntil(t0 + seenAt + sendAfter.delay_ms);
      return null;
    } catch (err) {
      if (!(err instanceof DeadlineError || err instanceof QueueClosedError)) throw err;
      const reason =
        err instanceof QueueClosedError
          ? `the stream ended before '${sendAfter.event}' was seen: ${err.why}`
          : `send_after never fired: event '${sendAfter.event}' not seen within ${maxWait}ms`;
      trace.log(`FAIL: send_after: ${reason}`);
      return { kind: err instanceof QueueClosedError ? err.kind : 'send_after_timeout', turn_index: index, expectation_index: null, event: sendAfter.event, reason };
    }
  }

  async function sleepUntil(atMs: number): Promise<void> {
    const wait = atMs - clock.now();
    if (wait <= 0) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(resolve, wait);
      signal.addEventListener('abort', () => (clearTimeout(timer), reject(signal.reason)), { once: true });
    });
  }
}

function inputOf(turn: Turn): TurnResult['input'] {
  const input: TurnResult['input'] = {};
  if (turn.user !== undefined) input.user = turn.user;
  if (turn.dtmf !== undefined) input.dtmf = turn.dtmf;
  if (turn.audio !== undefined) input.audio = turn.audio;
  return input;
}

function describe(e: EarshotEvent): string {
  if ('text' in e) return ` ${JSON.stringify(e.text)}`;
  if (e.name === 'function_call') return ` ${e.function_name ?? '?'}(${JSON.stringify(e.args ?? {})})`;
  if (e.name === 'function_call_stopped') return ` ${e.function_name ?? '?'} id=${e.tool_call_id ?? '?'} cancelled=${String(e.cancelled)}`;
  return '';
}
