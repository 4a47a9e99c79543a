import { describe, expect, it } from 'vitest';
import { childPath, closest, formatDiagnostic, ScenarioError, type Diagnostic } from './diagnostics.js';
import { EarshotError } from '../core/errors.js';

const d: Diagnostic = {
  severity: 'error',
  file: '/p/s.yaml',
  line: 8,
  col: 20,
  path: 'turns[2].expect[0].within_ms',
  message: 'expected a positive integer (ms), got "abc"',
};

describe('diagnostics', () => {
  it('format as file:line:col: severity: path: message, relative to cwd when inside it', () => {
    expect(formatDiagnostic(d)).toBe(
      '/p/s.yaml:8:20: error: turns[2].expect[0].within_ms: expected a positive integer (ms), got "abc"',
    );
    expect(formatDiagnostic(d, { cwd: '/p' })).toBe(
      's.yaml:8:20: error: turns[2].expect[0].within_ms: expected a positive integer (ms), got "abc"',
    );
    expect(formatDiagnostic({ ...d, path: '', included_from: '/p/a.yaml:2:8' }, { cwd: '/p' })).toBe(
      's.yaml:8:20: error: expected a positive integer (ms), got "abc" (included from a.yaml:2:8)',
    );
  });

  it('ScenarioError is an EarshotError whose message is the first error, with a count of the rest', () => {
    const e = new ScenarioError('/p/s.yaml', [d, { ...d, line: 9 }, { ...d, severity: 'warning' }]);
    expect(e).toBeInstanceOf(EarshotError);
    expect(e.name).toBe('ScenarioError');
    expect(e.message).toBe(`${formatDiagnostic(d)} (and 1 more error)`);
    expect(e.diagnostics).toHaveLength(3);
  });

  it('field paths quote keys that are not identifiers', () => {
    expect(childPath(childPath(childPath('', 'turns'), 2), 'expect')).toBe('turns[2].expect');
    expect(childPath('args', 'my key')).toBe('args["my key"]');
  });

  it('suggest the closest known name only when it is a plausible typo', () => {
    expect(closest('resposne', ['response', 'llm_response'])).toBe('response');
    expect(closest('zzzzzz', ['response', 'llm_response'])).toBeUndefined();
  });
});
