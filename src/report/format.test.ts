import { describe, expect, it } from 'vitest';
import { fitLine, formatDuration, scenarioLabel, terminalSafe, visibleLength } from './format.js';

describe('format', () => {
  it('shows durations in the unit a person reads fastest', () => {
    expect([0, 412.4, 999, 1000, 1234, 59_949, 60_000, 123_456].map(formatDuration)).toEqual([
      '0 ms',
      '412 ms',
      '999 ms',
      '1.0 s',
      '1.2 s',
      '59.9 s',
      '1m 00s',
      '2m 03s',
    ]);
    expect(formatDuration(Number.NaN)).toBe('–');
  });

  it('labels a scenario run by name, bot and 1-based repeat', () => {
    expect(scenarioLabel({ name: 'capital' })).toBe('capital');
    expect(scenarioLabel({ name: 'capital', bot: 'voice.py', repeat_index: 0 })).toBe('capital [voice.py] #1');
  });

  it('removes escape sequences, control and bidi characters from untrusted text, and caps its length', () => {
    expect(terminalSafe('a\u001b[31mred\u001b[0m\u001b]8;;http://x\u0007link\u001b]8;;\u0007\u0000\u202eb')).toBe(
      'aredlinkb',
    );
    expect(terminalSafe('one\ntwo\r\n\tthree')).toBe('one two three');
    expect(terminalSafe('x'.repeat(500), 10)).toBe(`${'x'.repeat(9)}…`);
  });

  it('cuts a coloured line to a width without counting or breaking its colour codes', () => {
    const line = `\u001b[32m✓\u001b[39m ${'a'.repeat(40)}`;
    expect(visibleLength(line)).toBe(42);
    const cut = fitLine(line, 10);
    expect(visibleLength(cut)).toBe(10);
    expect(cut.startsWith('\u001b[32m✓\u001b[39m')).toBe(true);
    expect(fitLine('short', 10)).toBe('short');
  });
});
