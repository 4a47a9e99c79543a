import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { monotonicClock, type Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';
import { Redactor } from '../core/redact.js';
import { sleepUntil, SystemTimerDriver, type TimerDriver } from '../core/timers.js';
import type { LatencyFailure } from '../metrics/index.js';
import {
  ClientMessages,
  buildEvalUrl,
  connect,
  ConnectError,
  type ClientConnection,
  type CodecName,
} from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { ExpectationResult, Failure, TurnResult } from '../results/types.js';
import { turnStatusOf } from '../results/hearing.js';
import type { EventName, LatencyAssertions, Runnable, Turn } from '../scenario/index.js';
import { playBackchannel, type BackchannelVerdict } from './backchannel.js';
import { connectFlags, modeOf, type ModeFlags } from './config.js';
import type { DriverRuntime, SentInput, SessionDriver, TurnInput, TurnMatch, UserUtterance } from './driver.js';
import { EventQueue } from './event-queue.js';
import { BotSpeech } from './bot-speech.js';
import { buildJudge, type SessionJudge } from './judge-port.js';
import { matchExpectation, type ExpectationSpec, type MatchOutcome, type MatcherState } from './matcher.js';
import type { MediaArtifacts, SessionMedia } from './media.js';
import {
  BOT_READY_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type SessionOptions,
  type SessionOutcome,
} from './options.js';
import { buildOutcome } from './outcome.js';
import { readLoop } from './read-loop.js';
import { codeRefusal, unobservableExpectation } from './preconditions.js';
import { addTurnNote, applyFinal, SessionTiming } from './timing.js';
import { describeEvent, Trace } from './trace.js';
import { EventTranslator } from './translator.js';
import type { HandshakeMode } from './wire-check.js';
import { prepareControl } from './bot-control.js';

const MIME: Record<string, string> = {
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.png': 'image/png',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
};

/**
 * One scenario run over one connection, everything but the conversation
 * itself (driver.ts): it checks the scenario against the wire (wire-check.ts),
 * builds the judge and the media, connects with the scenario's URL flags,
 * holds the handshake to Pipecat's bot-ready gate (none for a bot without
 * RTVI), applies what the scenario asks of the bot (bot-control.ts), starts
 * the media, reads and translates the stream into events, keeps the
 * timeline, the trace and the result's turn records, and tears down in one
 * order whatever happened. `drive` never
 * throws for the bot's faults; it rethrows only when the run was interrupted.
 */
export class SessionRuntime implements DriverRuntime {
  readonly clock: Clock;
  readonly timers: TimerDriver;
  readonly t0Ms: number;
  private readonly startedAt = new Date().toISOString();
  private readonly redactor: Redactor;
  private readonly trace: Trace;
  private readonly turns: TurnResult[];
  private readonly turnStarts = new Map<number, number>();
  private readonly failures: Failure[] = [];
  private readonly queue: EventQueue;
  private readonly timing: SessionTiming;
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly mode: ModeFlags;
  private readonly messages = new ClientMessages();
  private readonly translator: EventTranslator;
  private readonly speech: BotSpeech;
  private judge: SessionJudge | null = null;
  private noJudgeReason: string | undefined;
  private media: SessionMedia | null = null;
  private conn: ClientConnection | null = null;
  private artifacts: MediaArtifacts = {}; // the recording, its start, the conditions: once the media finished
  private errorText: string | undefined;
  private driven = false;
  private readonly codec: CodecName;
  private readonly handshakeMode: HandshakeMode;
  private readonly matcherState: MatcherState = { lastMatchAtMs: -Infinity };

  constructor(
    readonly scenario: Runnable,
    private readonly options: SessionOptions,
    planned: readonly TurnInput[],
  ) {
    this.clock = options.clock ?? monotonicClock;
    this.timers = options.timers ?? new SystemTimerDriver(this.clock);
    this.t0Ms = this.clock.now();
    this.redactor = options.redactor ?? new Redactor(options.env ?? process.env);
    if (scenario.user.speech?.api_key) this.redactor.add(scenario.user.speech.api_key);
    if (scenario.judge.eval.api_key) this.redactor.add(scenario.judge.eval.api_key);
    this.trace = new Trace(this.clock, this.t0Ms, this.redactor, undefined, undefined, options.traceEcho);
    this.turns = planned.map((input, index) => ({ index, status: 'not_run', duration_ms: 0, input, expectations: [] }));
    this.queue = new EventQueue(this.clock, this.timers);
    this.signal = options.signal ? AbortSignal.any([options.signal, this.controller.signal]) : this.controller.signal;
    this.timing = new SessionTiming({
      clock: this.clock,
      timers: this.timers,
      t0Ms: this.t0Ms,
      latencyWaitMs: options.latencyWaitMs,
      bargeInGapMs: options.bargeInGapMs,
      onError: (l) => this.log(l),
    });
    this.mode = modeOf(scenario);
    this.codec = options.codec ?? 'pipecat-eval';
    this.handshakeMode = options.handshake ?? 'rtvi';
    this.translator = new EventTranslator({ botAudio: this.mode.botAudio });
    this.speech = new BotSpeech(this.clock, this.timers, () => this.queue.closedReason !== null);
  }

  /** Runs the driver on this session, from building the judge to teardown, and returns the outcome. Once per runtime. */
  async drive(driver: SessionDriver): Promise<SessionOutcome> {
    if (this.driven) throw new Error('a session runtime drives one conversation; make a new one');
    this.driven = true;
    const { scenario, options } = this;
    this.log(`run: scenario '${scenario.name}' (${scenario.file}) -> ${options.url}`);
    this.log(
      `modality: user ${scenario.user.modality}, judge ${scenario.judge.modality}; judge ${scenario.judge.eval.service}/${scenario.judge.eval.model ?? 'default'}`,
    );
    const refusal = codeRefusal(scenario, options) ?? unobservableExpectation(scenario);
    if (refusal) {
      this.refuse(refusal);
      return this.finish();
    }
    const control = prepareControl({
      scenario,
      wire: { codec: this.codec, handshake: this.handshakeMode, bot: options.botEnables },
      messages: this.messages,
      queue: this.queue,
      translator: this.translator,
      clock: this.clock,
      signal: this.signal,
      handshakeTimeoutMs: options.handshakeTimeoutMs ?? BOT_READY_TIMEOUT_MS,
      log: (l) => this.log(l),
    });
    if (typeof control === 'string') {
      this.errorText = control;
      this.log(`wire: ${this.codec} cannot run this scenario:\n${control}`);
      return this.finish();
    }
    await this.buildJudge();
    if (!(await this.prepareMedia())) return this.finish();
    const conn = await this.connect();
    if (!conn) return this.finish();
    const reader = readLoop(conn, {
      queue: this.queue,
      translator: this.translator,
      trace: this.trace,
      media: this.media,
      timing: this.timing,
      t0: this.t0Ms,
      emit: this.emit,
      judge: this.judge,
      onTtsStarted: () => this.speech.onTtsStarted(),
    });
    let outcome: SessionOutcome | null = null;
    try {
      const unready = await control.handshake(conn);
      const unconfigured = unready ? null : control.configure(conn);
      if (unready || unconfigured !== null) {
        // Reported as it stood then: the teardown's close is not part of it.
        if (unready) this.failures.push(unready);
        if (unconfigured !== null) this.errorText = unconfigured;
        outcome = this.finish();
      } else {
        if (this.media) await this.media.start(conn);
        await driver.run(this, this.signal);
      }
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const turnIndex = this.trace.turn >= 0 ? this.trace.turn : null;
      const failure: Failure = {
        kind: 'harness_error',
        turn_index: turnIndex,
        expectation_index: null,
        event: null,
        reason: errorMessage(err),
      };
      this.log(`error: ${failure.reason}`);
      this.failures.push(failure);
      if (turnIndex !== null) this.turns[turnIndex].status = 'failed';
    } finally {
      await this.finishMedia();
      applyFinal(this.turns, this.timing.end());
      if (options.stopBot) control.stop(conn);
      await conn.close(1000, 'scenario done');
      this.controller.abort();
      await reader;
    }
    return outcome ?? this.finish();
  }

  get events(): readonly EarshotEvent[] {
    return this.queue.seen;
  }

  get streamEnded(): string | null {
    return this.queue.closedReason;
  }

  get botSpeaking(): boolean {
    return this.speech.now;
  }

  waitBotQuiet(maxWaitMs: number): Promise<boolean> {
    return this.speech.waitQuiet(maxWaitMs, this.signal);
  }

  log(line: string): void {
    this.trace.log(line);
  }

  addTurn(input: TurnInput): number {
    const index = this.turns.length;
    this.turns.push({ index, status: 'not_run', duration_ms: 0, input, expectations: [] });
    return index;
  }

  startTurn(index: number): void {
    const record = this.record(index);
    this.trace.turn = index;
    const started = this.clock.now();
    this.turnStarts.set(index, started);
    record.started_at_ms = Math.round(started - this.t0Ms);
    this.options.onProgress?.({ type: 'turn_start', turn_index: index, input: record.input });
    this.media?.beginTurn(index);
    applyFinal(this.turns, this.timing.takeFinal());
  }

  markSent(index: number, sent: SentInput): void {
    this.timing.beginTurn(index, sent.anchorMs - this.t0Ms, sent.kind);
    this.record(index).started_at_ms = Math.round(sent.anchorMs - this.t0Ms);
  }

  recordExpectation(turnIndex: number, result: ExpectationResult, failure?: Failure): void {
    this.record(turnIndex).expectations.push(result);
    // One that never ran is listed in the result; nothing happened to report.
    if (result.status !== 'not_run')
      this.options.onProgress?.({ type: 'expectation', turn_index: turnIndex, expectation: result, failure });
  }

  endTurn(index: number, failures: Failure[], metrics?: TurnResult['metrics']): void {
    const record = this.record(index);
    record.status = turnStatusOf(failures, record.expectations);
    if (metrics) record.metrics = { ...record.metrics, ...metrics };
    record.duration_ms = Math.round(this.clock.now() - (this.turnStarts.get(index) ?? this.t0Ms));
    this.options.onProgress?.({ type: 'turn_end', turn: record, failures });
    this.failures.push(...failures);
  }

  checkLatency(
    index: number,
    assertions: LatencyAssertions | undefined,
  ): Promise<{ failures: LatencyFailure[]; waitedMs: number }> {
    return this.timing.checkTurn(index, assertions, () => this.queue.closedReason !== null, this.signal);
  }

  checkTakeover = (index: number, expected: boolean | undefined): ReturnType<SessionTiming['checkTakeover']> =>
    this.timing.checkTakeover(index, expected, () => this.queue.closedReason !== null, this.signal);
  backchannel = (
    index: number,
    turn: Pick<Turn, 'backchannel' | 'yielded'>,
    sentAtMs: number,
  ): Promise<BackchannelVerdict> =>
    playBackchannel(index, turn, sentAtMs, {
      clock: this.clock,
      timers: this.timers,
      signal: this.signal,
      t0Ms: this.t0Ms,
      bursts: () => this.timing.bursts(index),
      murmur: (text) => this.media!.murmur!(text, index, this.signal),
      gone: () => this.queue.closedReason !== null,
      log: (l) => this.log(l),
    });
  dropPendingOutput(): void {
    this.translator.resetBuffers();
    this.media?.dropPending('before send');
    const dropped = this.queue.dropPending((e) => e.name === 'user_transcription');
    if (dropped) this.log(`discard: dropped ${dropped} queued event(s) before send`);
  }

  async sendImage(path: string): Promise<void> {
    const bytes = await readFile(path);
    this.connection().send(
      this.messages.evalImage(bytes.toString('base64'), MIME[extname(path).toLowerCase()] ?? 'image/jpeg'),
    );
    this.log(`send: image ${path}`);
  }

  sendDtmf(keys: string): SentInput {
    this.connection().send(this.messages.dtmf(keys));
    this.judge?.addUser({ kind: 'dtmf', keys });
    this.log(`send: dtmf ${JSON.stringify(keys)}`);
    return { anchorMs: this.clock.now(), kind: 'dtmf' };
  }

  async sendUser(utterance: UserUtterance, turnIndex: number): Promise<SentInput> {
    let sent: SentInput;
    if (this.mode.userAudio && this.media) {
      const anchorMs = await this.media.speak(utterance, turnIndex, this.signal);
      this.log(
        `send: ${utterance.dtmf !== undefined ? 'in-band dtmf' : 'speech'} ${JSON.stringify(utterance.user ?? utterance.audio ?? utterance.dtmf)} (due at ${(anchorMs - this.t0Ms).toFixed(1)}ms)`,
      );
      sent = { anchorMs, kind: 'audio' };
    } else {
      this.connection().send(
        this.messages.sendText(utterance.user ?? '', { runImmediately: true, audioResponse: this.mode.botAudio }),
      );
      this.log(`send: text ${JSON.stringify(utterance.user)}`);
      sent = { anchorMs: this.clock.now(), kind: 'text' };
    }
    const said =
      utterance.user !== undefined
        ? ({ kind: 'text', text: utterance.user } as const)
        : utterance.dtmf !== undefined
          ? ({ kind: 'dtmf', keys: utterance.dtmf } as const)
          : null;
    if (said) this.judge?.addUser(said);
    return sent;
  }

  match(exp: ExpectationSpec, expIndex: number, turn: TurnMatch): Promise<MatchOutcome> {
    return matchExpectation(exp, expIndex, {
      ...turn,
      queue: this.queue,
      clock: this.clock,
      t0Ms: this.t0Ms,
      botSpeaking: () => this.botSpeaking,
      state: this.matcherState,
      judge: this.judge,
      noJudgeReason: this.noJudgeReason,
      trace: (l) => this.log(l),
      signal: this.signal,
    });
  }

  nextEvent(
    accept: (e: EarshotEvent) => boolean,
    deadlineMs: number,
    onSkip?: (e: EarshotEvent) => void,
  ): Promise<EarshotEvent> {
    return this.queue.next(accept, deadlineMs, this.signal, onSkip);
  }

  whenSeen(name: EventName, deadlineMs: number): Promise<number> {
    return this.queue.whenSeen(name, deadlineMs, this.signal);
  }

  sleepUntil(atMs: number): Promise<void> {
    // A deadline already past does not wait (not even a turn of the event loop).
    if (atMs <= this.clock.now()) return Promise.resolve();
    return sleepUntil(this.timers, atMs, this.signal);
  }

  private readonly emit = (event: EarshotEvent): void => {
    this.speech.onEvent(event.name);
    this.queue.push(event);
    this.timing.event(event.name, event.at_ms);
    this.log(`event: ${event.name}${describeEvent(event)}`);
  };

  private async buildJudge(): Promise<void> {
    try {
      this.judge = await buildJudge(this.scenario, {
        ...this.options,
        redactor: this.redactor,
        trace: (l) => this.log(l),
      });
    } catch (err) {
      this.noJudgeReason = errorMessage(err);
      this.log(`judge: not available: ${this.noJudgeReason}`);
    }
  }

  /** False when the run ends here: the scenario needs media this session cannot have or prepare. */
  private async prepareMedia(): Promise<boolean> {
    const wantsMedia = this.mode.botAudio || this.mode.userAudio;
    const request = {
      recordingPath: this.options.recordingPath,
      botInputRate: this.options.botInputRate,
      speakingReports: this.handshakeMode === 'rtvi',
    };
    try {
      this.media = wantsMedia ? (this.options.media?.(this.scenario, request) ?? null) : null;
    } catch (err) {
      // The media cannot serve the scenario's speech blocks (a Python `factory:` no flag replaces).
      this.refuse(errorMessage(err));
      return false;
    }
    if (wantsMedia && !this.media) {
      this.errorText = 'audio modality needs the audio engine, which this build of the session was not given';
      return false;
    }
    if (!this.media) return true;
    try {
      await this.media.prepare({
        clock: this.clock,
        t0Ms: this.t0Ms,
        emit: this.emit,
        markUserSpeech: (a, b) => this.timing.markUserSpeech(a, b),
        markBotStreamEnd: (at) => this.timing.event('bot_stream_end', at),
        trace: (l) => this.log(l),
        signal: this.signal,
      });
      return true;
    } catch (err) {
      await this.finishMedia();
      if (this.options.signal?.aborted) throw err;
      this.errorText = errorMessage(err);
      this.log(`media: not ready: ${this.errorText}`);
      return false;
    }
  }

  /** The open connection, or null (a `connect_failed` failure recorded) when the bot cannot be reached. */
  private async connect(): Promise<ClientConnection | null> {
    const { options } = this;
    const url = buildEvalUrl(
      options.url,
      connectFlags(this.scenario, { triggerDisconnect: options.triggerDisconnect }),
    );
    try {
      this.conn = await connect(url, {
        codec: this.codec,
        connectTimeoutMs: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
        clock: this.clock,
        signal: this.signal,
        ...(options.maxPayloadBytes ? { maxPayloadBytes: options.maxPayloadBytes } : {}),
        ...(this.media?.openSocket ? { openSocket: this.media.openSocket } : {}),
      });
    } catch (err) {
      await this.finishMedia();
      if (this.signal.aborted) throw err;
      const reason =
        err instanceof ConnectError ? err.message : `failed to connect to ${options.url}: ${errorMessage(err)}`;
      this.log(`connect: failed: ${reason}`);
      this.failures.push({ kind: 'connect_failed', turn_index: null, expectation_index: null, event: null, reason });
      return null;
    }
    this.log('connected');
    return this.conn;
  }

  private async finishMedia(): Promise<void> {
    if (!this.media) return;
    try {
      const artifacts = await this.media.finish();
      this.artifacts = artifacts;
      for (const { turn_index, note } of artifacts.notes ?? []) addTurnNote(this.turns, turn_index, note);
    } catch (err) {
      this.log(`media: finish failed: ${errorMessage(err)}`);
    }
  }

  private record(index: number): TurnResult {
    const record = this.turns[index];
    if (!record)
      throw new Error(`turn ${index} is not a turn of this session (${this.turns.length} turn(s); add it first)`);
    return record;
  }

  private connection(): ClientConnection {
    if (!this.conn) throw new Error('the session is not connected');
    return this.conn;
  }

  /** The run cannot go on: something it needs cannot be had (an `error` failure, the result's `error`). */
  private refuse(reason: string): void {
    this.errorText = reason;
    this.log(`error: ${reason}`);
    this.failures.push({ kind: 'error', turn_index: null, expectation_index: null, event: null, reason });
  }

  private finish(): SessionOutcome {
    const { scenario, startedAt, turns, failures, errorText, redactor, trace } = this;
    const { recording, recordingStartedAtMs, conditions } = this.artifacts;
    const durationMs = Math.round(this.clock.now() - this.t0Ms);
    return buildOutcome({
      scenario,
      startedAt,
      durationMs,
      turns,
      failures,
      events: this.queue.seen,
      recording,
      recordingStartedAtMs,
      conditions,
      errorText,
      run: this.options.run,
      redactor,
      trace,
    });
  }
}
