/**
 * `startRefbot`: the reference bot as a server, in this process. Each
 * connection is a Conversation with its own memory; connections may overlap.
 * The bot ends on `close()`, on a client's `eval-cancel` or `disconnect-bot`
 * (as a Pipecat bot's pipeline is cancelled or ended), when a crash fault fires, or, with
 * `exitOnDisconnect`, when a client that asked for `trigger_disconnect`
 * leaves (as a bot that cancels its pipeline in on_client_disconnected).
 * `closed` says which, with the exit code the CLI uses.
 */
import { createServer, type Server } from 'node:http';
import { monotonicClock, type Clock } from '../core/clock.js';
import { errorMessage } from '../core/errors.js';
import { PreciseTimerDriver, type TimerDriver } from '../core/timers.js';
import {
  CODEC_NAMES,
  type CodecName,
  DEFAULT_CODEC,
  type DocumentsFile,
  FUNCTION_CALL_REPORT_LEVELS,
  type FunctionCallReportLevel,
  isCodecName,
  ListenError,
  WireServer,
} from '../protocol/index.js';
import { FLITE_VOICES } from '../speech/index.js';
import { type Brain, loadBrain } from './brain/brain.js';
import { Conversation } from './conversation.js';
import { DEFAULT_LIGHT, LightConversation, minimumReplyOffsetMs, type LightOptions } from './light.js';
import { RefbotOptionError } from './errors.js';
import { CRASH_EXIT_CODE, describeFaults, type Faults, parseFaults } from './faults/switches.js';
import { DEFAULT_DTMF_IDLE_TIMEOUT_MS } from './input/dtmf-aggregator.js';
import { SpeechModels } from './input/speech-models.js';
import type { VadSettings } from './input/utterance-detector.js';
import { BotTts } from './reply/tts.js';
import { DEFAULT_REPLY_TIMING, DEFAULT_TTS_LEAD_IN_MS, type ReplyTiming } from './reply/types.js';
import { TruthLog } from './truth.js';
import { loadRefbotDocuments } from './documents-setup.js';
import { resolveEvalDataRoot } from './state/hooks.js';

/**
 * `--no-yield-to-backchannel`: speech over a reply that ends within this is a backchannel (a murmur is ~0.4 s, and the
 * VAD needs 0.32 s of silence to end it).
 */
export const BACKCHANNEL_MAX_MS = 1000;

export interface RefbotOptions {
  /** 0 (default) picks a free port; read it back from the handle. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** A brain file path or a loaded Brain; default fixtures/brain.yaml. */
  brain?: string | Brain;
  /** Default `pipecat-eval`. */
  wire?: CodecName;
  /** Known extra delay before every reply to a user turn (before `bot-llm-started`). */
  responseDelayMs?: number;
  /** Silence between the sentences of a spoken reply, as a Pipecat TTS leaves (default 0: back to back). */
  sentenceGapMs?: number;
  /**
   * The most silence a spoken reply starts with before its first audible
   * sample (default 20 ms). Flite begins every utterance with ~200 ms of
   * silence, which a streaming production TTS does not: the bot trims the
   * first sentence's lead to this, so its voice-to-voice is what a fast bot's
   * is. Later sentences keep theirs (they are the pauses between sentences).
   */
  ttsLeadInMs?: number;
  /** A bot with no RTVI at all: protobuf audio frames only, the conversation starts on connect (protobuf wire only). */
  noRtvi?: boolean;
  /**
   * Its RTVIObserver's function-call report level (default `none`, Pipecat's); eval-configure raises it on the eval
   * wire.
   */
  reportLevel?: FunctionCallReportLevel;
  /** Its RTVIObserver sends raw VAD events from the start (default off, Pipecat's). */
  vadEvents?: boolean;
  /** Its RTVIObserver reports the LLM's markers from the start (default off, Pipecat's). */
  llmMarkers?: boolean;
  /** Documents every connection starts with indexed: a `DocumentsFile` JSON path, or its object. */
  documents?: string | DocumentsFile;
  /** A folder the bot may search and index from when nothing indexed answers (GAIA's smart discovery). */
  library?: string;
  /** Where NeMo's `db_path` values resolve (default: `EVAL_DATA_ROOT`, else the package's fixtures/nemo). */
  evalDataRoot?: string;
  /** false: no NeMo scenario state; the control messages are refused with `error-response`. */
  scenarioState?: boolean;
  /** Ground-truth JSONL file (appended); see truth.ts. */
  truthLog?: string;
  /** Fault switches, parsed or as `--fault` strings (`crash-after-turn=2`). */
  faults?: Faults | readonly string[];
  /** Flite voice (default slt). */
  voice?: string;
  /** Rate of the bot's audio (default 16000, Flite's own). */
  sampleRate?: number;
  /** TTS utterance cache folder (default: speech's), or no disk cache. */
  ttsCacheDir?: string;
  noTtsCache?: boolean;
  /**
   * Exit when a client's disconnect runs the bot's disconnect handler (pipecat-eval: one that set
   * `trigger_disconnect=true`; protobuf: any).
   */
  exitOnDisconnect?: boolean;
  dtmfIdleTimeoutMs?: number;
  /** Listen for keypad tones in the caller's audio (a Goertzel receiver), besides RTVI dtmf messages. */
  inbandDtmf?: boolean;
  /**
   * false: speech over a reply shorter than BACKCHANNEL_MAX_MS is a backchannel, neither yielded to nor answered
   * (default true: any speech barges in).
   */
  yieldToBackchannel?: boolean;
  vad?: VadSettings;
  timing?: Partial<ReplyTiming>;
  clock?: Clock;
  /** Paces bot audio (default: a PreciseTimerDriver on `clock`). */
  timers?: TimerDriver;
  /** Diagnostics, one line each (default: none). */
  log?: (line: string) => void;
  /** Aborting closes the bot like `close()`. */
  signal?: AbortSignal;
  /**
   * Light mode (light.ts): the energy gate instead of VAD and STT, one canned reply at a known offset; for load tests.
   */
  light?: boolean | Partial<LightOptions>;
}

/** What the light bot says to every turn (synthesized once, at start). */
export const LIGHT_REPLY_TEXT = 'The capital of Germany is Berlin.';

export type RefbotExitReason = 'closed' | 'eval-cancel' | 'disconnect-bot' | 'crash' | 'disconnect';

export interface RefbotExit {
  reason: RefbotExitReason;
  /** 0, except 70 for a crash fault. */
  exitCode: number;
}

export interface RefbotHandle {
  /** `ws://HOST:PORT` (the port actually bound). */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  readonly wire: CodecName;
  readonly faults: Faults;
  /** Resolves once the bot has stopped, saying why. */
  readonly closed: Promise<RefbotExit>;
  /** Stops listening, closes every connection (1001) and releases Flite, PocketSphinx and the VAD. */
  close(): Promise<RefbotExit>;
}

export async function startRefbot(options: RefbotOptions = {}): Promise<RefbotHandle> {
  const wire = options.wire ?? DEFAULT_CODEC;
  if (!isCodecName(wire))
    throw new RefbotOptionError('wire', `expected ${CODEC_NAMES.join(' or ')}, got "${String(wire)}"`);
  const faults = Array.isArray(options.faults)
    ? parseFaults(options.faults)
    : ((options.faults as Faults | undefined) ?? {});
  const voiceName = options.voice ?? 'slt';
  if (!(FLITE_VOICES as readonly string[]).includes(voiceName))
    throw new RefbotOptionError('voice', `unknown Flite voice "${voiceName}" (known: ${FLITE_VOICES.join(', ')})`);
  const responseDelayMs = nonNegative('responseDelayMs', options.responseDelayMs ?? 0);
  const sentenceGapMs = nonNegative('sentenceGapMs', options.sentenceGapMs ?? 0);
  const ttsLeadInMs = nonNegative('ttsLeadInMs', options.ttsLeadInMs ?? DEFAULT_TTS_LEAD_IN_MS);
  if (options.reportLevel !== undefined && !FUNCTION_CALL_REPORT_LEVELS.includes(options.reportLevel)) {
    throw new RefbotOptionError(
      'reportLevel',
      `expected ${FUNCTION_CALL_REPORT_LEVELS.join(', ')}, got "${String(options.reportLevel)}"`,
    );
  }
  if (options.noRtvi && wire !== 'protobuf')
    throw new RefbotOptionError(
      'noRtvi',
      `a bot without RTVI speaks bare audio frames, which only the protobuf wire carries (got ${wire})`,
    );
  const sampleRate = options.sampleRate ?? 16000;
  if (!Number.isInteger(sampleRate) || sampleRate < 8000 || sampleRate > 48000)
    throw new RefbotOptionError('sampleRate', `expected an integer from 8000 to 48000, got ${sampleRate}`);
  const brain = typeof options.brain === 'object' ? options.brain : loadBrain(options.brain);
  const documents = loadRefbotDocuments(options);
  const evalDataRoot = resolveEvalDataRoot(options.evalDataRoot);
  const clock = options.clock ?? monotonicClock;
  const timers = options.timers ?? new PreciseTimerDriver({ clock });
  const log = options.log ?? (() => {});
  const host = options.host ?? '127.0.0.1';
  const timing: ReplyTiming = { ...DEFAULT_REPLY_TIMING, ...options.timing };
  const truth = new TruthLog(options.truthLog ?? null, clock);

  let resolveClosed!: (exit: RefbotExit) => void;
  const closed = new Promise<RefbotExit>((resolve) => (resolveClosed = resolve));
  const tts = new BotTts({ voice: voiceName, sampleRate, cacheDir: options.ttsCacheDir, noCache: options.noTtsCache });
  const models = new SpeechModels();
  const conversations = new Set<Conversation>();
  const lights = new Set<LightConversation>();
  const light = options.light
    ? { ...DEFAULT_LIGHT, ...(typeof options.light === 'object' ? options.light : {}) }
    : null;
  if (light) for (const [k, v] of Object.entries(light)) nonNegative(`light.${k}`, v);
  const lightReply = light ? await tts.synthesize(LIGHT_REPLY_TEXT) : null;
  if (light && lightReply && light.replyOffsetMs < minimumReplyOffsetMs(light, lightReply, sampleRate)) {
    await tts.close();
    const least = Math.ceil(minimumReplyOffsetMs(light, lightReply, sampleRate));
    throw new RefbotOptionError(
      'light.replyOffsetMs',
      `the reply cannot start ${light.replyOffsetMs} ms after the user's speech: ` +
        `the turn ends ${light.endSilenceMs} ms after it and the reply's leading silence comes first; ` +
        `use at least ${least} ms`,
    );
  }
  let stopping: Promise<RefbotExit> | null = null;
  let refuser: Server | null = null;
  let server: WireServer | null = null;
  let nextConn = 0;

  const stop = (exit: RefbotExit, hard: boolean): Promise<RefbotExit> => {
    stopping ??= (async () => {
      // A crash drops every socket at once, without close frames (the peer sees 1006).
      for (const c of conversations) {
        c.shutdown(hard ? 'fault' : 'closed');
        if (hard) c.terminate();
      }
      for (const c of lights) c.shutdown();
      await Promise.all([
        server?.close(),
        refuser && new Promise<void>((r) => refuser!.close(() => r())),
        tts.close(),
        models.close(),
      ]);
      truth.write({ event: 'exit', reason: exit.reason, exit_code: exit.exitCode });
      truth.close();
      resolveClosed(exit);
      return exit;
    })();
    return stopping;
  };

  let port: number;
  try {
    if (faults.refuse) {
      refuser = await listenRefusing(host, options.port ?? 0);
      const address = refuser.address();
      port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
    } else {
      server = await WireServer.listen({
        codec: wire,
        host,
        port: options.port ?? 0,
        clock,
        // A huge-frame client must not take the bot's memory; the harness side has its own limit.
        onConnection: (peer) => {
          if (light && lightReply) {
            const c = new LightConversation({
              conn: ++nextConn,
              peer,
              codec: wire,
              clock,
              timers,
              truth,
              reply: lightReply,
              botSampleRate: sampleRate,
              light,
              log,
            });
            lights.add(c);
            c.run().then(
              () => lights.delete(c),
              (err: unknown) => {
                lights.delete(c);
                log(`conn ${c.id}: ${errorMessage(err)}`);
              },
            );
            return;
          }
          const conversation = new Conversation({
            conn: ++nextConn,
            peer,
            codec: wire,
            brain,
            clock,
            timers,
            tts,
            models,
            truth,
            faults,
            responseDelayMs,
            timing,
            botSampleRate: sampleRate,
            sentenceGapMs,
            ttsLeadInMs,
            rtvi: options.noRtvi !== true,
            reportLevel: options.reportLevel ?? 'none',
            vadEvents: options.vadEvents === true,
            llmMarkers: options.llmMarkers === true,
            dtmfIdleTimeoutMs: options.dtmfIdleTimeoutMs ?? DEFAULT_DTMF_IDLE_TIMEOUT_MS,
            inbandDtmf: options.inbandDtmf === true,
            ...(options.yieldToBackchannel === false ? { backchannelMaxMs: BACKCHANNEL_MAX_MS } : {}),
            vad: options.vad ?? {},
            documents,
            scenarioState: options.scenarioState === false ? null : { dataRoot: evalDataRoot },
            log,
            onCancel: (how) => void stop({ reason: how, exitCode: 0 }, false),
            onCrash: () => void stop({ reason: 'crash', exitCode: CRASH_EXIT_CODE }, true),
            onDisconnectHandler: () => {
              log(
                `conn ${conversation.id}: on_client_disconnected ran` +
                  `${wire === 'protobuf' ? '' : ' (trigger_disconnect)'}${options.exitOnDisconnect ? '; exiting' : ''}`,
              );
              truth.write({
                event: 'disconnect_handler',
                conn: conversation.id,
                exit: options.exitOnDisconnect === true,
              });
              if (options.exitOnDisconnect) void stop({ reason: 'disconnect', exitCode: 0 }, false);
            },
          });
          conversations.add(conversation);
          conversation.run().then(
            () => conversations.delete(conversation),
            (err: unknown) => {
              conversations.delete(conversation);
              log(`conn ${conversation.id}: ${errorMessage(err)}`);
            },
          );
        },
      });
      port = server.port;
    }
  } catch (err) {
    truth.close();
    await Promise.all([tts.close(), models.close()]);
    throw err;
  }

  const url = `ws://${host.includes(':') ? `[${host}]` : host}:${port}`;
  truth.write({
    event: 'listening',
    url,
    wire,
    ...(light ? { light } : {}),
    response_delay_ms: responseDelayMs,
    sentence_gap_ms: sentenceGapMs,
    tts_lead_in_ms: ttsLeadInMs,
    rtvi: options.noRtvi !== true,
    faults: describeFaults(faults),
    pid: process.pid,
  });
  options.signal?.addEventListener('abort', () => void stop({ reason: 'closed', exitCode: 0 }, false), { once: true });
  return {
    url,
    host,
    port,
    wire,
    faults,
    closed,
    close: () => stop({ reason: 'closed', exitCode: 0 }, false),
  };
}

/** `refuse`: every upgrade (and every plain request) gets 503 and a closed socket; no WebSocket ever opens. */
function listenRefusing(host: string, port: number): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(503, { connection: 'close' }).end('refbot fault: refuse\n');
  });
  server.on('upgrade', (_req, socket) => {
    socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  server.on('clientError', (_err, socket) => socket.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(new ListenError(host, port, err)));
    server.listen(port, host, () => resolve(server));
  });
}

function nonNegative(option: string, value: number): number {
  if (!Number.isFinite(value) || value < 0)
    throw new RefbotOptionError(option, `expected a number of ms >= 0, got ${value}`);
  return value;
}
