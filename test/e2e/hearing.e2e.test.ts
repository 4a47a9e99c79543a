import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeWav } from '../../src/audio/index.js';
import { inconclusiveOf, type ScenarioResult } from '../../src/results/index.js';
import { SPHINX_DEFAULT_MODEL_DIR } from '../../src/speech/stt/sphinx-config.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { earshot, readResults, type CliRun } from '../suite/cli.testutil.js';

/**
 * Inconclusive, not failed — end to end, offline: the built CLI against the
 * reference bot (a subprocess), its replies spoken by Flite in real time and
 * transcribed by PocketSphinx. The doubt is real too: a second PocketSphinx
 * whose dictionary holds 16 words (it hears "the capital of France is Paris"
 * as something else), and one whose dictionary holds one word it never hears
 * (it returns nothing over two seconds of speech). Both read the real en-us
 * acoustic model and language model; only the dictionary differs.
 *
 * Then the word error rates both ways (user_wer, bot_wer) on a spoken and a
 * typed conversation, with their `wer:` bounds.
 */
const made: string[] = [];
const tmp = (name: string): string => {
  const dir = mkdtempSync(join(tmpdir(), `earshot-hearing-${name}-`));
  made.push(dir);
  return dir;
};
const project = tmp('project');
const out = { hearing: tmp('out'), wer: tmp('wer') };
const runs: { hearing?: CliRun; wer?: CliRun } = {};
let bot: RefbotProcess | undefined;

/** A model folder with the real acoustic and language models and a dictionary of only these words. */
function sphinxWithWords(name: string, words: string[]): string {
  const dir = join(project, 'models', name);
  mkdirSync(dir, { recursive: true });
  symlinkSync(join(SPHINX_DEFAULT_MODEL_DIR, 'en-us'), join(dir, 'en-us'));
  symlinkSync(join(SPHINX_DEFAULT_MODEL_DIR, 'en-us.lm.bin'), join(dir, 'en-us.lm.bin'));
  const dict = readFileSync(join(SPHINX_DEFAULT_MODEL_DIR, 'cmudict-en-us.dict'), 'utf8')
    .split('\n')
    .filter((l) => words.includes(l.split(' ')[0]));
  writeFileSync(join(dir, 'cmudict-en-us.dict'), `${dict.join('\n')}\n`);
  return dir;
}

const greeting = `  - expect:\n      - event: bot_stopped_speaking\n        within_ms: 15000\n`;
const typedAudioReply = (transcription: string): string =>
  `user: { modality: text }\njudge:\n  modality: audio\n  transcription: ${transcription}\n`;

beforeAll(async () => {
  writeFileSync(join(project, 'package.json'), '{}\n');
  sphinxWithWords('deaf', ['zygote']);
  sphinxWithWords('limited', [
    'the',
    'of',
    'is',
    'a',
    'and',
    'hello',
    'yes',
    'no',
    'one',
    'two',
    'three',
    'okay',
    'sorry',
    'capital',
    'it',
    'in',
  ]);
  const files: Record<string, string> = {
    'hearing/empty.yaml':
      `name: empty\n${typedAudioReply('{ service: sphinx, model_dir: ../models/deaf }')}turns:\n${greeting}` +
      `  - user: "What is the capital of France?"\n    expect:\n      - event: response\n        text_contains: paris\n        within_ms: 12000\n`,
    'hearing/disagree.yaml':
      `name: disagree\n${typedAudioReply('[{ service: sphinx }, { service: sphinx, model_dir: ../models/limited }]')}turns:\n${greeting}` +
      `  - user: "What is the capital of France?"\n    expect:\n      - event: response\n        text_contains: paris\n        within_ms: 12000\n`,
    'hearing/agree.yaml':
      `name: agree\n${typedAudioReply('[{ service: sphinx }, { service: sphinx, model_dir: ../models/limited }]')}turns:\n` +
      `  - expect:\n      - event: response\n        text_contains: hello\n        within_ms: 15000\n`,
    'wer/agree_fails.yaml':
      `name: agree_fails\n${typedAudioReply('[{ service: sphinx }, { service: sphinx, model_dir: ../models/limited }]')}turns:\n` +
      `  - expect:\n      - event: response\n        text_contains: goodbye\n        within_ms: 8000\n`,
    'wer/spoken.yaml':
      'name: spoken\nuser: { modality: audio, speech: { service: flite, voice: slt } }\njudge: { modality: audio, transcription: { service: sphinx } }\nscenarios:\n' +
      '  - name: within\n    turns:\n' +
      `${greeting.replace(/^/gm, '    ').trimEnd()}\n` +
      '      - user: "What is the capital of France?"\n        expect:\n          - event: response\n            text_contains: paris\n            expected_text: The capital of France is Paris.\n' +
      '        wer: { user_wer: { max: 0.5 }, bot_wer: { max: 0.34 } }\n' +
      '  - name: beyond\n    turns:\n' +
      `${greeting.replace(/^/gm, '    ').trimEnd()}\n` +
      '      - user: "What is the capital of France?"\n        expected_text: The capital of Germany is Berlin.\n        expect:\n          - event: response\n            text_contains: paris\n' +
      '        wer: { bot_wer: { max: 0.2 } }\n',
    'wer/typed.yaml':
      'name: typed\nscenarios:\n  - name: text\n    stop_on_failure: false\n    turns:\n      - expect: [{ event: llm_response }]\n' +
      '      - user: "What is the capital of France?"\n        expected_text: The capital of France is Paris.\n        expect:\n          - event: response\n            number: { value: 1, tolerance_pct: 0 }\n            within_ms: 3000\n' +
      '      - user: "What is the capital of France?"\n        expect:\n          - event: response\n            text_matches: "(?i)^the capital of france is paris\\\\.?$"\n            expected_text: The capital of France is Paris.\n' +
      '        wer: { user_wer: { max: 0.5 }, bot_wer: { max: 0 } }\n',
  };
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(project, name, '..'), { recursive: true });
    writeFileSync(join(project, name), text);
  }
  bot = await startRefbotProcess(['--brain', 'test/e2e/audio-brain.yaml']);
  runs.hearing = await earshot([
    'run',
    join(project, 'hearing'),
    '--url',
    bot.url,
    '--out',
    out.hearing,
    '--reporter',
    'dot,junit',
  ]).done;
  runs.wer = await earshot([
    'run',
    join(project, 'wer'),
    '--url',
    bot.url,
    '--out',
    out.wer,
    '--reporter',
    'dot',
    '--stt-disagreement',
    '0.3',
  ]).done;
}, 240_000);

afterAll(async () => {
  await bot?.stop();
  if (!process.env.EARSHOT_KEEP_TEST_OUTPUT) for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

const byName = (dir: string): Record<string, ScenarioResult> =>
  Object.fromEntries(readResults(dir).map((r) => [r.name, r]));

describe('inconclusive, not failed: a real recognizer that mishears a real bot', () => {
  it('exits 3 when nothing failed but something was inconclusive, and says so', () => {
    const r = runs.hearing!;
    expect(r.code, r.stdout + r.stderr).toBe(3);
    expect(r.stdout).toContain('1 passed, 0 failed, 2 inconclusive, 0 errored, 0 skipped');
    const summary = JSON.parse(readFileSync(join(out.hearing, 'summary.json'), 'utf8')) as {
      ok: boolean;
      counts: Record<string, number>;
      pass_rate: number;
    };
    expect(summary).toMatchObject({ ok: true, counts: { passed: 1, inconclusive: 2, failed: 0 }, pass_rate: 1 });
    expect(
      readFileSync(join(out.hearing, 'junit.xml'), 'utf8').match(/<skipped message="inconclusive: /g),
    ).toHaveLength(2);
  });

  it('an expectation over speech that the transcriber returns empty: inconclusive, with the span, the VAD speech and a WAV of it', () => {
    const r = byName(out.hearing).empty;
    expect(r.status, JSON.stringify(r.turns)).toBe('inconclusive');
    expect(r.failures).toEqual([]);
    expect(r.turns.map((t) => t.status)).toEqual(['passed', 'inconclusive']);
    const [doubt] = inconclusiveOf(r);
    expect(doubt.kinds).toEqual(['empty_transcript']);
    const seg = doubt.segments[0];
    expect(seg).toMatchObject({ doubt: 'empty_transcript', transcript: '', transcribers: ['sphinx:en-us'] });
    expect(seg.speech_ms).toBeGreaterThan(1000);
    // The span lies in the recording, where the bot channel holds the reply.
    const wav = decodeWav(readFileSync(join(out.hearing, r.artifacts!.recording!)), 'recording');
    const durationMs = (wav.channels[0].length * 1000) / wav.sampleRate;
    expect(seg.start_ms).toBeGreaterThan(0);
    expect(seg.end_ms - seg.start_ms).toBeGreaterThan(1000);
    expect(seg.end_ms).toBeLessThanOrEqual(durationMs + 1);
    const snippet = decodeWav(readFileSync(join(out.hearing, seg.snippet!)), 'snippet');
    expect(
      Math.abs((snippet.channels[0].length * 1000) / snippet.sampleRate - (seg.end_ms - seg.start_ms)),
    ).toBeLessThan(250);
    // The same reply, read by the default dictionary, says what the bot said: it was the transcriber, not the bot.
    expect(byName(out.hearing).disagree.turns[1].expectations[0].text).toContain('paris');
  });

  it('two transcribers that disagree: inconclusive, with both transcripts and their word error rate', () => {
    const r = byName(out.hearing).disagree;
    expect(r.status).toBe('inconclusive');
    const [doubt] = inconclusiveOf(r);
    const seg = doubt.segments[0];
    expect(seg.doubt).toBe('transcribers_disagree');
    expect(seg.transcript).toContain('capital of france is paris');
    expect(seg.check_transcript).toBeDefined();
    expect(seg.check_transcript).not.toContain('paris');
    expect(seg.wer).toBeGreaterThan(0.3);
    expect(seg.max_wer).toBe(0.3);
    expect(existsSync(join(out.hearing, seg.snippet!))).toBe(true);
    expect(doubt.reason).toMatch(/^the check passes on the first transcript and fails on the second/);
  });

  it('two transcribers that agree: the normal verdict, a pass or a failure', () => {
    const agree = byName(out.hearing).agree;
    expect(agree.status).toBe('passed');
    expect(agree.turns[0].expectations[0]).toMatchObject({ status: 'passed', text: 'hello' });
    const fails = byName(out.wer).agree_fails;
    expect(fails.status).toBe('failed');
    expect(fails.failures.map((f) => f.kind)).toEqual(['text_mismatch']);
    expect(inconclusiveOf(fails)).toEqual([]);
  });
});

describe('word error rates both ways, against the reference bot', () => {
  it('a failing run exits 1, whatever else was inconclusive', () => {
    expect(runs.wer!.code, runs.wer!.stdout + runs.wer!.stderr).toBe(1);
  });

  it('spoken: user_wer is the bot’s hearing of the caller, bot_wer earshot’s of the bot against expected_text', () => {
    const within = byName(out.wer)['spoken/within'];
    expect(within.status, JSON.stringify(within.failures)).toBe('passed');
    const m = within.turns[1].metrics!;
    expect(m.user_wer).toBeGreaterThanOrEqual(0);
    expect(m.user_wer).toBeLessThanOrEqual(0.5);
    expect(m.bot_wer).toBeLessThanOrEqual(0.34);
    // The bound metrics live beside the timeline's: voice-to-voice was measured on the same turn.
    expect(typeof m.voice_to_voice_ms).toBe('number');
    const beyond = byName(out.wer)['spoken/beyond'];
    expect(beyond.status).toBe('failed');
    expect(beyond.failures.map((f) => f.kind)).toEqual(['wer_exceeded']);
    expect(beyond.failures[0].reason).toMatch(/^bot_wer 0\.\d{3} exceeds max 0\.2$/);
    expect(beyond.turns[1].metrics!.bot_wer).toBeGreaterThan(0.2);
  });

  it('typed: bot_wer on the LLM text; a user_wer bound fails as not measurable (a typed turn is not transcribed)', () => {
    const r = byName(out.wer)['typed/text'];
    expect(r.turns.map((t) => t.status)).toEqual(['passed', 'failed', 'failed']);
    expect(r.failures.map((f) => [f.turn_index, f.kind])).toEqual([
      [1, 'number_mismatch'],
      [2, 'wer_exceeded'],
    ]);
    expect(r.failures[0].reason).toMatch(/holds no number 1 \(found no number\)$/);
    expect(r.failures[1].reason).toBe(
      'user_wer not measurable (bound max 0.5): the bot sent no user_transcription of this turn (a typed turn is not transcribed)',
    );
    expect(r.turns[1].metrics!.bot_wer).toBe(0);
    expect(r.turns[2].metrics).toMatchObject({ bot_wer: 0, user_wer: null });
    expect(r.turns[2].expectations[0].status).toBe('passed');
  });
});
