import { describe, expect, it } from 'vitest';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { Trace } from './trace.js';

/** The trace holds text the bot chose; it must stay inert on a terminal, one line per entry, secret-free and bounded. */
describe('Trace', () => {
  it('writes control characters as \\uXXXX escapes (tab kept), so bot text cannot drive a terminal or forge lines', () => {
    const echoed: string[] = [];
    const trace = new Trace(new ManualClock(1500), 1000, new Redactor({}), 10, 500, (l) => echoed.push(l));
    trace.log('excerpt: \u001b]0;pwned\u0007\u001b[31mred\r\nforged\tline\u009b');
    const expected = '   0.500  [ --]  excerpt: \\u001b]0;pwned\\u0007\\u001b[31mred\\u000d\\u000aforged\tline\\u009b';
    expect(echoed).toEqual([expected]);
    expect(trace.toText()).toBe(`${expected}\n`);
  });

  it('redacts secrets, cuts long lines and caps the number of lines', () => {
    const trace = new Trace(new ManualClock(0), 0, new Redactor({ X_API_KEY: 'sk-secret-123' }), 2, 30);
    trace.log('key sk-secret-123 leaked');
    trace.log('x'.repeat(50));
    trace.log('dropped');
    expect(trace.toText().split('\n')).toEqual([
      '   0.000  [ --]  key [redacted] leaked',
      `   0.000  [ --]  ${'x'.repeat(30)}… (50 chars)`,
      '… 1 more trace lines dropped (cap 2)',
      '',
    ]);
  });
});
