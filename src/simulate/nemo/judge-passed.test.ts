import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Redactor } from '../../core/redact.js';
import { resolveJudgeService } from '../../judge/index.js';
import type { SimulationEntry } from '../../results/index.js';
import { sequence, startLlmServer, type LlmServer } from '../../../test/support/llm-server.js';
import type { RunJudge } from '../transcript.js';
import {
  JUDGE_PASSED_LINES,
  JUDGE_PASSED_SYSTEM_PROMPT,
  judgePassed,
  judgePassedFrom,
  scoreOf,
} from './judge-passed.js';

let server: LlmServer;
beforeEach(async () => {
  server = await startLlmServer();
});
afterEach(() => server.close());

const judge = (): RunJudge => ({
  backend: resolveJudgeService({ service: 'openai', model: 'judge-model', endpoint: server.url }, {}),
  ctx: {
    policy: { requestTimeoutMs: 5000, maxAttempts: 1, retryBaseDelayMs: 1, retryMaxDelayMs: 1 },
    redactor: new Redactor({}),
    trace: () => undefined,
    random: () => 0.5,
  },
});
const transcript: SimulationEntry[] = [{ kind: 'bot', at_ms: 1, text: 'The capital of France is Paris.' }];

describe('JUDGE_PASSED (a 0..1 score against --judge-threshold)', () => {
  it('holds at or above the threshold and fails below it', () => {
    expect(judgePassedFrom('{"score": 0.9, "reason": "ok"}', 0.9)).toMatchObject({
      score: 0.9,
      value: { value: true },
    });
    const low = judgePassedFrom('{"score": 0.89, "reason": "missed a detail"}', 0.9);
    expect(low).toMatchObject({ score: 0.89, value: { signal: 'judge_passed', value: false } });
    expect(low.value.reason).toContain('0.89 < 0.9');
    expect(judgePassedFrom('{"score": "0.95"}', 0.9).value.value).toBe(true);
  });

  it('is null (N/A) when the judge gives no usable score', () => {
    for (const answer of ['not json', '{"score": 1.5}', '{"score": "high"}', '{"reason": "x"}']) {
      const j = judgePassedFrom(answer, 0.9);
      expect(j.score).toBeNull();
      expect(j.value.value).toBeNull();
      expect(j.value.reason).toContain('no usable score');
    }
    expect(scoreOf(-0.1)).toBeNull();
    expect(scoreOf(0)).toBe(0);
  });

  it('asks the judge once with the task and the reference answer', async () => {
    server.respond(sequence('{"score": 1, "reason": "said Paris"}'));
    const j = await judgePassed(
      judge(),
      { transcript, modality: 'text', task: 'Answer the question.', reference: 'Paris' },
      0.9,
    );
    expect(j).toMatchObject({ score: 1, value: { value: true } });
    expect(server.requests).toHaveLength(1);
    const messages = server.requests[0].body.messages;
    expect(messages[0].content).toBe(JUDGE_PASSED_SYSTEM_PROMPT);
    expect(String(messages[1].content)).toContain(`${JUDGE_PASSED_LINES.task}"Answer the question."`);
    expect(String(messages[1].content)).toContain(`${JUDGE_PASSED_LINES.reference}"Paris"`);
  });
});
