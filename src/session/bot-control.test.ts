import { describe, expect, it } from 'vitest';
import { DOCUMENTS_MESSAGE } from '../protocol/index.js';
import { BotControl, type BotControlDeps } from './bot-control.js';
import type { ControlReply, RequestFailure } from './requests.js';

/**
 * The documents' ack as BotControl words its failure: one message per way a request fails (requests.ts's `reason`),
 * the wire itself being requests.test.ts's. The control is built with only what `indexDocuments` reads.
 */
function control(reply: ControlReply): { control: BotControl; log: string[] } {
  const log: string[] = [];
  const deps = {
    plan: { documents: 'message' },
    signal: new AbortController().signal,
    log: (line: string) => log.push(line),
    requests: { request: async () => reply },
    documentsAckTimeoutMs: 2000,
  } as unknown as BotControlDeps;
  return { control: new BotControl(deps), log };
}

const failed = (reason: RequestFailure, error: string): ControlReply => ({ ok: false, reason, error });

describe('BotControl.indexDocuments: the ack', () => {
  it('an acknowledgement lets the run go on', async () => {
    const { control: c, log } = control({ ok: true, d: { indexed: 2 } });
    expect(await c.indexDocuments()).toBeNull();
    expect(log).toContain('documents: the bot acknowledged (indexed: 2)');
  });

  it.each([
    [
      'timeout',
      'no answer within 2000ms',
      `the bot never acknowledged the documents (no server-response '${DOCUMENTS_MESSAGE}' within 2000ms)`,
    ],
    [
      'closed',
      'the connection closed before answering',
      'the bot closed the connection before acknowledging the documents',
    ],
    ['refused', 'the bot refused it: too big', 'the bot refused the documents (the bot refused it: too big)'],
    [
      'protocol',
      "protocol error in the bot's answer: bad d",
      "the bot answered the documents with a malformed acknowledgement (protocol error in the bot's answer: bad d)",
    ],
    [
      'aborted',
      'the run ended before the bot answered',
      'the run ended before the bot acknowledged the documents (the run ended before the bot answered)',
    ],
  ] as const)('a %s failure has its own words', async (reason, error, why) => {
    const { control: c, log } = control(failed(reason, error));
    const text = await c.indexDocuments();
    expect(text).toBe(
      `${why}: a bot given documents by message must index them and answer ` +
        `{t: '${DOCUMENTS_MESSAGE}', d: {indexed: n}}; or pass --documents-via context or spawn`,
    );
    expect(log).toContain(`documents: ${why}`);
  });
});
