import { assertNever, type MetricsData, type ServerInbound } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';

/** What one bot message means to the session, beyond the events it produces. */
export interface Translation {
  events: EarshotEvent[];
  /**
   * Set when the bot's in-flight output was cut off (barge-in, `run_immediately`
   * text, a new user turn): queued bot output must be dropped so only what the
   * bot says afterwards is matched. The value says why, for the trace.
   */
  dropPending?: string;
  /** The bot's own RTVI metrics, kept with the turn they arrive in. */
  metrics?: MetricsData;
  /** Boundaries of one spoken reply, for cutting captured audio into `response` segments. */
  speaking?: 'started' | 'stopped';
  /** The bot's TTS began a reply (`bot-tts-started`): it is about to speak. */
  ttsStarted?: boolean;
  /** A first LLM token of a response (for first-token latency). */
  firstToken?: boolean;
  /**
   * Every `bot-llm-text` chunk of the current response (not stragglers of an
   * interrupted one): the timeline's `llm_text` marks.
   */
  llmText?: boolean;
  /** Something the trace should show that is not an event (bot errors). */
  note?: string;
  /** The bot answered a client request (`server-response`) or refused it (`error-response`). */
  response?: BotResponse;
}

/**
 * A bot's answer to one client request, with the request's id when the bot echoed it (Pipecat does): the session
 * hands it to whoever waits on that id (session/requests.ts).
 */
export type BotResponse =
  | { kind: 'server-response'; id?: string; t: string; d?: unknown }
  | { kind: 'error-response'; id?: string; error: string };

/**
 * Turns RTVI server messages into earshot events, with Pipecat's rules:
 * `llm_response` is the `bot-llm-text` chunks joined at `bot-llm-stopped`;
 * `tts_response` is each `bot-tts-text` (audio judge only); after an
 * interruption, stragglers of the interrupted response are dropped until the
 * next `bot-llm-started`.
 */
export class EventTranslator {
  private textBuffer: string[] = [];
  private awaitingLlmRestart = false;
  /** What the bot said about itself in `bot-ready` (Pipecat: its library and version). */
  botAbout: Record<string, unknown> | undefined;

  constructor(private readonly opts: { botAudio: boolean }) {}

  /** Forgets partial output (before a turn sends, its queued output is stale). */
  resetBuffers(): void {
    this.textBuffer = [];
  }

  translate(message: ServerInbound, atMs: number): Translation {
    const signal = <N extends EarshotEvent['name']>(name: N): Translation => ({
      events: [{ name, at_ms: atMs } as EarshotEvent],
    });
    switch (message.type) {
      case 'bot-ready':
        this.botAbout = message.data.about;
        return signal('bot_ready');
      case 'user-started-speaking':
        // A new user turn: leftover bot output belongs to an earlier one.
        this.textBuffer = [];
        this.awaitingLlmRestart = true;
        return { ...signal('user_started_speaking'), dropPending: 'on user-started-speaking' };
      case 'bot-interrupted':
        this.textBuffer = [];
        this.awaitingLlmRestart = true;
        return { ...signal('bot_interrupted'), dropPending: 'on bot-interrupted' };
      case 'user-stopped-speaking':
        return signal('user_stopped_speaking');
      case 'vad-user-started-speaking':
        return signal('vad_user_started_speaking');
      case 'vad-user-stopped-speaking':
        return signal('vad_user_stopped_speaking');
      case 'user-transcription':
        if (!message.data.final) return { events: [] };
        return { events: [{ name: 'user_transcription', at_ms: atMs, text: message.data.text }] };
      case 'bot-llm-started':
        this.awaitingLlmRestart = false;
        this.textBuffer = [];
        return signal('llm_started');
      case 'bot-llm-text': {
        if (this.awaitingLlmRestart) return { events: [] };
        const first = this.textBuffer.length === 0;
        this.textBuffer.push(message.data.text);
        return { events: [], firstToken: first, llmText: true };
      }
      case 'bot-llm-stopped': {
        // A stop before the post-interruption restart is the tail of the interrupted response.
        const text = this.textBuffer.join('');
        this.textBuffer = [];
        if (this.awaitingLlmRestart) return { events: [] };
        return { events: [{ name: 'llm_response', at_ms: atMs, text }] };
      }
      case 'bot-llm-marker':
        return {
          events: [
            {
              name: 'llm_marker',
              at_ms: atMs,
              text: message.data.text,
              ...(message.data.kind !== undefined ? { kind: message.data.kind } : {}),
              raw: message.data.raw ?? '',
              markers: message.data.markers ?? [],
            },
          ],
        };
      case 'bot-tts-text':
        if (!this.opts.botAudio) return { events: [] };
        return { events: [{ name: 'tts_response', at_ms: atMs, text: message.data.text }] };
      case 'llm-function-call-in-progress':
        return {
          events: [
            {
              name: 'function_call',
              at_ms: atMs,
              function_name: message.data.function_name,
              tool_call_id: message.data.tool_call_id,
              args: message.data.arguments ?? {},
            },
          ],
        };
      case 'llm-function-call-stopped':
        return {
          events: [
            {
              name: 'function_call_stopped',
              at_ms: atMs,
              function_name: message.data.function_name,
              tool_call_id: message.data.tool_call_id,
              cancelled: message.data.cancelled,
              result: message.data.result,
            },
          ],
        };
      case 'bot-started-speaking':
        return { ...signal('bot_started_speaking'), speaking: 'started' };
      case 'bot-stopped-speaking':
        return { ...signal('bot_stopped_speaking'), speaking: 'stopped' };
      case 'metrics':
        return { events: [], metrics: message.data };
      case 'error':
        return { events: [], note: `bot error${message.data.fatal ? ' (fatal)' : ''}: ${message.data.error}` };
      case 'error-response':
        return {
          events: [],
          note: `bot rejected a request (id ${message.id ?? '?'}): ${message.data.error}`,
          response: { kind: 'error-response', ...idOf(message), error: message.data.error },
        };
      // Carried but not events: audio arrives separately, the rest is informational.
      case 'eval-bot-audio':
      case 'bot-tts-audio':
      case 'bot-tts-started':
        return { events: [], ttsStarted: true };
      case 'server-response':
        // An answer to a client request (the documents' ack, NeMo's control plane): never a sign the bot speaks.
        return {
          events: [],
          response: {
            kind: 'server-response',
            ...idOf(message),
            t: message.data.t,
            ...(message.data.d !== undefined ? { d: message.data.d } : {}),
          },
        };
      // The bot muting the user's input says nothing about its own speech.
      case 'user-mute-started':
      case 'user-mute-stopped':
      case 'user-llm-text':
      case 'bot-tts-stopped':
      case 'bot-transcription':
      case 'bot-output':
      case 'llm-function-call':
      case 'llm-function-call-started':
      case 'server-message':
      case 'user-audio-level':
      case 'bot-audio-level':
      case 'system-log':
      case 'ui-command':
      case 'ui-job-group':
      case 'unknown':
        return { events: [] };
      default:
        return assertNever(message, 'server message');
    }
  }
}

function idOf(message: { id?: string }): { id?: string } {
  return message.id !== undefined ? { id: message.id } : {};
}
