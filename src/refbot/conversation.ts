/**
 * One client connection of the reference bot: the RTVI handshake, the eval
 * control messages, user input (text, DTMF, audio) turned into turns for the
 * brain, replies, interruptions, and the fault switches that act per
 * connection. The message order it produces is described in index.ts.
 */
import { errorMessage } from '../core/errors.js';
import {
  type EvalConfigure,
  type FunctionCallReportLevel,
  RTVI_PROTOCOL_VERSION,
  type ServerMessage,
} from '../protocol/index.js';
import type { BrainMemory, Reply } from './brain/brain.js';
import { type ConversationState, interruptible, sends, takesTurns } from './conversation-state.js';
import { Flood, sendGarbage, sendHugeFrame, sendMalformed } from './faults/output.js';
import { DtmfAggregator } from './input/dtmf-aggregator.js';
import { InbandDtmf } from './input/inband-dtmf.js';
import { UserSpeech } from './input/user-speech.js';
import type { SpeechEdge } from './input/utterance-detector.js';
import { interruptedTail, ReplyRun } from './reply/reply-run.js';
import { Speaker } from './reply/speaker.js';
import type { ReplyPlan } from './reply/types.js';
import type { ConversationDeps, TurnInput } from './conversation-deps.js';
import { type ClientMessageHost, onClientMessage, versionError } from './conversation-messages.js';
import { newBrainMemory } from './documents-setup.js';
import { withScenarioState } from './state/hooks.js';

export class Conversation {
  private readonly memory: BrainMemory;
  private readonly speaker: Speaker;
  private readonly dtmf: DtmfAggregator;
  private readonly tones: InbandDtmf | null;
  private readonly userSpeech: UserSpeech;
  private state: ConversationState = { phase: 'connecting' };
  /** The observer's report levels, VAD events and markers: the bot's own, raised by eval-configure on the eval wire. */
  private levels: Record<string, FunctionCallReportLevel>;
  private vadEvents: boolean;
  private llmMarkers: boolean;
  private turns = 0;
  private replies = 0;
  private readonly segments = { count: 0 };
  private flood: Flood | null = null;
  private readonly messageHost: ClientMessageHost;

  constructor(private readonly deps: ConversationDeps) {
    const { clock, timers, botSampleRate, peer } = deps;
    this.memory = withScenarioState(newBrainMemory(deps.documents), deps);
    this.levels = { '*': deps.reportLevel };
    this.vadEvents = deps.vadEvents;
    this.llmMarkers = deps.llmMarkers;
    const audioOnWire = this.audioOnWire;
    this.speaker = new Speaker({
      clock,
      timers,
      sampleRate: botSampleRate,
      send: (pcm) => {
        if (audioOnWire && this.state.phase !== 'hung') peer.connection.sendAudio(pcm, botSampleRate);
      },
    });
    this.dtmf = new DtmfAggregator({
      idleTimeoutMs: deps.dtmfIdleTimeoutMs,
      clock,
      onFirstKey: () => this.interrupt('dtmf'),
      onEntry: (entry) => this.onDtmfEntry(entry.text, entry.digits),
    });
    this.tones = deps.inbandDtmf ? new InbandDtmf((key) => this.dtmf.press(key)) : null;
    this.userSpeech = new UserSpeech({
      conn: deps.conn,
      clock,
      models: deps.models,
      truth: deps.truth,
      vad: deps.vad,
      vadEvents: () => this.vadEvents,
      nextTurn: () => this.turns + 1,
      replying: () => interruptible(this.state) !== null,
      send: (m) => this.send(m),
      bargeIn: (edge) => this.interrupt('barge_in', edge),
      answer: (text, userEndMs, preamble) =>
        this.userTurn({ kind: 'audio', text, userEndMs }, preamble, this.speaks(true)),
      reportError: (text) => this.reportError(text),
      ...(deps.backchannelMaxMs !== undefined ? { backchannelMaxMs: deps.backchannelMaxMs } : {}),
    });
    this.messageHost = {
      deps,
      memory: this.memory,
      send: (m) => this.send(m),
      clientReady: (id, version) => this.onClientReady(id, version),
      text: (text, runImmediately, audioResponse) => this.onText(text, runImmediately, audioResponse),
      pressKey: (key) => this.dtmf.press(key),
      configure: (config) => this.configure(config),
    };
  }

  get id(): number {
    return this.deps.conn;
  }

  /** Drops the socket without a closing handshake (a crash). */
  terminate(): void {
    void this.deps.peer.connection.terminate();
  }

  /** pipecat-eval carries bot audio only when asked (`capture_bot_audio`); protobuf always. `audio-burst` always. */
  get audioOnWire(): boolean {
    return (
      this.deps.codec === 'protobuf' ||
      this.deps.peer.flags.captureBotAudio === true ||
      this.deps.faults.audioBurst === true
    );
  }

  /** Reads the connection until it closes, then cleans up. */
  async run(): Promise<void> {
    const { peer, truth, conn } = this.deps;
    truth.write({ event: 'connection_open', conn, target: peer.target, flags: { ...peer.flags } });
    // Without RTVI there is no client-ready to wait for: the bot greets whoever connects.
    if (!this.deps.rtvi) this.ready();
    try {
      for await (const item of peer.connection) {
        if (this.state.phase === 'hung' || this.state.phase === 'ended') continue;
        switch (item.kind) {
          case 'rtvi':
            // A pipeline without an RTVIProcessor lets client messages pass unread.
            if (this.deps.rtvi) onClientMessage(item.message, this.messageHost);
            break;
          case 'audio':
            this.userSpeech.push(item.pcm, item.sampleRate, item.numChannels, item.at);
            this.tones?.push(item.pcm, item.sampleRate, item.numChannels);
            break;
          case 'invalid':
            this.send({
              type: 'error',
              data: { error: `Invalid RTVI transport message: ${item.violation.reason}`, fatal: false },
            });
            break;
          case 'overflow':
            this.deps.log(`conn ${conn}: client flooded the inbound queue; ${item.dropped} message(s) dropped`);
            break;
          default:
            // Text, transcription and interruption frames are the bot's to send, not to receive.
            break;
        }
      }
    } finally {
      const info = await peer.connection.closed;
      this.shutdown('closed');
      truth.write({ event: 'connection_closed', conn, code: info.code, by_peer: info.byPeer });
      // The eval transport fires on_client_disconnected only when asked; Pipecat's WebSocket transport (protobuf)
      // always does.
      if (peer.flags.triggerDisconnect || this.deps.codec === 'protobuf') this.deps.onDisconnectHandler();
    }
  }

  /** Stops every activity of this connection (its socket is closed by the caller or the peer). */
  shutdown(reason: 'closed' | 'fault'): void {
    const { state } = this;
    if (state.phase === 'ended') return;
    this.state = { phase: 'ended' };
    if (state.phase === 'replying') {
      const info = state.reply.abort();
      if (info.audio) state.reply.audio.writeStopped(reason, info.audio);
    }
    this.speaker.close();
    this.userSpeech.close();
    this.dtmf.dispose();
    this.flood?.stop();
  }

  // ------------------------------------------------------------ messages

  private send(message: ServerMessage): void {
    if (!sends(this.state) || !this.deps.rtvi) return;
    this.deps.peer.connection.send(message);
  }

  private onClientReady(id: string, version: string): void {
    const { faults, truth, conn } = this.deps;
    if (faults.noReady) {
      // Not hung: it still hears eval-cancel, but says nothing, and nothing is a turn before bot-ready.
      truth.write({ event: 'fault', conn, fault: 'no-ready', action: 'bot-ready withheld' });
      this.state = { phase: 'muted' };
      return;
    }
    const error = versionError(id, version);
    if (error) this.send(error);
    this.send({
      type: 'bot-ready',
      id,
      data: { version: RTVI_PROTOCOL_VERSION, about: { library: 'earshot-refbot' } },
    });
    truth.write({ event: 'bot_ready', conn });
    this.ready();
  }

  /**
   * The conversation begins: faults that act once, then the greeting. A repeated client-ready gets its bot-ready and
   * nothing more.
   */
  private ready(): void {
    const { faults, truth, conn } = this.deps;
    if (this.state.phase !== 'connecting') return;
    this.state = { phase: 'listening' };
    if (faults.hugeFrameBytes !== undefined) {
      const size = sendHugeFrame(this.deps.peer.connection, faults.hugeFrameBytes);
      truth.write({ event: 'fault', conn, fault: 'huge-frame', action: `sent one ${size}-byte frame` });
    }
    if (faults.floodPerSecond !== undefined) {
      this.flood = new Flood(this.deps.peer.connection, faults.floodPerSecond, this.deps.clock);
      truth.write({ event: 'fault', conn, fault: 'flood', action: `${faults.floodPerSecond} messages/s from now on` });
    }
    const reply = this.deps.brain.greeting(this.memory);
    this.startReply(reply, { turn: null, speak: this.speaks(true), delayMs: faults.slowMs ?? 0, userEndMs: null });
  }

  private configure(config: EvalConfigure): void {
    if (config.function_call_report_level) this.levels = { ...config.function_call_report_level };
    if (config.vad_user_speaking !== undefined) this.vadEvents = config.vad_user_speaking;
    if (config.bot_llm_marker !== undefined) this.llmMarkers = config.bot_llm_marker;
  }

  private onText(text: string, runImmediately: boolean, audioResponse: boolean): void {
    if (!runImmediately) {
      // Into the conversation without a reply (Pipecat: LLMMessagesAppendFrame with run_llm=false).
      this.deps.brain.seedContext([...this.memory.history, { role: 'user', content: text }], this.memory);
      return;
    }
    this.interrupt('text');
    this.userTurn({ kind: 'text', text }, [], this.speaks(audioResponse));
  }

  private onDtmfEntry(text: string, digits: string): void {
    const transcription: ServerMessage = {
      type: 'user-transcription',
      data: { text, final: true, user_id: '', timestamp: new Date().toISOString() },
    };
    const preamble: ServerMessage[] = [
      { type: 'user-started-speaking' },
      transcription,
      { type: 'user-stopped-speaking' },
    ];
    this.userTurn({ kind: 'dtmf', digits, text }, preamble, this.speaks(true));
  }

  /** Whether a reply is spoken: never with `skip_tts` (text judge), nor for a `send-text` that asked for no audio. */
  private speaks(audioResponse: boolean): boolean {
    return audioResponse && this.deps.peer.flags.skipTts !== true;
  }

  // ------------------------------------------------------------ turns and replies

  private userTurn(input: TurnInput, preamble: ServerMessage[], speak: boolean): void {
    if (!takesTurns(this.state)) return;
    const { faults, truth, conn, brain } = this.deps;
    const turn = ++this.turns;
    if (faults.hangAfterTurn !== undefined && turn > faults.hangAfterTurn) return this.hang(turn);
    for (const m of preamble) this.send(m);
    const reply =
      input.kind === 'dtmf'
        ? brain.respond({ kind: 'dtmf', digits: input.digits }, this.memory)
        : brain.respond({ kind: 'text', text: input.text }, this.memory);
    truth.write({ event: 'user_turn', conn, turn, input: input.kind, text: input.text, source: reply.source });
    this.send({ type: 'user-llm-text', data: { text: input.text } });
    this.startReply(reply, {
      turn,
      speak,
      delayMs: this.deps.responseDelayMs + (faults.slowMs ?? 0),
      userEndMs: input.kind === 'audio' ? input.userEndMs : null,
      crash: faults.crashAfterTurn !== undefined && turn > faults.crashAfterTurn,
      // Only the first user turn's reply is cut (a hang at turn 1 leaves no later turn to take it).
      disconnectMidway: faults.disconnectMidAudio === true && turn === 1,
    });
  }

  private startReply(reply: Reply, plan: Omit<ReplyPlan, 'id' | 'reply' | 'responseDelayMs'>): void {
    const { faults, conn, truth, peer } = this.deps;
    const id = ++this.replies;
    if (faults.garbage) {
      const n = sendGarbage(peer.connection, conn * 1000 + id);
      return truth.write({
        event: 'fault',
        conn,
        fault: 'garbage',
        action: `reply ${id} replaced by ${n} garbage frames`,
      });
    }
    if (faults.malformedRtvi) {
      const n = sendMalformed(peer.connection, this.deps.codec);
      return truth.write({
        event: 'fault',
        conn,
        fault: 'malformed-rtvi',
        action: `reply ${id} replaced by ${n} malformed messages`,
      });
    }
    if (this.state.phase === 'replying') this.state.reply.abort();
    const run = new ReplyRun(
      {
        conn,
        clock: this.deps.clock,
        send: (m) => this.send(m),
        speaker: this.speaker,
        audioOnWire: this.audioOnWire,
        tts: this.deps.tts,
        truth,
        timing: this.deps.timing,
        sentenceGapMs: this.deps.sentenceGapMs,
        ttsLeadInMs: this.deps.ttsLeadInMs,
        segments: this.segments,
        reportLevel: (name) => this.level(name),
        llmMarkers: () => this.llmMarkers,
        onFault: (fault) => (fault === 'crash' ? this.crash() : this.disconnectMidAudio()),
        onSpeechError: (err) => this.reportError(`speech synthesis failed: ${errorMessage(err)}`),
      },
      { ...plan, id, reply, responseDelayMs: this.deps.responseDelayMs, burst: faults.audioBurst === true },
    );
    this.state = { phase: 'replying', reply: run };
    run.done.then(
      () => this.replyDone(run),
      (err: unknown) => {
        this.replyDone(run);
        this.reportError(`reply failed: ${errorMessage(err)}`);
      },
    );
  }

  /** A reply settled: the conversation listens again, unless something has replaced or ended it since. */
  private replyDone(run: ReplyRun): void {
    if (this.state.phase === 'replying' && this.state.reply === run) this.state = { phase: 'listening' };
  }

  /** Cuts the reply in flight, if any, and tells the client what a Pipecat pipeline would. */
  private interrupt(cause: 'barge_in' | 'text' | 'dtmf', edge?: SpeechEdge): boolean {
    const run = interruptible(this.state);
    if (!run) return false;
    this.state = { phase: 'listening' };
    const info = run.abort();
    const { truth, conn, peer } = this.deps;
    this.send({ type: 'bot-interrupted' });
    if (this.deps.codec === 'protobuf') peer.connection.sendItem({ kind: 'interruption' });
    for (const m of interruptedTail(info, (name) => this.level(name))) this.send(m);
    truth.write({ event: 'bot_interrupted', conn, cause });
    if (info.audio)
      run.audio.writeStopped(
        cause === 'barge_in' ? 'barge_in' : 'interrupted',
        info.audio,
        edge?.voicedMs ?? null,
        edge?.detectedMs ?? null,
      );
    return true;
  }

  private level(functionName: string): FunctionCallReportLevel {
    return this.levels[functionName] ?? this.levels['*'] ?? 'none';
  }

  // ------------------------------------------------------------ faults and errors

  private hang(turn: number): void {
    this.deps.truth.write({
      event: 'fault',
      conn: this.deps.conn,
      fault: 'hang-after-turn',
      action: `silent from turn ${turn} on; socket left open`,
    });
    this.deps.log(`conn ${this.deps.conn}: fault hang-after-turn: turn ${turn} is not answered, nor anything after it`);
    const { state } = this;
    this.state = { phase: 'hung' };
    if (state.phase === 'replying') state.reply.abort();
    this.flood?.stop();
  }

  private crash(): void {
    this.deps.truth.write({
      event: 'fault',
      conn: this.deps.conn,
      fault: 'crash-after-turn',
      action: `crashed in turn ${this.turns}`,
    });
    this.deps.onCrash();
  }

  private disconnectMidAudio(): void {
    const { truth, conn, peer } = this.deps;
    truth.write({ event: 'fault', conn, fault: 'disconnect-mid-audio', action: 'socket closed mid-reply' });
    this.shutdown('fault');
    void peer.connection.close(1011, 'refbot fault: disconnect-mid-audio');
  }

  private reportError(text: string): void {
    // After shutdown, in-flight work fails against released models: nothing to report to a closed connection.
    if (this.state.phase === 'ended') return;
    this.deps.log(`conn ${this.deps.conn}: ${text}`);
    this.send({ type: 'error', data: { error: text, fatal: false } });
  }
}
