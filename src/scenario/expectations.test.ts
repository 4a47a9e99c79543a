import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { loadScenarioFile } from './load.js';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Scenario } from './types.js';

/** The expectation fields and events of Pipecat's newest `script.py`, loaded into the typed `Expectation`. */

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

/** A one-expectation scenario in the newest format; `exp` is the expectation's keys, one per line. */
function withExpectation(exp: string, judge = ''): string {
  const keys = exp
    .split('\n')
    .map((line, i) => `${i === 0 ? '          - ' : '            '}${line}`)
    .join('\n');
  return `name: f\n${judge}scenarios:\n  - name: s\n    turns:\n      - user: hi\n        expect:\n${keys}\n`;
}

function expectation(exp: string, judge = ''): Scenario['turns'][number]['expect'][number] {
  return (loadedOf(inspect(project, withExpectation(exp, judge))) as Scenario).turns[0].expect[0];
}

describe('expectations: the newest script.py', () => {
  it('text_excludes: a string the event text must not hold, beside text_contains', () => {
    expect(expectation('event: llm_response\ntext_contains: Berlin\ntext_excludes: "●"')).toMatchObject({
      text_contains: 'Berlin',
      text_excludes: '●',
    });
    expect(errorsOf(inspect(project, withExpectation('event: response\ntext_excludes: 3')))[0]).toMatchObject({
      path: 'turns[0].expect[0].text_excludes',
      line: 8,
      col: 28,
      message: 'expected a string, got 3 (YAML reads it as a number; quote it to keep it text)',
    });
    expect(
      warningsOf(inspect(project, withExpectation('event: llm_started\ntext_excludes: x'))).map((w) => w.message),
    ).toEqual(['llm_started carries no text, so text_excludes checks nothing']);
  });

  it('llm_marker with marker: complete | short | long | incomplete', () => {
    for (const marker of ['complete', 'short', 'long', 'incomplete']) {
      expect(expectation(`event: llm_marker\nmarker: ${marker}`)).toMatchObject({
        event: 'llm_marker',
        declared_event: 'llm_marker',
        marker,
      });
    }
    const [error] = errorsOf(inspect(project, withExpectation('event: llm_marker\nmarker: incomplet')));
    expect(error).toMatchObject({
      path: 'turns[0].expect[0].marker',
      line: 8,
      col: 21,
      message: 'unknown value "incomplet"; did you mean "incomplete"?',
    });
  });

  it('marker_first and text_after are booleans, markers a count', () => {
    expect(
      expectation('event: llm_marker\nmarker: short\nmarker_first: true\nmarkers: 1\ntext_after: false'),
    ).toMatchObject({
      marker: 'short',
      marker_first: true,
      markers: 1,
      text_after: false,
    });
    const errors = errorsOf(
      inspect(project, withExpectation('event: llm_marker\nmarker_first: 1\nmarkers: true\ntext_after: "no"')),
    );
    expect(errors.map((e) => [e.path, e.message])).toEqual([
      ['turns[0].expect[0].marker_first', 'expected true or false, got 1'],
      ['turns[0].expect[0].markers', 'expected a non-negative integer, got true'],
      ['turns[0].expect[0].text_after', 'expected true or false, got "no"'],
    ]);
    expect(errorsOf(inspect(project, withExpectation('event: llm_marker\nmarkers: -1')))[0].message).toBe(
      'expected a non-negative integer, got -1',
    );
  });

  it('the marker checks apply only to llm_marker: elsewhere they are a located error', () => {
    const [error] = errorsOf(inspect(project, withExpectation('event: llm_response\nmarker: complete\nmarkers: 1')));
    expect(error).toMatchObject({ path: 'turns[0].expect[0].marker', line: 8, col: 21 });
    expect(error.message).toBe("'marker:', 'markers:' apply only to the 'llm_marker' event, not llm_response");
  });

  it('a bare llm_marker only asserts that the bot read a response', () => {
    const e = expectation('event: llm_marker');
    expect(e).toEqual({ event: 'llm_marker', declared_event: 'llm_marker', within_ms: 60_000, absent: false });
  });

  it('eval: on function_call is allowed (the judge reads each matched call), with no warning', () => {
    const r = inspect(
      project,
      withExpectation('event: function_call\ncalls: [{name: submit}]\neval: "a session about tracing"'),
    );
    expect(warningsOf(r)).toEqual([]);
    expect((loadedOf(r) as Scenario).turns[0].expect[0]).toMatchObject({
      eval: 'a session about tracing',
      calls: [{ name: 'submit' }],
    });
  });

  it('eval: on function_call_stopped is a located error: a stopped call has no arguments to judge', () => {
    const [error] = errorsOf(
      inspect(project, withExpectation('event: function_call_stopped\neval: "cancelled politely"')),
    );
    expect(error).toMatchObject({ path: 'turns[0].expect[0].eval', line: 8, col: 19 });
    expect(error.message).toBe(
      "a stopped call carries no arguments to judge; put the 'eval:' on the 'function_call' instead",
    );
  });

  it('eval: on any other non-reply event is a warning', () => {
    expect(
      warningsOf(inspect(project, withExpectation('event: user_transcription\neval: "says hi"'))).map((w) => w.path),
    ).toEqual(['turns[0].expect[0].eval']);
  });

  it('absent: true cannot combine with text_excludes or the marker checks', () => {
    for (const key of [
      'text_excludes: x',
      'marker: complete',
      'marker_first: true',
      'markers: 1',
      'text_after: true',
    ]) {
      const event = key.startsWith('text') && !key.startsWith('text_after') ? 'response' : 'llm_marker';
      const [error] = errorsOf(inspect(project, withExpectation(`event: ${event}\nabsent: true\n${key}`)));
      expect(error?.path, key).toBe('turns[0].expect[0].absent');
      expect(error.message).toContain(`cannot be combined with '${key.split(':')[0]}'`);
    }
  });

  it('vad_user_started_speaking / vad_user_stopped_speaking are events for expect and for send_after', () => {
    const s = loadedOf(
      inspect(
        project,
        'name: f\nscenarios:\n  - name: s\n    turns:\n      - user: "Let me think"\n        expect:\n          - event: vad_user_started_speaking\n          - event: vad_user_stopped_speaking\n      - user: "Japan."\n        send_after: {event: vad_user_stopped_speaking, delay_ms: 3000}\n',
      ),
    ) as Scenario;
    expect(s.turns[0].expect.map((e) => e.event)).toEqual(['vad_user_started_speaking', 'vad_user_stopped_speaking']);
    expect(s.turns[1].send_after).toEqual({ event: 'vad_user_stopped_speaking', delay_ms: 3000 });
  });

  it('image (the bot generated an image) and bot_interrupted are events', () => {
    expect(expectation('event: image\nwithin_ms: 30000')).toMatchObject({ event: 'image', within_ms: 30000 });
    expect(expectation('event: bot_interrupted')).toMatchObject({ event: 'bot_interrupted' });
  });

  it('a misspelled key warns with the closest known one', () => {
    const warnings = warningsOf(
      inspect(project, withExpectation('event: llm_marker\nmarkr: complete\ntext_exclude: x')),
    );
    expect(warnings.map((w) => [w.path, w.line, w.col, w.message])).toEqual([
      ['turns[0].expect[0].markr', 8, 13, "unknown key 'markr'; did you mean 'marker'?"],
      ['turns[0].expect[0].text_exclude', 9, 13, "unknown key 'text_exclude'; did you mean 'text_excludes'?"],
    ]);
  });

  it("the turn_completion fixture's expectations load as written", () => {
    const [short, history] = loadScenarioFile(
      join(resolve(import.meta.dirname, 'testdata', 'list'), 'turn_completion.yaml'),
    ).scenarios as Scenario[];
    expect(short.turns[0].expect).toEqual([
      {
        event: 'llm_marker',
        declared_event: 'llm_marker',
        within_ms: 60_000,
        absent: false,
        marker: 'complete',
        marker_first: true,
        markers: 1,
        text_after: true,
      },
      {
        event: 'llm_response',
        declared_event: 'response',
        within_ms: 60_000,
        absent: false,
        text_contains: 'Japan',
        text_excludes: '●',
      },
    ]);
    expect(history.turns[0].expect[1]).toMatchObject({ event: 'llm_marker', marker: 'incomplete' });
  });
});
