import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  judgeRules,
  readJudgePrompt,
  sequence,
  startLlmServer,
  verdictContent,
  type LlmServer,
} from '../../test/support/llm-server.js';
import { ConversationLog } from './conversation.js';
import { JudgeError } from './errors.js';
import { createJudge, EXPLAINER_FAILED, JUDGE_ASKS, type CreateJudgeOptions } from './judge.js';
import { JUDGE_CALL_SYSTEM_PROMPT, JUDGE_FINAL_SYSTEM_PROMPT, JUDGE_SYSTEM_PROMPT } from './prompt.js';
import { resolveJudgeService } from './services.js';
import type { JudgeClassifier, Verdict } from './types.js';

/**
 * The newest `judge.eval` block (Pipecat's judge.py): `allow_continue`, the
 * `explainer` and `explain_below`, one retry of a failed question, judging a
 * function call, a classifier built by a factory, and `--judge`.
 */
let server: LlmServer;
let explainerServer: LlmServer;
let cacheDir: string;
beforeEach(async () => {
  server = await startLlmServer();
  explainerServer = await startLlmServer();
  cacheDir = await mkdtemp(join(tmpdir(), 'earshot-judge-blocks-'));
});
afterEach(async () => {
  await Promise.all([server.close(), explainerServer.close()]);
  await rm(cacheDir, { recursive: true, force: true });
});

function judgeWith(options: Partial<CreateJudgeOptions> = {}) {
  return createJudge({
    config: { service: 'openai', endpoint: server.url, model: 'judge-model' },
    env: {},
    noCache: true,
    retryBaseDelayMs: 1,
    ...options,
  });
}
const explainer = () =>
  resolveJudgeService({ service: 'openai', endpoint: explainerServer.url, model: 'explainer-model' }, {});
function conversation(question: string, ...segments: string[]) {
  const log = new ConversationLog();
  log.user(question);
  for (const s of segments) log.botText(s);
  return log.snapshot();
}
const verdict = (v: Verdict | JudgeError): Verdict => {
  if (v instanceof JudgeError) throw v;
  return v;
};

describe('judge.eval blocks', () => {
  it('allow_continue: false asks for yes or no only, and a continue answer counts as no', async () => {
    server.respond(() => verdictContent('continue', 'still checking'));
    const v = verdict(
      await judgeWith({ allowContinue: false }).evaluate({
        criterion: 'says Berlin',
        conversation: conversation('Capital?', 'Let me check.'),
      }),
    );
    expect(v).toMatchObject({ verdict: 'no', reason: 'still checking' });
    const system = server.requests[0].body.messages[0].content as string;
    expect(system).toBe(JUDGE_FINAL_SYSTEM_PROMPT);
    expect(system).not.toContain('continue');
    expect(JUDGE_SYSTEM_PROMPT).toContain('"continue"');
    expect(readJudgePrompt(server.requests[0])?.prompt).toContain('Answer yes or no');
  });

  it('a failed judge question is asked once more, then the judge reports the error', async () => {
    expect(JUDGE_ASKS).toBe(2);
    server.respond(sequence('I cannot tell', verdictContent('yes', 'names Berlin')));
    expect(
      verdict(
        await judgeWith().evaluate({ criterion: 'says Berlin', conversation: conversation('Capital?', 'Berlin.') }),
      ),
    ).toMatchObject({ verdict: 'yes' });
    expect(server.requests).toHaveLength(2);
    server.respond(() => 'I still cannot tell');
    const failed = await judgeWith().evaluate({
      criterion: 'says Paris',
      conversation: conversation('Capital?', 'Berlin.'),
    });
    expect(failed).toBeInstanceOf(JudgeError);
    expect(server.requests).toHaveLength(4);
  });

  it('explainer: a no is explained by the explainer LLM; agreeing, its reason leads; the verdict never changes', async () => {
    server.respond(() => verdictContent('no', 'judge says Madrid'));
    explainerServer.respond(() => verdictContent('no', 'the reply names Madrid, not Berlin'));
    const v = verdict(
      await judgeWith({ explainer: explainer() }).evaluate({
        criterion: 'says Berlin',
        conversation: conversation('Capital?', 'Madrid.'),
      }),
    );
    expect(v).toMatchObject({ verdict: 'no', reason: 'the reply names Madrid, not Berlin (judge says Madrid)' });
    explainerServer.respond(() => verdictContent('yes', 'close enough'));
    const disagreed = verdict(
      await judgeWith({ explainer: explainer() }).evaluate({
        criterion: 'says Paris',
        conversation: conversation('Capital?', 'Madrid.'),
      }),
    );
    expect(disagreed).toMatchObject({
      verdict: 'no',
      reason: 'judge says Madrid; the explainer judged yes: close enough',
    });
    // A yes and a continue are not explained (an LLM verdict carries no confidence to be unsure of).
    server.respond(() => verdictContent('yes', 'fine'));
    const before = explainerServer.requests.length;
    await judgeWith({ explainer: explainer(), explainBelow: 5 }).evaluate({
      criterion: 'says Rome',
      conversation: conversation('Capital?', 'Rome.'),
    });
    expect(explainerServer.requests.length).toBe(before);
  });

  it('explainer: a failed explainer call leaves the verdict with "explainer call failed"', async () => {
    server.respond(() => verdictContent('no', 'judge says Madrid'));
    explainerServer.respond(() => ({ status: 400, body: { error: { message: 'bad' } } }));
    const v = verdict(
      await judgeWith({ explainer: explainer() }).evaluate({
        criterion: 'says Berlin',
        conversation: conversation('Capital?', 'Madrid.'),
      }),
    );
    expect(v).toMatchObject({ verdict: 'no', reason: `judge says Madrid; ${EXPLAINER_FAILED}` });
  });

  it('explain_below: a classifier verdict less sure than it is explained; a sure yes is not', async () => {
    const answers = [
      { verdict: 'yes' as const, confidence: 0.6 },
      { verdict: 'yes' as const, confidence: 0.95 },
    ];
    const classifier: JudgeClassifier = { classify: async () => answers.shift()! };
    explainerServer.respond(() => verdictContent('yes', 'it names Berlin'));
    const j = createJudge({
      classifier,
      explainer: explainer(),
      explainBelow: 0.75,
      env: {},
      noCache: true,
      config: { factory: './judge.js' },
    });
    const unsure = verdict(
      await j.evaluate({ criterion: 'says Berlin', conversation: conversation('Capital?', 'Berlin.') }),
    );
    expect(unsure).toMatchObject({ verdict: 'yes', confidence: 0.6, reason: 'it names Berlin (P(yes)=0.60)' });
    const sure = verdict(
      await j.evaluate({ criterion: 'says Berlin!', conversation: conversation('Capital?', 'Berlin.') }),
    );
    expect(sure).toMatchObject({ verdict: 'yes', reason: 'P(yes)=0.95' });
    expect(explainerServer.requests).toHaveLength(1);
    expect(j.description).toBe('classifier (factory), explained by openai/explainer-model');
  });

  it('a function call is judged by name and arguments, yes or no, with the conversation as context', async () => {
    server.respond(
      judgeRules([
        { when: ({ call }) => call?.includes('"Jennifer Smith"') === true, verdict: 'yes', reason: 'for Jennifer' },
      ]),
    );
    const j = judgeWith();
    const yes = verdict(
      await j.evaluate({
        criterion: 'submitted for Jennifer Smith',
        conversation: conversation('Book it', 'Done.'),
        call: { name: 'submit', args: { who: 'Jennifer Smith' } },
      }),
    );
    expect(yes).toMatchObject({ verdict: 'yes' });
    expect(server.requests[0].body.messages[0].content).toBe(JUDGE_CALL_SYSTEM_PROMPT);
    expect(readJudgePrompt(server.requests[0])?.call).toBe('"submit" with arguments {"who":"Jennifer Smith"}');
    server.respond(() => verdictContent('continue', 'hmm'));
    const no = verdict(
      await j.evaluate({
        criterion: 'submitted for Bob',
        conversation: conversation('Book it'),
        call: { name: 'submit', args: {} },
      }),
    );
    expect(no.verdict).toBe('no');
  });
});
