import { afterEach, describe, expect, it } from 'vitest';
import { splitAtPause } from './probes.js';
import { errorsOf, inspect, loadedOf, TempProject } from './scenario.testutil.js';
import type { Scenario } from './types.js';

let project: TempProject;
afterEach(() => project?.cleanup());

const head =
  'name: p\nuser: { modality: audio, speech: { service: flite } }\njudge: { modality: audio, transcription: { service: sphinx } }\nturns:\n';

describe('pause_ms, pause_after, takeover', () => {
  it('places the pause after the middle word, or after pause_after', () => {
    project = new TempProject();
    const s = loadedOf(
      inspect(
        project,
        `${head}  - user: I would like a table for two\n    pause_ms: 1200\n    takeover: false\n  - user: What is the capital of France?\n    pause_ms: 800\n    pause_after: What is the\n`,
      ),
    ) as Scenario;
    expect(s.turns[0].pause).toEqual({ ms: 1200, after: 'I would like a' });
    expect(s.turns[0].takeover).toBe(false);
    expect(s.turns[1].pause).toEqual({ ms: 800, after: 'What is the' });
    expect(splitAtPause('What is the capital of France?', 'What is the')).toEqual([
      'What is the',
      'capital of France?',
    ]);
  });

  it('locates what cannot be applied', () => {
    project = new TempProject();
    const r = inspect(
      project,
      `${head}  - user: hello there\n    pause_ms: 500\n    pause_after: there\n  - user: hello\n    pause_ms: 500\n  - user: hi there\n    takeover: false\n  - dtmf: "1"\n    pause_ms: 300\n`,
    );
    expect(errorsOf(r).map((d) => `${d.line}: ${d.path}`)).toEqual([
      '7: turns[0].pause_after',
      '9: turns[1].pause_ms',
      '11: turns[2].takeover',
      '13: turns[3].pause_ms',
    ]);
    expect(errorsOf(r)[0].message).toMatch(/not how 'user:' begins/);
  });

  it('refuses a takeover assertion without bot audio, and a pause in typed turns', () => {
    project = new TempProject();
    const typedJudge =
      'name: p\nuser: { modality: audio, speech: { service: flite } }\nturns:\n  - user: hi there you\n    pause_ms: 300\n    takeover: false\n';
    expect(errorsOf(inspect(project, typedJudge)).map((d) => d.message)).toEqual([
      expect.stringMatching(/judge.modality: audio/),
    ]);
    const typed = 'name: p\nturns:\n  - user: hi there you\n    pause_ms: 300\n';
    expect(errorsOf(inspect(project, typed, {}, 't.yaml')).map((d) => d.message)).toEqual([
      expect.stringMatching(/user.modality: audio/),
    ]);
  });
});

describe('backchannel, yielded', () => {
  it('reads the murmur and its assertion, with defaults', () => {
    project = new TempProject();
    const s = loadedOf(
      inspect(
        project,
        `${head}  - user: Tell me a story\n    backchannel: { after_ms: 800 }\n    yielded: false\n  - user: go on\n    backchannel: { text: mm-hmm }\n`,
      ),
    ) as Scenario;
    expect(s.turns[0].backchannel).toEqual({ text: 'right', after_ms: 800 });
    expect(s.turns[0].yielded).toBe(false);
    expect(s.turns[1].backchannel).toEqual({ text: 'mm-hmm', after_ms: 1000 });
  });

  it('locates a backchannel without bot audio, and yielded without a backchannel', () => {
    project = new TempProject();
    const typedJudge =
      'name: p\nuser: { modality: audio, speech: { service: flite } }\nturns:\n  - user: Tell me a story\n    backchannel: { text: right }\n  - user: hi\n    yielded: false\n';
    const errors = errorsOf(inspect(project, typedJudge));
    expect(errors.map((d) => `${d.line}: ${d.path}`)).toEqual(['5: turns[0].backchannel', '7: turns[1].yielded']);
    expect(errors[0].message).toMatch(/judge.modality: audio/);
  });
});
