import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join, resolve } from 'node:path';
import { formatDiagnostic } from './diagnostics.js';
import { loadFileSync, loadRawDocument, locationOf } from './load.js';
import { errorsOf, inspect, loadedOf, TempProject, warningsOf } from './scenario.testutil.js';
import type { Scenario } from './types.js';

const TESTDATA = resolve(import.meta.dirname, 'testdata');

let project: TempProject;
beforeEach(() => {
  project = new TempProject();
});
afterEach(() => project.cleanup());

function script(yaml: string, options = {}): Scenario {
  const loaded = loadedOf(inspect(project, yaml, options));
  if (loaded.kind !== 'script') throw new Error(`expected a script, got ${loaded.kind}`);
  return loaded;
}

describe('scripted scenarios: the normalized model', () => {
  it('loads every field Pipecat accepts plus the earshot extensions, snake_case, paths absolute', () => {
    const s = loadFileSync(join(TESTDATA, 'full/every_field.yaml')) as Scenario;
    expect(s.kind).toBe('script');
    expect(s.name).toBe('every_field');
    expect(s.file).toBe(join(TESTDATA, 'full/every_field.yaml'));
    expect(s.user).toEqual({ modality: 'audio', speech: { service: 'kokoro', voice: 'af_heart', sample_rate: 16000 } });
    expect(s.judge).toEqual({
      modality: 'audio',
      eval: {
        service: 'openai',
        model: 'gpt-4o-mini',
        endpoint: 'http://localhost:11434/v1',
        extra: { temperature: 0 },
        explain_below: 0.75,
        allow_continue: true,
      },
      transcription: { service: 'whisper', model: 'tiny', language: 'es', padding_secs: 0.5 },
    });
    expect(s.context).toEqual([{ role: 'developer', content: 'The user is Alex.' }]);
    expect(s.trigger_disconnect).toBe(true);
    expect(s.stop_on_failure).toBe(false);
    expect(s.turns).toHaveLength(5);
    expect(s.turns[1].image).toBe(join(TESTDATA, 'assets/pixel.png'));
    expect(s.turns[1].expect.map((e) => e.event)).toEqual([
      'llm_started',
      'function_call',
      'function_call_stopped',
      'tts_response',
      'response',
    ]);
    expect(s.turns[1].expect[1].calls).toEqual([
      { name: 'get_weather' },
      { name: 'get_time', args: { city: 'Paris' } },
    ]);
    expect(s.turns[1].expect[2].calls).toEqual([{ name: 'get_weather', args: { cancelled: false } }]);
    expect(s.turns[1].expect[4]).toMatchObject({ event: 'response', absent: true, within_ms: 1500 });
    expect(s.turns[1].latency).toEqual({ voice_to_voice_ms: { max: 1200 }, interruption_ms: { min: 10, max: 400 } });
    expect(s.turns[2].dtmf).toBe('012');
    expect(s.turns[3]).toMatchObject({ dtmf: '123#', send_after: { delay_ms: 500 } });
    expect(s.turns[4].audio).toBe(join(TESTDATA, 'assets/tone.wav'));
    expect(s.turns[4].send_after).toEqual({ event: 'bot_audio_started', delay_ms: 800 });
    expect(s.turns[4].expect[0].calls).toEqual([{}]);
    expect(s.includes).toEqual([
      join(TESTDATA, 'includes/shared/user_audio.yaml'),
      join(TESTDATA, 'includes/shared/speech.yaml'),
    ]);
    // The one-scenario shape is deprecated: the only warning.
    expect(s.warnings.map((w) => [w.code, w.path, w.line])).toEqual([['deprecated', 'turns', 21]]);
    expect(s.requires_code).toBe(false);
  });

  it('fills defaults: text modalities, Ollama judge, 60 s budgets, stop_on_failure', () => {
    const s = script('name: d\nturns:\n  - user: hi\n    expect:\n      - event: response\n');
    expect(s.user).toEqual({ modality: 'text' });
    expect(s.judge).toEqual({
      modality: 'text',
      eval: {
        service: 'ollama',
        model: 'gemma4:12b',
        extra: { reasoning_effort: 'none' },
        explain_below: 0.75,
        allow_continue: true,
      },
    });
    expect(s.turns[0].expect[0].within_ms).toBe(60000);
    expect(s.stop_on_failure).toBe(true);
    expect(s.trigger_disconnect).toBe(false);
    expect(s.context).toEqual([]);
  });

  it('within_ms defaults to LoadOptions.defaultWithinMs (the --timeout flag)', () => {
    const s = script(
      'name: d\nturns:\n  - expect:\n      - event: llm_started\n      - event: response\n        within_ms: 900\n',
      { defaultWithinMs: 5000 },
    );
    expect(s.turns[0].expect.map((e) => e.within_ms)).toEqual([5000, 900]);
  });

  it('an Ollama judge naming its own model gets no default extras; other services are kept as written', () => {
    const s = script('name: d\njudge:\n  eval:\n    model: llama3\nturns: []\n');
    expect(s.judge.eval).toEqual({ service: 'ollama', model: 'llama3', explain_below: 0.75, allow_continue: true });
  });

  it('keeps a source location for every field, for reports', () => {
    const s = script(
      'name: loc\nturns:\n  - user: hi\n    expect:\n      - event: response\n        within_ms: 2000\n',
    );
    expect(s.locations['turns[0].expect[0].within_ms']).toMatchObject({ line: 6, col: 20 });
    expect(s.locations['turns[0].user']).toMatchObject({ line: 3, col: 11 });
    expect(locationOf(s, 'turns[0].expect[0]')).toMatchObject({ line: 5, col: 9 });
    // A defaulted field was never written: its nearest written ancestor answers.
    expect(locationOf(s, 'turns[0].expect[0].absent')).toMatchObject({ line: 5, col: 9 });
  });
});

describe('scripted scenarios: rules', () => {
  it('integers are decimal only: dtmf 012 keeps its digits, 123 becomes "123", 0x1F stays text', () => {
    const s = script('name: d\nturns:\n  - dtmf: 012\n  - dtmf: 123\n  - dtmf: 1_2\n');
    expect(s.turns.map((t) => t.dtmf)).toEqual(['012', '123', '12']);
    const hex = errorsOf(inspect(project, 'name: d\nturns:\n  - dtmf: 0x1F\n'));
    expect(hex[0].message).toContain('invalid keypad key "x"');
  });

  it('DTMF keys are only 0-9, * and #, and the error points at the bad key', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns:\n  - dtmf: "12a#"\n'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ line: 3, col: 14, path: 'turns[0].dtmf' });
    expect(errors[0].message).toBe('invalid keypad key "a" in "12a#"; expected only 0-9, * and #');
  });

  it('user and dtmf are exclusive', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns:\n  - user: hi\n    dtmf: "1"\n'));
    expect(errors.map((e) => e.path)).toEqual(['turns[0].dtmf']);
    expect(errors[0].message).toContain('not both');
  });

  it('send_after needs user or dtmf', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns:\n  - send_after: {delay_ms: 100}\n'));
    expect(errors.map((e) => e.path)).toEqual(['turns[0].send_after']);
    expect(errors[0].message).toContain("no 'user:' or 'dtmf:'");
  });

  it('send_after needs an event or a positive delay_ms', () => {
    expect(
      errorsOf(inspect(project, 'name: d\nturns:\n  - user: hi\n    send_after: {delay_ms: 0}\n'))[0].message,
    ).toContain("needs an 'event:' to wait for or a positive 'delay_ms:'");
    expect(
      errorsOf(inspect(project, 'name: d\nturns:\n  - user: hi\n    send_after: {delay_ms: -5}\n'))[0].message,
    ).toBe('expected a non-negative integer (ms), got -5');
    expect(script('name: d\nturns:\n  - user: hi\n    send_after: {event: llm_started}\n').turns[0].send_after).toEqual(
      {
        event: 'llm_started',
        delay_ms: 0,
      },
    );
  });

  it('send_after may anchor on the measured bot_audio_started event', () => {
    const s = script(
      'name: d\njudge: {modality: audio, transcription: {service: sphinx}}\nturns:\n  - user: hi\n    send_after: {event: bot_audio_started, delay_ms: 800}\n',
    );
    expect(s.turns[0].send_after).toEqual({ event: 'bot_audio_started', delay_ms: 800 });
  });

  it('absent: true cannot combine with text_contains, eval, calls, name or args', () => {
    for (const key of ['text_contains: x', 'eval: x', 'calls: [f]', 'name: f', 'args: {a: 1}']) {
      const errors = errorsOf(
        inspect(
          project,
          `name: d\nturns:\n  - expect:\n      - event: function_call\n        absent: true\n        ${key}\n`,
        ),
      );
      expect(
        errors.map((e) => e.path),
        key,
      ).toEqual(['turns[0].expect[0].absent']);
      expect(errors[0].message).toContain(`'${key.split(':')[0]}'`);
    }
  });

  it('eval: on a non-text event is a warning, on replies and function calls it is not', () => {
    const r = inspect(
      project,
      'name: d\nturns:\n  - expect:\n      - event: llm_started\n        eval: "fast"\n      - event: function_call\n        eval: "books a table"\n',
    );
    expect(r.status).toBe('loaded');
    expect(warningsOf(r).map((w) => w.path)).toEqual(['turns[0].expect[0].eval']);
  });

  it('response becomes llm_response under a text judge and stays response under an audio judge; the written name is kept', () => {
    const text = script('name: d\nturns:\n  - expect:\n      - event: response\n');
    expect(text.turns[0].expect[0]).toMatchObject({ event: 'llm_response', declared_event: 'response' });
    const audio = script(
      'name: d\njudge: {modality: audio, transcription: {service: sphinx}}\nturns:\n  - expect:\n      - event: response\n',
    );
    expect(audio.turns[0].expect[0]).toMatchObject({ event: 'response', declared_event: 'response' });
  });

  it('tts_response with a text judge modality is an error', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns:\n  - expect:\n      - event: tts_response\n'));
    expect(errors.map((e) => e.path)).toEqual(['turns[0].expect[0].event']);
    expect(errors[0].message).toContain('judge.modality is text');
  });

  it('user.modality: audio needs user.speech unless every spoken turn names an audio: file', () => {
    const missing = errorsOf(
      inspect(project, 'name: d\nuser: {modality: audio}\nturns:\n  - user: hi\n  - dtmf: "1"\n  - user: bye\n'),
    );
    expect(missing.map((e) => e.path)).toEqual(['user.modality']);
    expect(missing[0].message).toContain('turns 0, 2');
    project.write('a.wav', 'RIFF');
    const recorded = script(
      'name: d\nuser: {modality: audio}\nturns:\n  - user: hi\n    audio: a.wav\n  - dtmf: "1"\n',
    );
    expect(recorded.turns[0].audio).toBe(project.path('a.wav'));
  });

  it('audio: needs user text beside it, user.modality: audio, no dtmf, and an existing file', () => {
    project.write('a.wav', 'RIFF');
    const cases: [string, string][] = [
      ['user: {modality: audio, speech: {service: flite}}\nturns:\n  - audio: a.wav\n', "needs 'user:' beside it"],
      ['turns:\n  - user: hi\n    audio: a.wav\n', "needs 'user.modality: audio'"],
      [
        'user: {modality: audio, speech: {service: flite}}\nturns:\n  - dtmf: "1"\n    audio: a.wav\n',
        "'audio:' (a recording) or 'dtmf:'",
      ],
    ];
    for (const [body, message] of cases) {
      const errors = errorsOf(inspect(project, `name: d\n${body}`));
      expect(errors.map((e) => e.message).join('\n'), body).toContain(message);
      expect(errors[0].path).toBe('turns[0].audio');
    }
  });

  it('a recording or image that does not exist is a warning, as Pipecat loads it: the run fails at that turn', () => {
    const r = inspect(
      project,
      'name: d\nuser: {modality: audio, speech: {service: flite}}\nturns:\n  - user: hi\n    audio: gone.wav\n    image: gone.png\n',
    );
    const s = loadedOf(r) as Scenario;
    expect(s.turns[0]).toMatchObject({ audio: project.path('gone.wav'), image: project.path('gone.png') });
    expect(warningsOf(r).map((w) => [w.path, w.line, w.col, w.message.split(' (')[0]])).toEqual([
      ['turns[0].audio', 5, 12, 'audio file not found: gone.wav'],
      ['turns[0].image', 6, 12, 'image not found: gone.png'],
    ]);
  });

  it('audio: and image: resolve relative to the scenario file', () => {
    project.write('assets/cat.jpg', 'jpg');
    project.write('rec/a.wav', 'RIFF');
    const s = loadedOf(
      inspect(
        project,
        'name: d\nuser: {modality: audio}\nturns:\n  - user: hi\n    audio: ../rec/a.wav\n    image: ../assets/cat.jpg\n',
        {},
        'scenarios/s.yaml',
      ),
    ) as Scenario;
    expect(s.turns[0].audio).toBe(project.path('rec/a.wav'));
    expect(s.turns[0].image).toBe(project.path('assets/cat.jpg'));
  });

  it('judge.modality: audio needs judge.transcription', () => {
    const errors = errorsOf(inspect(project, 'name: d\njudge: {modality: audio}\nturns: []\n'));
    expect(errors.map((e) => e.path)).toEqual(['judge.modality']);
    expect(errors[0].message).toContain("needs a 'judge.transcription:' block");
  });

  it('takes the sphinx pool settings, and locates bad ones', () => {
    const ok = script(
      'name: d\njudge: {modality: audio, transcription: {service: sphinx, mode: once, pool_size: 2, pool_queue: 0}}\nturns: []\n',
    );
    expect(ok.judge.transcription).toMatchObject({ service: 'sphinx', mode: 'once', pool_size: 2, pool_queue: 0 });
    const errors = errorsOf(
      inspect(
        project,
        'name: d\njudge: {modality: audio, transcription: {service: sphinx, mode: warm, pool_size: 0}}\nturns: []\n',
      ),
    );
    expect(errors.map((e) => e.path)).toEqual(['judge.transcription.mode', 'judge.transcription.pool_size']);
    expect(errors[0].message).toContain('expected one of "pool", "once", "stream"');
  });

  it('unknown keys are warnings naming the key and the closest known one', () => {
    const r = inspect(
      project,
      'name: d\nstop_on_failur: false\nturns:\n  - user: hi\n    expect:\n      - event: response\n        withn_ms: 100\n',
    );
    expect(r.status).toBe('loaded');
    const warnings = warningsOf(r);
    expect(warnings.map((w) => [w.path, w.line, w.col])).toEqual([
      ['stop_on_failur', 2, 1],
      ['turns[0].expect[0].withn_ms', 7, 9],
    ]);
    expect(warnings[0].message).toBe("unknown key 'stop_on_failur'; did you mean 'stop_on_failure'?");
    expect(warnings[1].message).toBe("unknown key 'withn_ms'; did you mean 'within_ms'?");
  });

  it('an unknown event name is an error with the closest known name', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns:\n  - expect:\n      - event: resposne\n'));
    expect(errors[0]).toMatchObject({ path: 'turns[0].expect[0].event', line: 4, col: 16 });
    expect(errors[0].message).toBe('unknown value "resposne"; did you mean "response"?');
  });

  it('an unknown value with no near match lists the known ones', () => {
    const [error] = errorsOf(inspect(project, 'name: d\nuser: {modality: video}\nturns: []\n'));
    expect(error.message).toBe('unknown value "video"; expected one of "text", "audio"');
  });

  it('a wrong value names file, line, column, the field path and what was expected', () => {
    const r = inspect(
      project,
      'name: d\nturns:\n  - user: hi\n  - user: again\n  - user: third\n    expect:\n      - event: response\n        within_ms: abc\n',
    );
    const [error] = errorsOf(r);
    expect(error.expected).toBe('a positive integer (ms)');
    expect(formatDiagnostic(error)).toBe(
      `${project.path('scenario.yaml')}:8:20: error: turns[2].expect[0].within_ms: expected a positive integer (ms), got "abc"`,
    );
  });

  it('a number where text is expected says how YAML read it', () => {
    const [error] = errorsOf(inspect(project, 'name: d\nturns:\n  - user: 42\n'));
    expect(error.message).toBe('expected a string, got 42 (YAML reads it as a number; quote it to keep it text)');
  });

  it('reads YAML 1.1 booleans as Pipecat does (yes/no/on/off)', () => {
    const s = script('name: d\nstop_on_failure: no\ntrigger_disconnect: on\nturns: []\n');
    expect([s.stop_on_failure, s.trigger_disconnect]).toEqual([false, true]);
  });

  it('types scalars as PyYAML does under Pipecat rules: decimal ints only, YAML 1.1 floats and booleans', () => {
    const file = project.write(
      'types.yaml',
      'a: 012\nb: 0x1F\nc: 1_000\nd: yes\ne: Off\nf: 1.5\ng: 1e5\nh: ~\ni: 0o17\nj: 1.5e+5\nk: .5\nl: -0\nm: .\n',
    );
    expect(loadRawDocument(file)).toEqual({
      a: '012',
      b: '0x1F',
      c: 1000,
      d: true,
      e: false,
      f: 1.5,
      g: '1e5',
      h: null,
      i: '0o17',
      j: 150000,
      k: 0.5,
      l: 0,
      m: '.',
    });
  });

  it('a duplicate key is a warning and the later value wins, as in PyYAML', () => {
    const r = inspect(project, 'name: first\nname: second\nturns: []\n');
    expect((loadedOf(r) as Scenario).name).toBe('second');
    expect(warningsOf(r).find((w) => w.message.includes('duplicate key'))).toMatchObject({ line: 2, col: 1 });
  });

  it('the name:/args: shorthand and a bare function_call become calls; calls: on other events is ignored with a warning', () => {
    const s = script(
      'name: d\nturns:\n  - expect:\n      - event: function_call\n        name: f\n        args: {x: 1}\n      - event: function_call\n      - event: llm_response\n        calls: [f]\n',
    );
    expect(s.turns[0].expect[0].calls).toEqual([{ name: 'f', args: { x: 1 } }]);
    expect(s.turns[0].expect[1].calls).toEqual([{}]);
    expect(s.turns[0].expect[2].calls).toBeUndefined();
    expect(s.warnings.filter((w) => !w.code).map((w) => w.path)).toEqual(['turns[0].expect[2].calls']);
  });

  it('calls: must be a non-empty list of names or {name, args}', () => {
    expect(
      errorsOf(inspect(project, 'name: d\nturns:\n  - expect:\n      - event: function_call\n        calls: []\n'))[0]
        .message,
    ).toBe('expected a non-empty list, got an empty list');
    expect(
      errorsOf(inspect(project, 'name: d\nturns:\n  - expect:\n      - event: function_call\n        calls: [3]\n'))[0]
        .path,
    ).toBe('turns[0].expect[0].calls[0]');
  });

  it('the latency block takes known metrics with min/max in ms', () => {
    const ok = script(
      'name: d\njudge: {modality: audio, transcription: {service: sphinx}}\nturns:\n  - user: hi\n    latency: {voice_to_voice_ms: {max: 1200}, llm_ttfb_ms: {min: 0, max: 900}}\n',
    );
    expect(ok.turns[0].latency).toEqual({ voice_to_voice_ms: { max: 1200 }, llm_ttfb_ms: { min: 0, max: 900 } });
    const bad = inspect(
      project,
      'name: d\nturns:\n  - user: hi\n    latency:\n      voice_to_voice: {max: 1}\n      llm_ttfb_ms: {min: 5, max: 1}\n      first_token_ms: {}\n',
    );
    expect(warningsOf(bad).map((w) => w.message)).toContain(
      "unknown key 'voice_to_voice'; did you mean 'voice_to_voice_ms'?",
    );
    expect(errorsOf(bad).map((e) => [e.path, e.message])).toEqual([
      ['turns[0].latency.llm_ttfb_ms', 'min (5) is above max (1)'],
      ['turns[0].latency.first_token_ms', 'expected at least 1 of: min, max'],
    ]);
  });

  it('factory: marks the scenario as needing code and passes extra keys through; a dotted name is a Python path', () => {
    const r = inspect(
      project,
      'name: d\nuser:\n  modality: audio\n  speech:\n    factory: ./tts.js#makeTts\n    voice: luna\n    style: calm\njudge:\n  modality: audio\n  transcription: {factory: my_evals.services.make_stt}\nturns:\n  - user: hi\n',
    );
    const s = loadedOf(r) as Scenario;
    expect(s.requires_code).toBe(true);
    expect(s.user.speech).toEqual({ factory: './tts.js#makeTts', voice: 'luna', style: 'calm' });
    const at = (line: number, col: number) => ({ file: project.path('scenario.yaml'), line, col });
    expect(s.code_hooks).toEqual([
      {
        block: 'user.speech',
        factory: './tts.js#makeTts',
        runtime: 'node',
        module: project.path('tts.js'),
        export: 'makeTts',
        location: at(5, 14),
      },
      {
        block: 'judge.transcription',
        factory: 'my_evals.services.make_stt',
        runtime: 'python',
        module: 'my_evals.services',
        export: 'make_stt',
        location: at(10, 28),
      },
    ]);
    expect(warningsOf(r)).toEqual([]);
  });

  it('extra keys in a service block without a factory are warned about', () => {
    const r = inspect(
      project,
      'name: d\nuser:\n  modality: audio\n  speech: {service: flite, voise: slt}\nturns: []\n',
    );
    expect(warningsOf(r)[0].message).toBe(
      "unknown key 'voise' (extra keys are passed only to a factory:); did you mean 'voice'?",
    );
  });

  it('name and turns are required; turns must be a list; context must be a list', () => {
    expect(errorsOf(inspect(project, 'turns: []\n'))[0].message).toBe(
      "missing required key 'name' (a non-empty string)",
    );
    expect(errorsOf(inspect(project, 'name: d\nturns: {}\n'))[0]).toMatchObject({
      path: 'turns',
      message: 'expected a list, got a mapping',
    });
    expect(errorsOf(inspect(project, 'name: d\nturns:\n'))[0]).toMatchObject({
      path: 'turns',
      line: 2,
      message: 'expected a list, got nothing',
    });
    expect(errorsOf(inspect(project, 'name: d\ncontext: hello\nturns: []\n'))[0].path).toBe('context');
  });

  it('a file with both turns: and persona: is an error', () => {
    const errors = errorsOf(inspect(project, 'name: d\nturns: []\npersona: x\n'));
    expect(errors[0]).toMatchObject({ line: 3, col: 1 });
    expect(errors[0].message).toContain("scripted ('turns:') or a simulation ('persona:'), not both");
  });
});
