/**
 * Client messages as earshot's harness sends them, with request ids from one
 * counter per connection. Shapes follow Pipecat's harness exactly, so a bot
 * sees the same bytes from earshot as from `pipecat eval`.
 */
import {
  type AboutClient,
  type AppendToContextMessage,
  type ClientMessageMessage,
  type ClientReadyMessage,
  type DisconnectBotMessage,
  type DtmfMessage,
  type EvalConfigure,
  type KeypadEntry,
  KEYPAD_ENTRIES,
  type LlmContextMessage,
  RTVI_PROTOCOL_VERSION,
  type SendTextMessage,
} from './rtvi.js';
import type { NemoControlData, NemoControlType } from './nemo-control.js';

export class ClientMessages {
  private next = 0;

  /** The next request id ("1", "2", ...). */
  id(): string {
    return String(++this.next);
  }

  clientReady(about: AboutClient, version = RTVI_PROTOCOL_VERSION): ClientReadyMessage {
    return { type: 'client-ready', id: this.id(), data: { version, about } };
  }

  /** `runImmediately` interrupts whatever the bot is doing; `audioResponse: false` means no TTS for this answer. */
  sendText(content: string, options: { runImmediately?: boolean; audioResponse?: boolean } = {}): SendTextMessage {
    return {
      type: 'send-text',
      id: this.id(),
      data: {
        content,
        options: { run_immediately: options.runImmediately ?? true, audio_response: options.audioResponse ?? true },
      },
    };
  }

  /**
   * Keys as typed in a scenario (`"12#"`); throws a RangeError for a character that is not a keypad key (validate
   * scenarios first).
   */
  dtmf(keys: string): DtmfMessage {
    const buttons = [...keys];
    const bad = buttons.find((k) => !(KEYPAD_ENTRIES as readonly string[]).includes(k));
    if (bad !== undefined || buttons.length === 0) throw new RangeError(`not DTMF keys: ${JSON.stringify(keys)}`);
    return { type: 'dtmf', id: this.id(), data: { buttons: buttons as KeypadEntry[] } };
  }

  evalConfigure(config: EvalConfigure): ClientMessageMessage {
    return { type: 'client-message', id: this.id(), data: { t: 'eval-configure', d: config } };
  }

  evalContext(messages: LlmContextMessage[]): ClientMessageMessage {
    return { type: 'client-message', id: this.id(), data: { t: 'eval-context', d: { messages } } };
  }

  /** `image` is the file's bytes as base64, `format` its MIME type. */
  evalImage(image: string, format: string): ClientMessageMessage {
    return { type: 'client-message', id: this.id(), data: { t: 'eval-image', d: { image, format } } };
  }

  evalCancel(): ClientMessageMessage {
    return { type: 'client-message', id: this.id(), data: { t: 'eval-cancel', d: {} } };
  }

  /** An application's own client message. */
  custom(t: string, d?: unknown): ClientMessageMessage {
    return { type: 'client-message', id: this.id(), data: d === undefined ? { t } : { t, d } };
  }

  /** A NeMo control request (nemo-control.ts): a `client-message` whose answer carries this message's id. */
  nemoControl<T extends NemoControlType>(t: T, d: Extract<NemoControlData, { t: T }>['d']): ClientMessageMessage {
    return this.custom(t, d ?? {});
  }

  /** One context message for a bot older than Pipecat 1.0 (see `AppendToContextMessage`); never runs the LLM. */
  appendToContext(message: LlmContextMessage): AppendToContextMessage {
    return {
      type: 'append-to-context',
      id: this.id(),
      data: { role: message.role, content: message.content ?? '', run_immediately: false },
    };
  }

  disconnectBot(): DisconnectBotMessage {
    return { type: 'disconnect-bot', id: this.id() };
  }
}
