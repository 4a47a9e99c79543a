import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import { isPatternProblem, parseTextPattern } from './text-pattern.js';
import type { Scenario } from './types.js';

/** earshot's deterministic checks as the loader reads them: text_matches, number, expected_text, wer:, two transcribers. */

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

const AUDIO =
  'user: { modality: audio, speech: { service: flite } }\njudge: { modality: audio, transcription: { service: sphinx } }\n';

/** One turn with the given keys (and expectation keys), in the newest format. */
function file(turn: string, exp: string, head = ''): string {
  const keys = exp
    .split('\n')
    .map((line, i) => `${i === 0 ? '          - ' : '            '}${line}`)
    .join('\n');
  const turnKeys = turn
    ? `${turn
        .split('\n')
        .map((l) => `        ${l}`)
        .join('\n')}\n`
    : '';
  return `name: f\n${head}scenarios:\n  - name: s\n    turns:\n      - user: What is the capital of France?\n${turnKeys}        expect:\n${keys}\n`;
}
const load = (turn: string, exp: string, head = ''): Scenario =>
  loadedOf(inspect(project, file(turn, exp, head))) as Scenario;
const errors = (turn: string, exp: string, head = '') => errorsOf(inspect(project, file(turn, exp, head)));

describe('text_matches', () => {
  it('compiles in Unicode mode; a leading (?i) (?m) (?s) group sets the flags', () => {
    expect(load('', 'event: response\ntext_matches: "(?i)\\\\bparis\\\\b"').turns[0].expect[0].text_matches).toEqual({
      source: '(?i)\\bparis\\b',
      pattern: '\\bparis\\b',
      flags: 'iu',
    });
    expect(parseTextPattern('(?si)a.b')).toEqual({ source: '(?si)a.b', pattern: 'a.b', flags: 'isu' });
    expect(parseTextPattern('^\\p{Lu}')).toEqual({ source: '^\\p{Lu}', pattern: '^\\p{Lu}', flags: 'u' });
  });

  it('a pattern that does not compile is a located error saying why', () => {
    expect(errors('', 'event: response\ntext_matches: "(paris"')[0]).toMatchObject({
      path: 'turns[0].expect[0].text_matches',
      line: 8,
      col: 27,
      message: 'not a valid regular expression: Unterminated group',
    });
    expect(errors('', "event: response\ntext_matches: 'a\\-b'")[0].message).toBe(
      'not a valid regular expression: Invalid escape',
    );
  });

  it('refuses nested unbounded quantifiers, the exponential-time shape, and allows the bounded ones', () => {
    for (const bad of ['(a+)+$', '(\\w*\\s?)*x', '(?:x|(ab)+)*', '((a)+b)*', '(a{2,})+']) {
      const p = parseTextPattern(bad);
      expect(isPatternProblem(p) && p.problem, bad).toMatch(
        /^the quantified group at character \d+ holds an unbounded quantifier/,
      );
    }
    expect(errors('', 'event: response\ntext_matches: "x(a+)+"')[0].message).toMatch(
      /^the quantified group at character 2 /,
    );
    for (const ok of [
      '(a+){2}',
      '(ab)+',
      '[(a+)]+',
      '\\(a+\\)+',
      '(seventy|70)\\s*(five|5)',
      '^(?:\\w+ ){2,5}paris$',
    ]) {
      expect(isPatternProblem(parseTextPattern(ok)), ok).toBe(false);
    }
  });

  it('warns on an event without text', () => {
    expect(warningsOf(inspect(project, file('', 'event: llm_started\ntext_matches: x'))).map((w) => w.message)).toEqual(
      ['llm_started carries no text, so text_matches can never match'],
    );
  });
});

describe('number', () => {
  it('a value, or a value with a tolerance in percent (default 0)', () => {
    expect(load('', 'event: response\nnumber: 75').turns[0].expect[0].number).toEqual({ value: 75, tolerance_pct: 0 });
    expect(load('', 'event: response\nnumber: { value: 75, tolerance_pct: 5 }').turns[0].expect[0].number).toEqual({
      value: 75,
      tolerance_pct: 5,
    });
  });

  it('located type errors', () => {
    expect(errors('', 'event: response\nnumber: { value: seventy }')[0]).toMatchObject({
      path: 'turns[0].expect[0].number.value',
      message: 'expected a number, got "seventy"',
    });
    expect(errors('', 'event: response\nnumber: { tolerance_pct: 5 }')[0].message).toBe(
      "missing required key 'value' (a number)",
    );
    expect(errors('', 'event: response\nnumber: { value: 1, tolerance_pct: -1 }')[0]).toMatchObject({
      path: 'turns[0].expect[0].number.tolerance_pct',
      message: 'expected a non-negative number (%), got -1',
    });
  });

  it('absent: true cannot be combined with the new checks', () => {
    expect(errors('', 'event: response\nabsent: true\nnumber: 3')[0].message).toBe(
      "'absent: true' matches on the event type only; it cannot be combined with 'number'",
    );
  });
});

describe('expected_text and wer:', () => {
  it('on a reply expectation or on the turn, with bounds on user_wer and bot_wer', () => {
    const s = load(
      'expected_text: The capital of France is Paris.\nwer: { user_wer: { max: 0.25 }, bot_wer: { max: 0.3 } }',
      'event: response',
      AUDIO,
    );
    expect(s.turns[0]).toMatchObject({
      expected_text: 'The capital of France is Paris.',
      wer: { user_wer: { max: 0.25 }, bot_wer: { max: 0.3 } },
    });
    expect(
      load('wer: { bot_wer: { max: 0.3 } }', 'event: response\nexpected_text: Paris.').turns[0].expect[0].expected_text,
    ).toBe('Paris.');
  });

  it('located errors: a reference on a non-reply, two references, a bound with nothing to measure, min above max', () => {
    expect(errors('', 'event: function_call\nexpected_text: x')[0]).toMatchObject({
      path: 'turns[0].expect[0].expected_text',
      message:
        "expected_text is the reference of the bot's word error rate (bot_wer): it belongs on a reply (response, llm_response, tts_response), not function_call",
    });
    expect(errors('expected_text: a', 'event: response\nexpected_text: b')[0]).toMatchObject({
      path: 'turns[0].expected_text',
    });
    expect(errors('wer: { bot_wer: { max: 0.2 } }', 'event: response')[0]).toMatchObject({
      path: 'turns[0].wer.bot_wer',
      line: 6,
      message: "bot_wer needs a reference: an 'expected_text:' on the turn or on one of its reply expectations",
    });
    expect(errors('wer: { user_wer: { min: 0.5, max: 0.2 } }', 'event: response')[0].message).toBe(
      'min (0.5) is above max (0.2)',
    );
    expect(errors('wer: { user_wer: { max: -1 } }', 'event: response')[0].message).toBe(
      'expected a non-negative number, got -1',
    );
    expect(errors('wer: {}', 'event: response')[0].message).toBe('expected at least 1 of: user_wer, bot_wer');
  });

  it('user_wer on a typed turn is a warning: the bound fails unless the bot transcribes typed text', () => {
    expect(
      warningsOf(inspect(project, file('wer: { user_wer: { max: 0.2 } }', 'event: response'))).map((w) => w.message),
    ).toEqual([
      "user_wer needs the bot's user_transcription of the caller's speech, but user.modality is text (typed turns are not transcribed): unless the bot reports one, this bound fails as not measurable",
    ]);
  });
});

describe('judge.transcription: a second transcriber checks the first', () => {
  const judge = (t: string) =>
    `user: { modality: audio, speech: { service: flite } }\njudge:\n  modality: audio\n  transcription: ${t}\n`;

  it('a list of two: the first transcribes, the second checks; the disagreement threshold beside it', () => {
    const s = load(
      '',
      'event: response',
      `${judge('[{ service: sphinx }, { service: whisper, model: base.en }]')}  transcription_disagreement: 0.4\n`,
    );
    expect(s.judge.transcription).toMatchObject({ service: 'sphinx' });
    expect(s.judge.transcription_check).toMatchObject({ service: 'whisper', model: 'base.en' });
    expect(s.judge.transcription_disagreement).toBe(0.4);
    expect(load('', 'event: response', judge('[{ service: sphinx }]')).judge.transcription_check).toBeUndefined();
  });

  it('at most two; a threshold with one transcriber is a warning', () => {
    expect(
      errors('', 'event: response', judge('[{ service: sphinx }, { service: sphinx }, { service: sphinx }]'))[0],
    ).toMatchObject({
      path: 'judge.transcription[2]',
      message: 'lists at most two transcribers: the one that transcribes the bot, and the one that checks it',
    });
    expect(
      warningsOf(
        inspect(
          project,
          file('', 'event: response', `${judge('{ service: sphinx }')}  transcription_disagreement: 0.4\n`),
        ),
      ).map((w) => w.message),
    ).toEqual(['compares two transcribers, and judge.transcription names one: it applies only with --stt-check']);
  });

  it('records a factory of the check transcriber as a code hook of its own block', () => {
    const s = load('', 'event: response', judge('[{ service: sphinx }, { factory: "./stt.js#make" }]'));
    expect(s.code_hooks.map((h) => h.block)).toEqual(['judge.transcription[1]']);
    expect(s.requires_code).toBe(true);
  });
});
