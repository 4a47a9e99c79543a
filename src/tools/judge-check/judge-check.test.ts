import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  judgeRules,
  readJudgePrompt,
  startLlmServer,
  verdictContent,
  type LlmServer,
} from '../../../test/support/llm-server.js';
import { runJudgeCheck, summarizeCheck, type CaseOutcome } from './check.js';
import { LabelsFileError, loadLabels } from './labels.js';
import { renderJudgeCheck } from './render.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-judge-check-'));
let n = 0;
function labelsFile(text: string): string {
  const file = join(dir, `labels-${n++}.yaml`);
  writeFileSync(file, text);
  return file;
}

const THREE = `cases:
  - id: capital
    category: facts
    criterion: "the bot says the capital of Germany is Berlin"
    conversation:
      - user: "What is the capital of Germany?"
        bot: "Berlin."
    expected: "yes"
    why: "right"
  - id: capital-wrong
    category: facts
    criterion: "the bot says the capital of Germany is Berlin"
    conversation:
      - user: "What is the capital of Germany?"
        bot: "Munich."
    expected: "no"
    why: "wrong"
  - id: checking
    category: interim
    modality: audio
    criterion: "the bot gives the weather"
    conversation:
      - bot: "Hello."
      - user: "What's the weather?"
        bot:
          - "let me check"
          - { call: get_weather, args: { city: Paris } }
    expected: continue
    why: "interim"
`;

describe('loadLabels', () => {
  it('reads cases into the judge’s conversation shape', () => {
    const set = loadLabels(labelsFile(THREE));
    expect(set.cases.map((c) => [c.id, c.category, c.expected, c.conversation.modality])).toEqual([
      ['capital', 'facts', 'yes', 'text'],
      ['capital-wrong', 'facts', 'no', 'text'],
      ['checking', 'interim', 'continue', 'audio'],
    ]);
    expect(set.cases[2].conversation.exchanges).toEqual([
      { reply: [{ kind: 'segment', text: 'Hello.' }] },
      {
        user: { kind: 'text', text: "What's the weather?" },
        reply: [
          { kind: 'segment', text: 'let me check' },
          { kind: 'function_call', name: 'get_weather', args: { city: 'Paris' } },
        ],
      },
    ]);
    expect(set.judge).toBeUndefined();
  });

  it('reports every problem at its file:line:col, with a suggestion for a misspelt key', () => {
    const file = labelsFile(`judge:
  modality: audio
cases:
  - id: a
    category: x
    criterion: "c"
    conversation:
      - user: "hi"
        dtmf: "12"
    expected: maybe
    why: "w"
  - id: a
    categry: x
    criterion: ""
    conversation: []
    expected: "yes"
    why: "w"
`);
    let error: unknown;
    try {
      loadLabels(file);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(LabelsFileError);
    const lines = (error as LabelsFileError).message
      .split('\n')
      .slice(1)
      .map((l) => l.replace(/^.*labels-\d+\.yaml:/, ''));
    expect(lines).toEqual([
      "2:3: error: judge.modality: unknown key; only judge.eval is read here: the modality is each case's",
      '2:3: error: judge: needs an eval: block (service, model, endpoint, extra)',
      '10:15: error: cases[0].expected: must be yes, no or continue, got "maybe"',
      '9:15: error: cases[0].conversation[0].dtmf: an exchange opens with user: or dtmf:, not both',
      '13:5: error: cases[1].categry: unknown key; did you mean category?',
      '12:5: error: cases[1].category: missing',
      '14:16: error: cases[1].criterion: must be non-empty text, got ""',
      '15:19: error: cases[1].conversation: must be a non-empty list of exchanges (user:/dtmf: and bot:)',
    ]);
    expect((error as LabelsFileError).exitCode).toBe(2);
  });

  it('refuses duplicate ids and keys that are not keypad keys', () => {
    const file = labelsFile(THREE.replace('id: capital-wrong', 'id: capital').replace('bot: "Hello."', 'dtmf: "12a"'));
    expect(() => loadLabels(file)).toThrow(/cases\[1\]\.id: duplicate id "capital" \(first at line 2\)/);
    expect(() => loadLabels(file)).toThrow(
      /cases\[2\]\.conversation\[0\]\.dtmf: must be keypad keys \(0-9 \* #\), got "12a"/,
    );
  });
});

describe('runJudgeCheck against a real OpenAI-compatible server', () => {
  let server: LlmServer;
  beforeEach(async () => {
    server = await startLlmServer();
  });
  afterEach(async () => {
    await server.close();
  });

  it('asks the judge about every case and counts agreement, the matrix and the disagreements', async () => {
    // A judge that falls for nothing and knows only Berlin: the Munich case it gets right, the interim one wrong.
    server.respond(
      judgeRules([{ when: ({ reply }) => /berlin/i.test(reply), verdict: 'yes', reason: 'names Berlin' }], {
        verdict: 'no',
        reason: 'no Berlin',
      }),
    );
    const report = await runJudgeCheck({
      labels: labelsFile(THREE),
      judge: { service: 'openai', model: 'stand-in', endpoint: server.url },
      env: {},
    });
    expect(server.requests).toHaveLength(3);
    expect(report).toMatchObject({ cases: 3, agreed: 2, errors: 0, judge: `openai/stand-in @ ${server.url}` });
    expect(report.matrix).toEqual({
      yes: { yes: 1, no: 0, continue: 0, error: 0 },
      no: { yes: 0, no: 1, continue: 0, error: 0 },
      continue: { yes: 0, no: 1, continue: 0, error: 0 },
    });
    expect(report.categories.map((c) => [c.category, c.cases, c.agreed])).toEqual([
      ['facts', 2, 2],
      ['interim', 1, 0],
    ]);
    expect(report.disagreements.map((d) => [d.id, d.expected, d.got, d.reason, d.line])).toEqual([
      ['checking', 'continue', 'no', 'no Berlin', 18],
    ]);
    // The judge saw the audio note and the call, rendered by the real prompt.
    const interim = server.requests.map(readJudgePrompt).find((v) => v!.reply === 'let me check')!;
    expect(interim.prompt).toContain('speech-to-text transcriptions');
    expect(interim.replyLines).toContain('bot called function: "get_weather" with arguments {"city":"Paris"}');
  });

  it('asks again on every run (no verdict cache) unless a cache folder is given', async () => {
    server.respond(() => verdictContent('yes'));
    const file = labelsFile(THREE);
    const judge = { service: 'openai', model: 'stand-in', endpoint: server.url };
    await runJudgeCheck({ labels: file, judge, env: {} });
    await runJudgeCheck({ labels: file, judge, env: {} });
    expect(server.requests).toHaveLength(6);
    const cacheDir = mkdtempSync(join(tmpdir(), 'earshot-judge-check-cache-'));
    await runJudgeCheck({ labels: file, judge, env: {}, cacheDir });
    const cached = await runJudgeCheck({ labels: file, judge, env: {}, cacheDir });
    expect(server.requests).toHaveLength(9);
    expect(cached.outcomes.every((o) => o.cached)).toBe(true);
  });

  it('counts a judge that cannot answer as an error, not as a verdict', async () => {
    server.respond((req) => (readJudgePrompt(req)!.reply === 'Munich.' ? { status: 400 } : verdictContent('yes')));
    const report = await runJudgeCheck({
      labels: labelsFile(THREE),
      judge: { service: 'openai', model: 'm', endpoint: server.url },
      env: {},
    });
    expect(report.errors).toBe(1);
    expect(report.matrix.no).toEqual({ yes: 0, no: 0, continue: 0, error: 1 });
    expect(report.disagreements.find((d) => d.id === 'capital-wrong')!.reason).toMatch(/HTTP 400/);
  });

  it('uses the file’s judge block, and points at it when it is wrong', async () => {
    server.respond(() => verdictContent('no'));
    const withJudge = (block: string): string => labelsFile(`judge:\n  eval:\n${block}\n${THREE}`);
    const report = await runJudgeCheck({
      labels: withJudge(`    service: openai\n    model: from-file\n    endpoint: ${server.url}`),
      env: {},
    });
    expect(report.judge).toBe(`openai/from-file @ ${server.url}`);
    await expect(runJudgeCheck({ labels: withJudge('    service: nope'), env: {} })).rejects.toThrow(
      /labels-\d+\.yaml:3:14: error: judge\.eval\.service: unknown judge service "nope"/,
    );
  });
});

describe('the report', () => {
  const outcome = (
    id: string,
    category: string,
    expected: CaseOutcome['expected'],
    got: CaseOutcome['got'],
    reason = 'r',
  ): CaseOutcome => ({
    id,
    category,
    expected,
    got,
    reason,
    why: 'w',
    line: 1,
    cached: false,
    elapsed_ms: 5,
  });

  it('prints agreement with its interval and kappa, per category, the matrix and the disagreements', () => {
    const report = summarizeCheck('labels.yaml', 'openai/m @ http://x/v1', [
      outcome('a', 'asr', 'yes', 'yes'),
      outcome('b', 'asr', 'yes', 'no', 'says agrees, not degrees'),
      outcome('c', 'interim', 'continue', 'continue'),
      outcome('d', 'wrong', 'no', 'no'),
      outcome('e', 'wrong', 'no', 'error', 'judge openai/m: HTTP 500'),
    ]);
    expect(renderJudgeCheck(report)).toBe(
      [
        'judge check: labels.yaml: 5 cases, judge openai/m @ http://x/v1',
        // kappa: p_o = 3/5; p_e = (2/5)(1/5) + (2/5)(2/5) + (1/5)(1/5) = 0.28; (0.6 − 0.28) / 0.72 = 0.444.
        "agreement: 3/5 = 60.0% (95% CI 23.1%–88.2%), Cohen's kappa 0.444, 1 judge error",
        '',
        'category  cases  agreed  agreement',
        'asr           2       1      50.0%',
        'interim       1       1     100.0%',
        'wrong         2       1      50.0%',
        '',
        'confusion matrix (rows: expected, columns: the judge):',
        'expected         yes        no  continue     error',
        'yes                1         1         0         0',
        'no                 0         1         0         1',
        'continue           0         0         1         0',
        '',
        'disagreements (2):',
        '  b  expected yes      got no       says agrees, not degrees',
        '  e  expected no       got error    judge openai/m: HTTP 500',
        '',
      ].join('\n'),
    );
  });
});
