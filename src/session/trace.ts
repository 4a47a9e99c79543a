import type { EarshotEvent } from '../results/events.js';
import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';

/**
 * Control characters other than tab. What the bot sends reaches the trace (violation excerpts, reasons), and the
 * trace is echoed to a terminal (-v) and read with `cat`: they are written as \uXXXX escapes, so a bot can
 * neither drive the terminal (escape sequences) nor forge trace lines (CR, LF).
 */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g;

/**
 * A timestamped trace of the harness's own decisions (events received, what
 * the matcher waited for, judge verdicts), for diagnosing flaky runs. Lines
 * are tagged with the turn being processed; secrets are redacted on the way
 * in; the trace is capped so a flooding bot cannot exhaust memory.
 */
export class Trace {
  private readonly lines: string[] = [];
  private dropped = 0;
  turn = -1;

  constructor(
    private readonly clock: Clock,
    private readonly t0Ms: number,
    private readonly redactor: Redactor,
    private readonly maxLines = 20_000,
    private readonly maxLineChars = 500,
    private readonly echo?: (line: string) => void,
  ) {}

  log(message: string): void {
    const t = ((this.clock.now() - this.t0Ms) / 1000).toFixed(3).padStart(8);
    const tag = this.turn >= 0 ? `t${this.turn}` : '--';
    let text = this.redactor
      .text(message)
      .replace(CONTROL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    if (text.length > this.maxLineChars) text = `${text.slice(0, this.maxLineChars)}… (${text.length} chars)`;
    const line = `${t}  [${tag.padStart(3)}]  ${text}`;
    this.echo?.(line);
    if (this.lines.length < this.maxLines) this.lines.push(line);
    else this.dropped++;
  }

  toText(): string {
    const tail = this.dropped ? [`… ${this.dropped} more trace lines dropped (cap ${this.maxLines})`] : [];
    return `${[...this.lines, ...tail].join('\n')}\n`;
  }
}

/** What a trace line shows of an event after its name: its text, or the call. */
export function describeEvent(e: EarshotEvent): string {
  if ('text' in e) return ` ${JSON.stringify(e.text)}`;
  if (e.name === 'function_call') return ` ${e.function_name ?? '?'}(${JSON.stringify(e.args ?? {})})`;
  if (e.name === 'function_call_stopped')
    return ` ${e.function_name ?? '?'} id=${e.tool_call_id ?? '?'} cancelled=${String(e.cancelled)}`;
  return '';
}
