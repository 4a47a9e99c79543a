import type { Clock } from '../core/clock.js';
import type { Redactor } from '../core/redact.js';

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
    let text = this.redactor.text(message);
    if (text.length > this.maxLineChars) text = `${text.slice(0, this.maxLineChars)}… (${text.length} chars)`;
    const line = `${t}  [${tag.padStart(3)}]  ${text}`;
    this.echo?.(line);
    if (this.lines.length < this.maxLines) this.lines.push(line);
    else this.dropped++;
  }

  toText(): string {
    const tail = this.dropped ? [`… ${this.dropped} more trace lines dropped (cap ${this.maxLines})`] : [];
    return [...this.lines, ...tail].join('\n') + '\n';
  }
}
