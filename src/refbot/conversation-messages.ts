/**
 * The client's RTVI messages to one connection of the reference bot, routed as Pipecat's RTVIProcessor (and, for
 * the eval control messages, its eval serializer) routes them: to the conversation, answered, or logged and dropped.
 */
import {
  asEvalData,
  type ClientInbound,
  DOCUMENTS_MESSAGE,
  type EvalConfigure,
  isNemoControlType,
  RTVI_PROTOCOL_VERSION,
  type ServerMessage,
} from '../protocol/index.js';
import type { BrainMemory } from './brain/brain.js';
import type { ConversationDeps } from './conversation-deps.js';
import { onDocumentsMessage } from './documents-message.js';
import { onNemoControl } from './state/control-messages.js';
import { scenarioStateOf } from './state/hooks.js';

/** What the messages act on: the connection's conversation (conversation.ts). */
export interface ClientMessageHost {
  deps: ConversationDeps;
  memory: BrainMemory;
  send: (message: ServerMessage) => void;
  clientReady: (id: string, version: string) => void;
  text: (content: string, runImmediately: boolean, audioResponse: boolean) => void;
  pressKey: (key: string) => void;
  /** `eval-configure`: the observer's report levels, VAD events and markers from now on. */
  configure: (config: EvalConfigure) => void;
}

export function onClientMessage(message: ClientInbound, host: ClientMessageHost): void {
  const { deps } = host;
  switch (message.type) {
    case 'client-ready':
      return host.clientReady(message.id, message.data.version);
    case 'send-text': {
      const options = message.data.options ?? {};
      return host.text(message.data.content, options.run_immediately ?? true, options.audio_response ?? true);
    }
    case 'dtmf':
      for (const key of message.data.buttons) host.pressKey(key);
      return;
    case 'client-message': {
      if (message.data.t === DOCUMENTS_MESSAGE) {
        const indexed = onDocumentsMessage(message.id, message.data.d, host.memory.documents, host.send);
        return deps.log(`conn ${deps.conn}: ${DOCUMENTS_MESSAGE}: ${indexed ?? 'refused'} document(s) indexed`);
      }
      if (isNemoControlType(message.data.t))
        return onNemoControl(message.id, message.data.t, message.data.d, scenarioStateOf(host.memory), host.send);
      const control = asEvalData(message.data);
      if (!control) {
        // As NeMo's dispatcher answers a type it has no handler for: refused, so the client is not left waiting.
        deps.log(`conn ${deps.conn}: client-message "${message.data.t}" refused: no handler`);
        return host.send({
          type: 'error-response',
          id: message.id,
          data: { error: `Unsupported client-message type "${message.data.t}"` },
        });
      }
      // Only Pipecat's eval serializer reads these; its production transport hands them to the app, which drops them.
      if (deps.codec !== 'pipecat-eval')
        return deps.log(`conn ${deps.conn}: client-message "${control.t}" ignored: only the eval transport reads it`);
      switch (control.t) {
        case 'eval-configure':
          return host.configure(control.d);
        case 'eval-context':
          return deps.brain.seedContext(
            control.d.messages.map((m) => ({ role: m.role, content: m.content })),
            host.memory,
          );
        case 'eval-image':
          return deps.log(
            `conn ${deps.conn}: eval-image received (${control.d.image.length} base64 chars); ` +
              'this bot has no camera to serve it to',
          );
        case 'eval-cancel':
          deps.log(`conn ${deps.conn}: eval-cancel: shutting down`);
          return deps.onCancel('eval-cancel');
      }
      return;
    }
    case 'disconnect-bot':
      // Pipecat pushes an EndWorkerFrame: the pipeline ends, and with it the bot.
      deps.log(`conn ${deps.conn}: disconnect-bot: ending the pipeline`);
      return deps.onCancel('disconnect-bot');
    case 'append-to-context':
      // Removed in Pipecat 1.0; this bot speaks RTVI 2.x and answers as Pipecat does now.
      host.send({ type: 'error-response', id: message.id, data: { error: `Unsupported type ${message.type}` } });
      return;
    case 'raw-audio':
    case 'raw-audio-batch':
    case 'llm-function-call-result':
      // Audio arrives as audio items (the codec decodes it); results: this bot runs its own functions.
      return;
    case 'unknown':
      if (message.id !== undefined)
        host.send({
          type: 'error-response',
          id: message.id,
          data: { error: `Unsupported type ${message.rtviType}` },
        });
      return;
  }
}

/** The `error-response` a `client-ready` of an RTVI version this bot does not speak gets (before its bot-ready). */
export function versionError(id: string, version: string): ServerMessage | null {
  const major = Number(version.split('.')[0]);
  if (!/^\d+\.\d+\.\d+$/.test(version) || (major !== 1 && major !== Number(RTVI_PROTOCOL_VERSION.split('.')[0]))) {
    return {
      type: 'error-response',
      id,
      data: {
        error:
          `RTVI version ${version} is not compatible with server protocol ${RTVI_PROTOCOL_VERSION}. ` +
          'Compatibility issues may occur.',
      },
    };
  }
  return null;
}
