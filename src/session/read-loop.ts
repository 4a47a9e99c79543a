import type { ClientConnection, Received, ServerInbound } from '../protocol/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { EventQueue, EventTranslator } from '../events/index.js';
import type { SessionMedia } from './media.js';
import type { SessionRequests } from './requests.js';
import type { SessionTiming } from './timing.js';
import type { Trace } from './trace.js';

export interface ReadLoopDeps {
  queue: EventQueue;
  translator: EventTranslator;
  trace: Trace;
  media: SessionMedia | null;
  timing: SessionTiming;
  t0: number;
  emit: (e: EarshotEvent) => void;
  /** The bot's TTS began a reply: the session counts the bot as speaking from here. */
  onTtsStarted?: () => void;
  /** Requests waiting for the bot's answers (`server-response`/`error-response` by id); failed when the stream ends. */
  requests?: Pick<SessionRequests, 'onResponse' | 'onMalformed' | 'end'>;
}

/**
 * Drains the connection: translates messages into events, hands audio to
 * media, feeds the timeline what is not an event (LLM text chunks, the bot's
 * own metrics), and ends the queue with the reason the stream ended.
 */
export async function readLoop(conn: ClientConnection, d: ReadLoopDeps): Promise<void> {
  let violations = 0;
  for (;;) {
    const item: Received<ServerInbound> | null = await conn.receive();
    if (item === null) break;
    const atMs = item.at - d.t0;
    switch (item.kind) {
      case 'rtvi': {
        const t = d.translator.translate(item.message, atMs);
        if (t.note) d.trace.log(t.note);
        if (t.dropPending) {
          const dropped = d.queue.dropPending((e) => e.name === 'user_transcription');
          d.media?.dropPending(t.dropPending);
          if (dropped) d.trace.log(`discard: dropped ${dropped} queued event(s) ${t.dropPending}`);
        }
        if (t.speaking) d.media?.onSpeaking(t.speaking, atMs);
        if (t.ttsStarted) d.onTtsStarted?.();
        if (t.response) d.requests?.onResponse(t.response);
        if (t.llmText) d.timing.event('llm_text', atMs);
        if (t.metrics) d.timing.botMetrics(t.metrics, atMs);
        for (const event of t.events) d.emit(event);
        break;
      }
      case 'audio':
        d.media?.onBotAudio(item, atMs);
        break;
      case 'invalid': {
        violations++;
        if (item.violation.id !== undefined) d.requests?.onMalformed(item.violation.id, item.violation.reason);
        // An oversized frame is refused unread: it has no excerpt to quote.
        const what = item.violation.excerpt
          ? `${item.violation.reason}: ${item.violation.excerpt}`
          : item.violation.reason;
        d.trace.log(`protocol violation (${item.violation.code}): ${what}`);
        if (violations === 1) d.queue.close(what, 'protocol_error');
        break;
      }
      case 'overflow':
        d.trace.log(`inbound overflow: ${item.dropped} message(s) dropped (${item.droppedBytes} bytes)`);
        d.queue.close(`event storm: ${item.dropped} message(s) dropped by the bounded inbound queue`, 'protocol_error');
        break;
      case 'text':
      case 'transcription':
      case 'interruption':
        // Protobuf-transport frames that duplicate what RTVI messages already say.
        break;
    }
  }
  const info = await conn.closed;
  d.requests?.end('the connection closed');
  d.trace.log(
    `connection closed (${info.code}${info.reason ? ` ${info.reason}` : ''}${info.byPeer ? ', by the bot' : ''})`,
  );
  d.queue.close(`connection closed by the bot (code ${info.code}${info.reason ? `: ${info.reason}` : ''})`);
}
