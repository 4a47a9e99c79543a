import type { EarshotEvent } from '../../results/events.js';

/**
 * When the bot has finished a reply, as Pipecat's simulated caller decides it:
 * the persona answers each finished response. In text mode a response is the
 * bot's LLM text (`llm_response`); in audio mode it is the transcription of
 * what it actually said (`response`, one per spoken reply). Text that arrives
 * while a function call is in progress is held, so a reply split by a tool
 * call ("Let me check." · call · "It's free at 6.") is one turn, answered when
 * the text after the last call arrives.
 */
export class BotTurns {
  private held: string[] = [];
  private callsInProgress = 0;

  constructor(private readonly botAudio: boolean) {}

  /** Takes one event; returns the bot's finished turn when this event finished one. */
  observe(event: EarshotEvent): string | null {
    switch (event.name) {
      case 'function_call':
        this.callsInProgress++;
        return null;
      case 'function_call_stopped':
        this.callsInProgress = Math.max(0, this.callsInProgress - 1);
        return null;
      case 'llm_response':
      case 'response':
        if (event.name !== (this.botAudio ? 'response' : 'llm_response')) return null;
        if (event.text.trim()) this.held.push(event.text.trim());
        if (this.callsInProgress > 0 || this.held.length === 0) return null;
        return this.take();
      default:
        return null;
    }
  }

  /** What the bot said since its last finished turn (the call is over: its last words close it). */
  flush(): string | null {
    return this.held.length ? this.take() : null;
  }

  private take(): string {
    const text = this.held.join(' ');
    this.held = [];
    return text;
  }
}
