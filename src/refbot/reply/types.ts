/**
 * What a reply is given (its context, its plan, the timings) and what it
 * reports (what was cut, where its audio ended): shared by the reply run, its
 * speech pipeline and its audio account, which import this and not each other
 * for their types.
 */
import type { Clock } from '../../core/clock.js';
import type { FunctionCallReportLevel, ServerMessage } from '../../protocol/index.js';
import type { PlannedCall, Reply } from '../brain/brain.js';
import type { TruthLog } from '../truth.js';
import type { Speaker } from './speaker.js';
import type { BotTts } from './tts.js';

export interface ReplyTiming {
  /** The LLM's time to first token. */
  llmTtfbMs: number;
  /** Between two streamed word chunks. */
  chunkMs: number;
  /** Between two chunks of the story (slow enough to be interrupted by text too). */
  storyChunkMs: number;
}

export const DEFAULT_REPLY_TIMING: ReplyTiming = { llmTtfbMs: 20, chunkMs: 8, storyChunkMs: 60 };

/** A reply's first sentence keeps at most this much silence before its first audible sample (one frame). */
export const DEFAULT_TTS_LEAD_IN_MS = 20;

export interface ReplyContext {
  conn: number;
  clock: Clock;
  send: (message: ServerMessage) => void;
  speaker: Speaker;
  /** Whether the speaker's frames reach the wire (truth's `on_wire`). */
  audioOnWire: boolean;
  tts: BotTts;
  truth: TruthLog;
  timing: ReplyTiming;
  /**
   * Silence between two sentences of a reply, ms (0: back to back), sent as audio frames as a Pipecat TTS leaves it.
   */
  sentenceGapMs: number;
  /** The most silence the reply's first sentence keeps before its first audible sample. */
  ttsLeadInMs: number;
  /** The connection's `bot-output` segment counter (Pipecat numbers them by frame id). */
  segments: { count: number };
  reportLevel: (functionName: string) => FunctionCallReportLevel;
  /** eval-configure asked for the LLM's markers (`bot-llm-marker`). */
  llmMarkers?: () => boolean;
  /** The `crash-after-turn` point was reached (after the first chunk) / `disconnect-mid-audio` midway. */
  onFault: (fault: 'crash' | 'disconnect') => void;
  /** TTS failed: reported as an RTVI `error` by the conversation. */
  onSpeechError: (err: unknown) => void;
}

export interface ReplyPlan {
  /** Reply number on the connection (1, 2, ...). */
  id: number;
  reply: Reply;
  /** The user turn answered; null for the greeting. */
  turn: number | null;
  speak: boolean;
  /** Pause before `bot-llm-started` (response delay, `slow`). */
  delayMs: number;
  /** Play time of the end of the user's voiced speech, for `voice_to_voice_ms`. */
  userEndMs: number | null;
  responseDelayMs: number;
  crash?: boolean;
  disconnectMidway?: boolean;
  burst?: boolean;
}

/** What was in flight when a reply was aborted. */
export interface Interrupted {
  llmActive: boolean;
  /** `bot-started-speaking` was sent and `bot-stopped-speaking` not yet. */
  speaking: boolean;
  /** Calls reported in progress and not yet stopped. */
  runningCalls: PlannedCall[];
  /** The reply's audio, if any went out: where it ended. */
  audio: AudioEnd | null;
}

/** A sentence's audio as it goes out: when each of its frames was sent. */
export interface SpokenSegment {
  pcm: Int16Array;
  outStart: number;
  sentSamples: number;
  frameSentMs: number[];
}

/** Where a reply's audio ended: the last frame sent, and the last audible sample sent. */
export interface AudioEnd {
  outEnd: number;
  stoppedMs: number;
  outAudibleEnd: number | null;
  audibleEndMs: number | null;
}

export type StopReason = 'completed' | 'barge_in' | 'interrupted' | 'closed' | 'fault';
