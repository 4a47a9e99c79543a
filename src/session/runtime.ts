import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { errorMessage } from '../core/errors.js';
import type { Redactor } from '../core/redact.js';
import { sleepUntil } from '../core/timers.js';
import { EventQueue, EventTranslator } from '../events/index.js';
import { buildEvalUrl, ClientMessages, ConnectError, connect, type ClientConnection } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import { failure } from '../results/failure.js';
import type { Runnable } from '../scenario/index.js';
import { prepareControl } from './bot-control.js';
import { BotSpeech } from './bot-speech.js';
import { SessionBotStream } from './bot-stream.js';
import type { SessionConfig } from './config.js';
import type {
  ConversationListener,
  DriverRuntime,
  SentInput,
  SessionDriver,
  SessionTime,
  TurnInput,
  TurnScope,
  TurnSend,
} from './driver.js';
import type { MediaArtifacts, SessionMedia } from './media.js';
import type { SessionOutcome } from './options.js';
import { buildOutcome } from './outcome.js';
import { codeRefusal, unobservableExpectation } from './preconditions.js';
import { readLoop } from './read-loop.js';
import { SessionRequests } from './requests.js';
import { connectFlags, modeOf, type ModeFlags } from './scenario-needs.js';
import { addTurnNote, applyFinal, SessionTiming } from './timing.js';
import { describeEvent, Trace } from './trace.js';
import { SessionTurn, TurnBook, type TurnWire } from './turns.js';

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
 * lets the driver prepare (its judge), builds the media, connects with the
 * scenario's URL flags, holds the handshake to Pipecat's bot-ready gate (none
 * for a bot without RTVI), applies what the scenario asks of the bot
 * (bot-control.ts), starts the media, reads and translates the stream into
 * events, keeps the timeline, the trace and the result's turn records, and
 * tears down in one order whatever happened. `drive` never throws for the
 * bot's faults; it rethrows only when the run was interrupted.
 */
export class SessionRuntime implements DriverRuntime {
  readonly time: SessionTime;
  readonly stream: SessionBotStream;
  readonly timeline: SessionTiming;
  /** Requests that wait for the bot's answer by id (NeMo's control plane, the documents' ack). */
  readonly control: SessionRequests;
  private readonly startedAt = new Date().toISOString();
  private readonly redactor: Redactor;
  private readonly trace: Trace;
  private readonly book: TurnBook;
  private readonly queue: EventQueue;
  private readonly controller = new AbortController();
  private readonly signal: AbortSignal;
  private readonly mode: ModeFlags;
  private readonly messages = new ClientMessages();
  private readonly translator: EventTranslator;
  private readonly speech: BotSpeech;
  private readonly listeners: ConversationListener[] = [];
  private media: SessionMedia | null = null;
  private conn: ClientConnection | null = null;
  private artifacts: MediaArtifacts = {}; // the recording, its start, the conditions: once the media finished
  private errorText: string | undefined;
  private driven = false;

  constructor(
    readonly scenario: Runnable,
    readonly config: SessionConfig,
    planned: readonly TurnInput[],
  ) {
    const { clock, timers } = config;
    const t0Ms = clock.now();
    this.signal = config.signal ? AbortSignal.any([config.signal, this.controller.signal]) : this.controller.signal;
    this.time = {
      clock,
      timers,
      t0Ms,
      // A deadline already past does not wait (not even a turn of the event loop).
      sleepUntil: (atMs) => (atMs <= clock.now() ? Promise.resolve() : sleepUntil(timers, atMs, this.signal)),
    };
    this.redactor = config.redactor;
    if (scenario.user.speech?.api_key) this.redactor.add(scenario.user.speech.api_key);
    if (scenario.judge.eval.api_key) this.redactor.add(scenario.judge.eval.api_key);
    this.trace = new Trace(clock, t0Ms, this.redactor, undefined, undefined, config.traceEcho);
    this.book = new TurnBook(planned, clock, t0Ms, config.onProgress);
    this.queue = new EventQueue(clock, timers);
    this.timeline = new SessionTiming({ clock, t0Ms, bargeInGapMs: config.bargeInGapMs, onError: (l) => this.log(l) });
    this.mode = modeOf(scenario);
    this.translator = new EventTranslator({ botAudio: this.mode.botAudio });
    const log = (l: string): void => this.log(l);
    this.control = new SessionRequests({ messages: this.messages, clock, timers, signal: this.signal, log });
    this.speech = new BotSpeech(clock, timers, () => this.queue.closedReason !== null);
    this.stream = new SessionBotStream({
      queue: this.queue,
      speech: this.speech,
      translator: this.translator,
      media: () => this.media,
      signal: this.signal,
      log: (l) => this.log(l),
    });
  }

  /** Runs the driver on this session, from its preparation to teardown, and returns the outcome. Once per runtime. */
  async drive(driver: SessionDriver): Promise<SessionOutcome> {
    if (this.driven) throw new Error('a session runtime drives one conversation; make a new one');
    this.driven = true;
    const { scenario, config } = this;
    this.log(`run: scenario '${scenario.name}' (${scenario.file}) -> ${config.url}`);
    this.log(
      `modality: user ${scenario.user.modality}, judge ${scenario.judge.modality}; ` +
        `judge ${scenario.judge.eval.service}/${scenario.judge.eval.model ?? 'default'}`,
    );
    const refusal = codeRefusal(scenario, config) ?? unobservableExpectation(scenario);
    if (refusal) {
      this.refuse(refusal);
      return this.finish();
    }
    const control = prepareControl({
      scenario,
      wire: {
        codec: config.codec,
        handshake: config.handshake,
        bot: config.botEnables,
        documentsVia: config.documentsVia,
      },
      timers: config.timers,
      requests: this.control,
      documentsAckTimeoutMs: config.documentsAckTimeoutMs,
      messages: this.messages,
      queue: this.queue,
      translator: this.translator,
      clock: config.clock,
      signal: this.signal,
      handshakeTimeoutMs: config.handshakeTimeoutMs,
      log: (l) => this.log(l),
    });
    if (typeof control === 'string') {
      this.errorText = control;
      this.log(`wire: ${config.codec} cannot run this scenario:\n${control}`);
      return this.finish();
    }
    try {
      await driver.prepare?.({ scenario, config, log: (l) => this.log(l) });
    } catch (err) {
      if (config.signal?.aborted) throw err;
      this.harnessError(err);
      return this.finish();
    }
    const unread = await control.loadDocuments();
    if (unread !== null) {
      this.refuse(unread);
      return this.finish();
    }
    if (!(await this.prepareMedia())) return this.finish();
    const conn = await this.connect();
    if (!conn) return this.finish();
    const reader = readLoop(conn, {
      queue: this.queue,
      translator: this.translator,
      trace: this.trace,
      media: this.media,
      timing: this.timeline,
      t0: this.time.t0Ms,
      emit: this.emit,
      onTtsStarted: () => this.speech.onTtsStarted(),
      requests: this.control,
    });
    let outcome: SessionOutcome | null = null;
    try {
      const unready = await control.handshake(conn);
      const unconfigured = unready ? null : (control.configure(conn) ?? (await control.indexDocuments()));
      if (unready || unconfigured !== null) {
        // Reported as it stood then: the teardown's close is not part of it.
        if (unready) this.book.failures.push(unready);
        if (unconfigured !== null) this.errorText = unconfigured;
        outcome = this.finish();
      } else {
        if (this.media) await this.media.start(conn);
        await driver.run(this, this.signal);
      }
    } catch (err) {
      if (config.signal?.aborted) throw err;
      this.harnessError(err);
    } finally {
      await this.finishMedia();
      applyFinal(this.book.records, this.timeline.end());
      if (config.stopBot) control.stop(conn);
      await conn.close(1000, 'scenario done');
      this.controller.abort();
      await reader;
    }
    return outcome ?? this.finish();
  }

  log(line: string): void {
    this.trace.log(line);
  }

  listen(listener: ConversationListener): void {
    this.listeners.push(listener);
  }

  openTurn(turn: number | TurnInput): TurnScope {
    const index = typeof turn === 'number' ? turn : this.book.add(turn);
    this.book.start(index);
    this.trace.turn = index;
    this.media?.beginTurn(index);
    applyFinal(this.book.records, this.timeline.takeFinal());
    return new SessionTurn(index, this.book, this.wire);
  }

  /** What a turn scope does on the wire (turns.ts). */
  private readonly wire: TurnWire = {
    sendImage: async (path) => {
      const bytes = await readFile(path);
      const mime = MIME[extname(path).toLowerCase()] ?? 'image/jpeg';
      this.connection().send(this.messages.evalImage(bytes.toString('base64'), mime));
      this.log(`send: image ${path}`);
    },
    sendInput: (input, index) => this.sendInput(input, index),
    murmur: (text, index) => {
      if (!this.media?.murmur) throw new Error('a backchannel is spoken: this session has no media that speaks');
      return this.media.murmur(text, index, this.signal);
    },
    dropPending: () => this.stream.dropPending(),
    opened: (index, sent) => this.timeline.beginTurn(index, sent.anchorMs - this.time.t0Ms, sent.kind),
    said: (said) => {
      for (const l of this.listeners) l.userSaid?.(said);
    },
    now: () => this.time.clock.now(),
  };

  private async sendInput(input: TurnSend, index: number): Promise<SentInput> {
    const { clock, t0Ms } = this.time;
    if (input.dtmf !== undefined && !input.inbandDtmf) {
      this.connection().send(this.messages.dtmf(input.dtmf));
      this.log(`send: dtmf ${JSON.stringify(input.dtmf)}`);
      return { anchorMs: clock.now(), kind: 'dtmf' };
    }
    // In-band keys are tones in the caller's audio (earshot extension), spoken like a turn.
    if (this.mode.userAudio && this.media) {
      const utterance = input.dtmf !== undefined ? { dtmf: input.dtmf } : { user: input.user, audio: input.audio };
      const anchorMs = await this.media.speak(utterance, index, this.signal);
      const what = input.dtmf !== undefined ? 'in-band dtmf' : 'speech';
      const words = JSON.stringify(input.dtmf ?? input.user ?? input.audio);
      this.log(`send: ${what} ${words} (due at ${(anchorMs - t0Ms).toFixed(1)}ms)`);
      return { anchorMs, kind: 'audio' };
    }
    const options = { runImmediately: true, audioResponse: this.mode.botAudio };
    this.connection().send(this.messages.sendText(input.user ?? '', options));
    this.log(`send: text ${JSON.stringify(input.user)}`);
    return { anchorMs: clock.now(), kind: 'text' };
  }

  private readonly emit = (event: EarshotEvent): void => {
    for (const l of this.listeners) l.event?.(event);
    this.speech.onEvent(event.name);
    this.queue.push(event);
    this.timeline.event(event.name, event.at_ms);
    this.log(`event: ${event.name}${describeEvent(event)}`);
  };

  /** False when the run ends here: the scenario needs media this session cannot have or prepare. */
  private async prepareMedia(): Promise<boolean> {
    const { config, scenario } = this;
    const wantsMedia = this.mode.botAudio || this.mode.userAudio;
    const request = {
      recordingPath: config.recordingPath,
      botInputRate: config.botInputRate,
      speakingReports: config.handshake === 'rtvi',
    };
    try {
      this.media = wantsMedia ? (config.media?.(scenario, request) ?? null) : null;
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
        clock: config.clock,
        t0Ms: this.time.t0Ms,
        emit: this.emit,
        markUserSpeech: (a, b) => this.timeline.markUserSpeech(a, b),
        markBotStreamEnd: (at) => this.timeline.event('bot_stream_end', at),
        trace: (l) => this.log(l),
        signal: this.signal,
      });
      return true;
    } catch (err) {
      await this.finishMedia();
      if (config.signal?.aborted) throw err;
      this.errorText = errorMessage(err);
      this.log(`media: not ready: ${this.errorText}`);
      return false;
    }
  }

  /** The open connection, or null (a `connect_failed` failure recorded) when the bot cannot be reached. */
  private async connect(): Promise<ClientConnection | null> {
    const { config } = this;
    const url = buildEvalUrl(config.url, connectFlags(this.scenario, { triggerDisconnect: config.triggerDisconnect }));
    try {
      this.conn = await connect(url, {
        codec: config.codec,
        connectTimeoutMs: config.connectTimeoutMs,
        clock: config.clock,
        signal: this.signal,
        ...(config.maxPayloadBytes ? { maxPayloadBytes: config.maxPayloadBytes } : {}),
        ...(this.media?.openSocket ? { openSocket: this.media.openSocket } : {}),
      });
    } catch (err) {
      await this.finishMedia();
      if (this.signal.aborted) throw err;
      const reason =
        err instanceof ConnectError ? err.message : `failed to connect to ${config.url}: ${errorMessage(err)}`;
      this.log(`connect: failed: ${reason}`);
      this.book.failures.push(failure('connect_failed', reason));
      return null;
    }
    this.log('connected');
    this.control.attach(this.conn);
    return this.conn;
  }

  private async finishMedia(): Promise<void> {
    if (!this.media) return;
    try {
      const artifacts = await this.media.finish();
      this.artifacts = artifacts;
      for (const { turn_index, note } of artifacts.notes ?? []) addTurnNote(this.book.records, turn_index, note);
    } catch (err) {
      this.log(`media: finish failed: ${errorMessage(err)}`);
    }
  }

  private connection(): ClientConnection {
    if (!this.conn) throw new Error('the session is not connected');
    return this.conn;
  }

  /** The run cannot go on: something it needs cannot be had (an `error` failure, the result's `error`). */
  private refuse(reason: string): void {
    this.errorText = reason;
    this.log(`error: ${reason}`);
    this.book.failures.push(failure('error', reason));
  }

  /** earshot failed, not the bot: a `harness_error` of the turn under way (failed), or of the run. */
  private harnessError(err: unknown): void {
    const turnIndex = this.trace.turn >= 0 ? this.trace.turn : null;
    const fault = failure('harness_error', errorMessage(err), { turn_index: turnIndex });
    this.log(`error: ${fault.reason}`);
    this.book.failures.push(fault);
    if (turnIndex !== null) this.book.records[turnIndex].status = 'failed';
  }

  private finish(): SessionOutcome {
    const { recording, recordingStartedAtMs, conditions, speech } = this.artifacts;
    return buildOutcome({
      scenario: this.scenario,
      startedAt: this.startedAt,
      durationMs: Math.round(this.time.clock.now() - this.time.t0Ms),
      turns: this.book.records,
      failures: this.book.failures,
      events: this.queue.seen,
      recording,
      recordingStartedAtMs,
      conditions,
      speech,
      errorText: this.errorText,
      run: this.config.run,
      redactor: this.redactor,
      trace: this.trace,
    });
  }
}
