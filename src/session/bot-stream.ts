import type { EventQueue, EventTranslator } from '../events/index.js';
import type { EarshotEvent } from '../results/events.js';
import type { EventName } from '../scenario/events.js';
import type { BotSpeech } from './bot-speech.js';
import type { BotStream } from './driver.js';
import type { SessionMedia } from './media.js';

export interface BotStreamParts {
  queue: EventQueue;
  speech: BotSpeech;
  translator: EventTranslator;
  /** The media, once built (text sessions have none). */
  media: () => SessionMedia | null;
  signal: AbortSignal;
  log(line: string): void;
}

/** The driver's view of the bot's output (driver.ts `BotStream`): the session's queue, speech state and drops. */
export class SessionBotStream implements BotStream {
  constructor(private readonly parts: BotStreamParts) {}

  get seen(): readonly EarshotEvent[] {
    return this.parts.queue.seen;
  }

  get closedReason(): string | null {
    return this.parts.queue.closedReason;
  }

  get speaking(): boolean {
    return this.parts.speech.now;
  }

  next(
    accept: (e: EarshotEvent) => boolean,
    deadlineMs: number,
    signal: AbortSignal = this.parts.signal,
    onSkip?: (e: EarshotEvent) => void,
  ): Promise<EarshotEvent> {
    return this.parts.queue.next(accept, deadlineMs, signal, onSkip);
  }

  whenSeen(name: EventName, deadlineMs: number, signal: AbortSignal = this.parts.signal): Promise<number> {
    return this.parts.queue.whenSeen(name, deadlineMs, signal);
  }

  latest(name: EventName): number | undefined {
    return this.parts.queue.latest(name);
  }

  waitQuiet(maxWaitMs: number): Promise<boolean> {
    return this.parts.speech.waitQuiet(maxWaitMs, this.parts.signal);
  }

  dropPending(): void {
    this.parts.translator.resetBuffers();
    this.parts.media()?.dropPending('before send');
    const dropped = this.parts.queue.dropPending((e) => e.name === 'user_transcription');
    if (dropped) this.parts.log(`discard: dropped ${dropped} queued event(s) before send`);
  }
}
