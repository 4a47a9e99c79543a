/**
 * What a connection of the reference bot is given by the server: the socket,
 * the shared speech parts and truth log, the bot's settings, and the server's
 * callbacks for the events that end the bot.
 */
import type { Clock } from '../core/clock.js';
import type { TimerDriver } from '../core/timers.js';
import type { CodecName, FunctionCallReportLevel, WirePeer } from '../protocol/index.js';
import type { Brain } from './brain/brain.js';
import type { RefbotDocuments } from './documents-setup.js';
import type { ScenarioStateSetup } from './state/hooks.js';
import type { Faults } from './faults/switches.js';
import type { SpeechModels } from './input/speech-models.js';
import type { VadSettings } from './input/utterance-detector.js';
import type { BotTts } from './reply/tts.js';
import type { ReplyTiming } from './reply/types.js';
import type { TruthLog } from './truth.js';

export interface ConversationDeps {
  conn: number;
  peer: WirePeer;
  codec: CodecName;
  brain: Brain;
  clock: Clock;
  /** Paces the bot's audio (the precise driver). */
  timers: TimerDriver;
  tts: BotTts;
  models: SpeechModels;
  truth: TruthLog;
  faults: Faults;
  responseDelayMs: number;
  timing: ReplyTiming;
  botSampleRate: number;
  /** Silence between the sentences of a spoken reply (0: back to back). */
  sentenceGapMs: number;
  /** The most silence before a spoken reply's first audible sample (server.ts: `ttsLeadInMs`). */
  ttsLeadInMs: number;
  /** False: a bot with no RTVI at all (protobuf audio frames only); it starts on connect. */
  rtvi: boolean;
  /** The observer's own function-call report level, raw VAD events and LLM markers (before any eval-configure). */
  reportLevel: FunctionCallReportLevel;
  vadEvents: boolean;
  llmMarkers: boolean;
  dtmfIdleTimeoutMs: number;
  /** `--inband-dtmf`: hear keypad tones in the caller's audio too. */
  inbandDtmf?: boolean;
  /**
   * `--no-yield-to-backchannel`: speech over a reply shorter than this is a backchannel, ignored (see UserSpeechHost).
   */
  backchannelMaxMs?: number;
  vad: VadSettings;
  /** `--documents` and `--library`: what each connection's document index starts from. */
  documents?: RefbotDocuments;
  /** NeMo's scenario state per connection (absent: kept, under the default eval data root; null: none). */
  scenarioState?: ScenarioStateSetup | null;
  log: (line: string) => void;
  /** `eval-cancel` (Pipecat: CancelWorkerFrame) or `disconnect-bot` (EndWorkerFrame): the bot shuts down. */
  onCancel: (how: 'eval-cancel' | 'disconnect-bot') => void;
  /** `crash-after-turn`: the bot dies. */
  onCrash: () => void;
  /** The client asked for `trigger_disconnect` and left: the bot's disconnect handler runs. */
  onDisconnectHandler: () => void;
}

export type TurnInput =
  | { kind: 'text'; text: string }
  | { kind: 'dtmf'; digits: string; text: string }
  | { kind: 'audio'; text: string; userEndMs: number | null };
