import type { Clock } from '../core/clock.js';
import { sleepUntil, type TimerDriver } from '../core/timers.js';
import type { EventName } from '../scenario/events.js';

/** How often a held send looks whether the bot has stopped speaking (Pipecat polls at 10 ms too). */
const QUIET_POLL_MS = 10;

/**
 * Whether the bot is speaking, by its own reports: from its TTS starting a
 * reply (`bot-tts-started`: a short reply's text can end before its audio
 * begins, and a turn sent then would talk over all of it) or
 * `bot-started-speaking`, until `bot-stopped-speaking` or the end of the
 * stream. What a turn waits on before it sends (script-driver.ts).
 */
export class BotSpeech {
  private speaking = false;

  constructor(
    private readonly clock: Clock,
    private readonly timers: TimerDriver,
    private readonly streamEnded: () => boolean,
  ) {}

  get now(): boolean {
    return this.speaking && !this.streamEnded();
  }

  onEvent(name: EventName): void {
    if (name === 'bot_started_speaking') this.speaking = true;
    if (name === 'bot_stopped_speaking') this.speaking = false;
  }

  onTtsStarted(): void {
    this.speaking = true;
  }

  /** Resolves once the bot is quiet (true), or after `maxWaitMs` while it still speaks (false). */
  async waitQuiet(maxWaitMs: number, signal?: AbortSignal): Promise<boolean> {
    const deadline = this.clock.now() + maxWaitMs;
    while (this.now) {
      if (this.clock.now() >= deadline) return false;
      await sleepUntil(this.timers, Math.min(deadline, this.clock.now() + QUIET_POLL_MS), signal);
    }
    return true;
  }
}
