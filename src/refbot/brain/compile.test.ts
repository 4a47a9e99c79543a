import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EarshotError } from '../../core/errors.js';
import { BrainError, BrainMemory, defaultBrainPath, loadBrain, parseBrain } from './brain.js';

const MINIMAL = 'greeting: Hi.\nfallback: Pardon?\n';

function brainError(yaml: string, file = 'test.yaml'): BrainError {
  try {
    parseBrain(yaml, file);
  } catch (err) {
    if (err instanceof BrainError) return err;
    throw err;
  }
  throw new Error('expected a BrainError');
}

function say(yaml: string, ...texts: string[]): string[] {
  const brain = parseBrain(yaml, 'test.yaml');
  const memory = new BrainMemory();
  return texts.map((text) => brain.respond({ kind: 'text', text }, memory).text);
}

describe('brain file: format', () => {
  it('needs only a greeting and a fallback', () => {
    const brain = parseBrain(MINIMAL, 'min.yaml');
    expect(brain.file).toBe('min.yaml');
    expect(brain.greeting().text).toBe('Hi.');
    expect(brain.respond({ kind: 'text', text: 'anything' }, new BrainMemory()).text).toBe('Pardon?');
    // No keypad: keys get the fallback.
    expect(brain.respond({ kind: 'dtmf', digits: '1#' }, new BrainMemory()).source).toBe('fallback');
  });

  it('takes the first rule that matches, in file order', () => {
    const yaml = `${MINIMAL}rules:
  - { name: a, when: hello, reply: first }
  - { name: b, when: hello world, reply: second }
`;
    expect(say(yaml, 'Hello world!')).toEqual(['first']);
  });

  it('all / any / none / regex in one condition must all hold; a list of conditions is any of them', () => {
    const yaml = `${MINIMAL}rules:
  - when:
      - { all: [red, blue], none: [green] }
      - { any: [purple, violet], regex: "^i like" }
    reply: yes
`;
    expect(say(yaml, 'red and blue', 'red blue green', 'I like violet', 'violet, I like', 'blue')).toEqual([
      'yes',
      'Pardon?',
      'yes',
      'Pardon?',
      'Pardon?',
    ]);
  });

  it('matches whole words; a trailing * matches any ending', () => {
    const yaml = `${MINIMAL}rules:
  - { when: "restaurant*", reply: food }
  - { when: cat, reply: cat }
`;
    expect(say(yaml, 'Any restaurants?', 'concatenate', 'A cat!')).toEqual(['food', 'Pardon?', 'cat']);
  });

  it('patterns are normalized like the input: contractions and case do not matter', () => {
    const yaml = `${MINIMAL}rules:\n  - { when: "What's up", reply: ok }\n`;
    expect(say(yaml, 'what is up', "WHAT'S UP?")).toEqual(['ok', 'ok']);
  });

  it('vocabularies capture their canonical name; a list of vocabularies is their union; earliest mention wins', () => {
    const yaml = `${MINIMAL}vocab:
  city:
    New York: [new york, nyc, big apple]
    York:
  country: { Peru: [peru] }
  place: [city, country]
rules:
  - when: { all: [go to, $place] }
    reply: Off to {{place}}.
`;
    expect(say(yaml, 'I go to the big apple', 'go to Peru, then York', 'go to new york')).toEqual([
      'Off to New York.',
      'Off to Peru.',
      'Off to New York.',
    ]);
  });

  it('a bare-string when: $vocab captures its slot, as in all:', () => {
    const yaml = `${MINIMAL}vocab:
  dish: { Pizza: [pizza, pie], Pasta: [pasta, spaghetti] }
rules:
  - when: $dish
    reply: One {{dish}} coming up.
`;
    expect(say(yaml, 'a pie please', 'some spaghetti', 'soup')).toEqual([
      'One Pizza coming up.',
      'One Pasta coming up.',
      'Pardon?',
    ]);
  });

  it('regex named groups capture slots; filters format them', () => {
    const yaml = `${MINIMAL}rules:
  - when: { regex: "call me (?<nick>[a-z]+)" }
    reply: Hi {{nick|title}} ({{nick|upper}}).
`;
    expect(say(yaml, 'Call me maverick.')).toEqual(['Hi Maverick (MAVERICK).']);
  });

  it('remember keeps slots for later rules; needs holds a rule back until they are known', () => {
    const yaml = `${MINIMAL}rules:
  - when: { regex: "i like (?<thing>[a-z]+)" }
    reply: Noted.
    remember: { liked: "{{thing}}" }
  - when: what do i like
    needs: [liked]
    reply: You like {{liked}}.
  - { when: what do i like, reply: No idea. }
`;
    expect(say(yaml, 'what do i like', 'I like tea', 'What do I like?')).toEqual([
      'No idea.',
      'Noted.',
      'You like tea.',
    ]);
  });

  it('calls render their args and result from captures, keep non-text values, and get per-connection ids', () => {
    const yaml = `${MINIMAL}vocab: { city: { Oslo: } }
rules:
  - when: { all: [weather, $city] }
    reply: Fine in {{city}}.
    calls:
      - name: get_weather
        args: { location: "{{city}}", days: 2, tags: ["{{city|upper}}", true] }
        duration_ms: 1500
        result: { text: "Sunny in {{city}}", degrees: 20 }
      - { name: log }
`;
    const brain = parseBrain(yaml, 't.yaml');
    const memory = new BrainMemory();
    const reply = brain.respond({ kind: 'text', text: 'weather in oslo' }, memory);
    expect(reply.calls).toEqual([
      {
        name: 'get_weather',
        args: { location: 'Oslo', days: 2, tags: ['OSLO', true] },
        durationMs: 1500,
        result: { text: 'Sunny in Oslo', degrees: 20 },
        toolCallId: 'call_1',
      },
      { name: 'log', args: {}, durationMs: 0, result: null, toolCallId: 'call_2' },
    ]);
  });

  it('keypad keys are read as written: 012 stays "012"', () => {
    const yaml = `${MINIMAL}keypad:
  options:
    012: zero one two
    7: seven
  invalid: no such option
`;
    const brain = parseBrain(yaml, 't.yaml');
    expect(brain.respond({ kind: 'dtmf', digits: '012#' }, new BrainMemory()).text).toBe('zero one two');
    expect(brain.respond({ kind: 'dtmf', digits: '12#' }, new BrainMemory()).text).toBe('no such option');
    expect(brain.respond({ kind: 'dtmf', digits: '7' }, new BrainMemory()).text).toBe('seven');
  });

  it('folded multi-line replies become single-spaced text', () => {
    const yaml = `greeting: >-\n  Hello\n  there,\n    friend.\nfallback: "  Pardon?  "\n`;
    const brain = parseBrain(yaml, 't.yaml');
    expect(brain.greeting().text).toBe('Hello there, friend.');
    expect(brain.respond({ kind: 'text', text: 'x' }, new BrainMemory()).text).toBe('Pardon?');
  });
});

describe('brain file: errors are located at file:line:col with the field', () => {
  it('is a BrainError (an EarshotError, exit code 2) with structured fields', () => {
    const err = brainError(`${MINIMAL}rules:\n  - when: hi\n    reply: Hello {{name}}\n`, 'b.yaml');
    expect(err).toBeInstanceOf(EarshotError);
    expect(err.name).toBe('BrainError');
    expect(err.exitCode).toBe(2);
    expect({ file: err.file, line: err.line, col: err.col, field: err.field }).toEqual({
      file: 'b.yaml',
      line: 5,
      col: 12,
      field: 'rules[0].reply',
    });
    expect(err.message).toBe(
      'b.yaml:5:12: rules[0].reply: {{name}} is not captured by "when" nor listed in "needs" (no slots are known here)',
    );
  });

  it.each([
    ['invalid YAML', 'greeting: [unclosed\nfallback: x\n', /^t\.yaml:\d+:\d+: invalid YAML: /],
    [
      'duplicate keys',
      'greeting: a\ngreeting: b\nfallback: c\n',
      /^t\.yaml:2:1: invalid YAML: Map keys must be unique/,
    ],
    ['a document that is not a mapping', '- a\n- b\n', /^t\.yaml:1:1: \(top level\): expected a mapping/],
    ['a missing greeting', 'fallback: x\n', /^t\.yaml:1:1: \(top level\): missing required field "greeting"/],
    [
      'an unknown top-level field',
      `${MINIMAL}rulez: []\n`,
      /^t\.yaml:3:1: rulez: unknown field "rulez" \(expected one of: vocab, greeting/,
    ],
    [
      'an unknown rule field',
      `${MINIMAL}rules:\n  - when: a\n    reply: b\n    replly: c\n`,
      /^t\.yaml:6:5: rules\[0\]\.replly: unknown field "replly"/,
    ],
    [
      'a rule without reply',
      `${MINIMAL}rules:\n  - when: a\n`,
      /^t\.yaml:4:5: rules\[0\]: missing required field "reply"/,
    ],
    ['an empty reply', `${MINIMAL}rules:\n  - when: a\n    reply:\n`, /^t\.yaml:5:5: rules\[0\]\.reply: expected text/],
    [
      'a boolean reply',
      `${MINIMAL}rules:\n  - when: a\n    reply: true\n`,
      /^t\.yaml:5:12: rules\[0\]\.reply: expected text, got a boolean/,
    ],
    [
      'an unknown vocabulary',
      `${MINIMAL}rules:\n  - when: { all: [$town] }\n    reply: b\n`,
      /^t\.yaml:4:19: rules\[0\]\.when\.all\[0\]: unknown vocabulary "\$town"/,
    ],
    [
      'a bad regex',
      `${MINIMAL}rules:\n  - when: { regex: "(unclosed" }\n    reply: b\n`,
      /^t\.yaml:4:20: rules\[0\]\.when\.regex: invalid regular expression/,
    ],
    [
      'a regex group that is not a slot name',
      `${MINIMAL}rules:\n  - when: { regex: "(?<Name>x)" }\n    reply: b\n`,
      /rules\[0\]\.when\.regex: group name "Name" is not a slot name/,
    ],
    [
      'a misplaced *',
      `${MINIMAL}rules:\n  - when: "res*taurant"\n    reply: b\n`,
      /^t\.yaml:4:11: rules\[0\]\.when: "res\*taurant": a \* goes at the end of a word/,
    ],
    [
      'an empty alternative',
      `${MINIMAL}rules:\n  - when: "a||b"\n    reply: b\n`,
      /rules\[0\]\.when: "a\|\|b" has an empty alternative/,
    ],
    [
      'an empty condition',
      `${MINIMAL}rules:\n  - when: {}\n    reply: b\n`,
      /rules\[0\]\.when: a condition needs at least one of all, any, none, regex/,
    ],
    [
      'a negative duration',
      `${MINIMAL}rules:\n  - when: a\n    reply: b\n    calls: [{ name: f, duration_ms: -5 }]\n`,
      /^t\.yaml:6:37: rules\[0\]\.calls\[0\]\.duration_ms: expected a number >= 0, got -5/,
    ],
    [
      'a fractional duration',
      `${MINIMAL}rules:\n  - when: a\n    reply: b\n    calls: [{ name: f, duration_ms: 1.5 }]\n`,
      /duration_ms: expected a whole number/,
    ],
    [
      'args that are not a mapping',
      `${MINIMAL}rules:\n  - when: a\n    reply: b\n    calls: [{ name: f, args: [1] }]\n`,
      /rules\[0\]\.calls\[0\]\.args: expected a mapping of argument names/,
    ],
    [
      'an unknown slot in call args',
      `${MINIMAL}rules:\n  - when: a\n    reply: b\n    calls: [{ name: f, args: { x: "{{city}}" } }]\n`,
      /rules\[0\]\.calls\[0\]\.args: \{\{city\}\} is not captured/,
    ],
    [
      'an unknown filter',
      `${MINIMAL}rules:\n  - when: { regex: "(?<a>x)" }\n    reply: "{{a|shout}}"\n`,
      /rules\[0\]\.reply: unknown filter "shout"/,
    ],
    [
      'a slot in the greeting',
      'greeting: Hi {{name}}\nfallback: x\n',
      /^t\.yaml:1:11: greeting: \{\{name\}\} is not captured.*no slots are known here/,
    ],
    [
      'duplicate rule names',
      `${MINIMAL}rules:\n  - { name: x, when: a, reply: b }\n  - { name: x, when: c, reply: d }\n`,
      /^t\.yaml:5:5: rules\[1\]\.name: two rules are named "x"/,
    ],
    [
      'a vocabulary that includes itself',
      `${MINIMAL}vocab:\n  a: [b]\n  b: [a]\n`,
      /vocab\.[ab]\[0\]: vocabulary "[ab]" includes itself/,
    ],
    [
      'a vocabulary union naming nothing',
      `${MINIMAL}vocab:\n  a: [zzz]\n`,
      /^t\.yaml:4:7: vocab\.a\[0\]: unknown vocabulary "zzz"/,
    ],
    [
      'a keypad key that is not digits',
      `${MINIMAL}keypad:\n  options:\n    "1#": x\n  invalid: y\n`,
      /keypad\.options\.1#: keypad key "1#" must be digits or \*/,
    ],
    [
      'a keypad without invalid',
      `${MINIMAL}keypad:\n  options: { "1": x }\n`,
      /keypad: missing required field "invalid"/,
    ],
    [
      'a collect reply using another slot',
      `${MINIMAL}keypad:\n  options:\n    "3":\n      reply: Enter it.\n      collect: { slot: number, reply: "Got {{digits}}" }\n  invalid: y\n`,
      /keypad\.options\.3\.collect\.reply: \{\{digits\}\} is not captured.*known here: number/,
    ],
  ])('%s', (_what, yaml, message) => {
    expect(brainError(yaml, 't.yaml').message).toMatch(message);
  });

  it('a slot captured by only some alternatives of when is rejected unless needs lists it', () => {
    const rule = `  - when:\n      - { all: [$city] }\n      - hello\n    reply: In {{city}}.\n`;
    const vocab = 'vocab: { city: { Oslo: } }\n';
    expect(brainError(`${MINIMAL}${vocab}rules:\n${rule}`).message).toMatch(
      /rules\[0\]\.reply: \{\{city\}\} is not captured/,
    );
    expect(() => parseBrain(`${MINIMAL}${vocab}rules:\n${rule}    needs: [city]\n`, 't.yaml')).not.toThrow();
  });

  it('loadBrain names the file it cannot read, without a line', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-brain-'));
    try {
      const missing = join(dir, 'nope.yaml');
      const err = (() => {
        try {
          loadBrain(missing);
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(err).toBeInstanceOf(BrainError);
      expect((err as BrainError).line).toBeNull();
      expect((err as BrainError).message).toMatch(
        new RegExp(`^${missing.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: cannot read the brain file: ENOENT`),
      );
      const bad = join(dir, 'bad.yaml');
      writeFileSync(bad, 'greeting: hi\n');
      expect(() => loadBrain(bad)).toThrow(`${bad}:1:1: (top level): missing required field "fallback"`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('brain file: the default', () => {
  it('is fixtures/brain.yaml under the package root, found without a hard-coded path', () => {
    const path = defaultBrainPath();
    const root = resolve(import.meta.dirname, '..', '..', '..');
    expect(path).toBe(join(root, 'fixtures', 'brain.yaml'));
    expect(JSON.parse(readFileSync(join(dirname(dirname(path)), 'package.json'), 'utf8')).name).toBe('earshot');
    expect(loadBrain().file).toBe(path);
  });
});
