import type { TerminalStream } from './reporter.js';

/**
 * An output sink that keeps what was written and interprets the few cursor
 * controls the list reporter uses (ESC[nF: up n lines to column 0; ESC[0J:
 * clear to the end of the screen), so a test can read the screen a person
 * would see, not just the byte stream.
 */
export class VirtualTerminal implements TerminalStream {
  raw = '';
  private lines: string[] = [''];
  private row = 0;

  constructor(
    readonly isTTY: boolean,
    readonly columns = 100,
  ) {}

  write(chunk: string): boolean {
    this.raw += chunk;
    const parts = chunk.split(/(\u001b\[\d*[FJ])/);
    for (const part of parts) {
      const ctl = /^\u001b\[(\d*)([FJ])$/.exec(part);
      if (ctl) {
        if (ctl[2] === 'F') this.row = Math.max(0, this.row - Number(ctl[1] || '1'));
        else {
          this.lines = this.lines.slice(0, this.row);
          this.lines.push('');
        }
        continue;
      }
      const pieces = part.split('\n');
      pieces.forEach((piece, i) => {
        if (i > 0) {
          this.row += 1;
          if (this.lines.length <= this.row) this.lines.push('');
        }
        this.lines[this.row] = (this.lines[this.row] ?? '') + piece;
      });
    }
    return true;
  }

  /** The visible screen, colour codes removed, without the trailing empty line. */
  screen(): string[] {
    const out = this.lines.map((l) => l.replace(/\u001b\[[0-9;]*m/g, ''));
    while (out.length > 0 && out[out.length - 1] === '') out.pop();
    return out;
  }
}
