import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodecName, DOCUMENTS_MESSAGE, type DocumentPayload } from '../../../src/protocol/index.js';
import { ROOT } from '../../support/paths.js';
import { startRefbotProcess, type RefbotProcess } from '../../support/refbot-process.js';
import { Client } from '../../refbot/support.js';

/**
 * The reference bot's side of GAIA's `setup.index_documents`, on a real socket: the `earshot-index-documents`
 * client message on both codecs (indexed, acknowledged with the request's id; a bad payload refused with an
 * error-response), `--documents <file.json>` (every connection starts with them, each its own copy), and the
 * function call every answer from documents reports.
 */
const REPORT = join(ROOT, 'test', 'e2e', 'gaia', 'eval', 'corpus', 'documents', 'acme_q3_report.md');
const content = readFileSync(REPORT, 'utf8');
const PAYLOAD: DocumentPayload = {
  id: 'acme_q3_report',
  filename: 'acme_q3_report.md',
  format: 'markdown',
  path: REPORT,
  content,
  bytes: Buffer.byteLength(content),
};
const QUESTION = 'What was the third quarter revenue?';
const ANSWER = 'In Q3, the third quarter of 2025, Acme Corp had revenue of $14.2 million.';
const DONT_KNOW = "I don't know. The documents I have don't say.";

const tmp = mkdtempSync(join(tmpdir(), 'earshot-refbot-docs-'));
let evalBot: RefbotProcess;
let protobuf: RefbotProcess;
let preloaded: RefbotProcess;

beforeAll(async () => {
  const file = join(tmp, 'documents.json');
  writeFileSync(file, JSON.stringify({ documents: [PAYLOAD] }));
  [evalBot, protobuf, preloaded] = await Promise.all([
    startRefbotProcess(['--report-level', 'full']),
    startRefbotProcess(['--wire', 'protobuf', '--report-level', 'full']),
    startRefbotProcess(['--documents', file, '--report-level', 'full']),
  ]);
}, 60_000);

afterAll(async () => {
  await Promise.all([evalBot?.stop(), protobuf?.stop(), preloaded?.stop()]);
  rmSync(tmp, { recursive: true, force: true });
});

async function open(bot: RefbotProcess, codec: CodecName): Promise<Client> {
  const client = await Client.open(bot.url, {
    codec,
    ...(codec === 'pipecat-eval' ? { flags: { skipTts: true } } : {}),
  });
  await client.handshake();
  await client.waitForType('bot-llm-stopped', 5000);
  return client;
}

/** Asks a question; resolves with the reply's text and the names of the calls reported before it. */
async function ask(client: Client, text: string): Promise<{ reply: string; calls: unknown[] }> {
  const from = client.seen.length;
  client.connection.send(client.messages.sendText(text));
  const stopped = await client.waitForType('bot-llm-stopped', 5000, from);
  const calls = client.seen
    .slice(from, stopped)
    .flatMap((s) => (s.message.type === 'llm-function-call-in-progress' ? [s.message.data] : []));
  return { reply: client.replyText(from, stopped), calls };
}

describe('the reference bot indexes the documents it is sent', () => {
  for (const codec of ['pipecat-eval', 'protobuf'] as const) {
    it(`${codec}: indexes them, acknowledges with the request id and the count, and answers from them`, async () => {
      const client = await open(codec === 'protobuf' ? protobuf : evalBot, codec);
      expect((await ask(client, QUESTION)).reply).toBe('Sorry, I did not catch that. Could you say it again?');
      const from = client.seen.length;
      const request = client.messages.custom(DOCUMENTS_MESSAGE, { documents: [PAYLOAD] });
      client.connection.send(request);
      const at = await client.waitForType('server-response', 5000, from);
      expect(client.seen[at].message).toEqual({
        type: 'server-response',
        id: request.id,
        data: { t: DOCUMENTS_MESSAGE, d: { indexed: 1 } },
      });
      const answer = await ask(client, QUESTION);
      expect(answer.reply).toBe(ANSWER);
      expect(answer.calls).toEqual([
        expect.objectContaining({
          function_name: 'query_documents',
          arguments: { query: QUESTION },
        }),
      ]);
      expect((await ask(client, 'How many employees does Acme Corp have?')).reply).toBe(DONT_KNOW);
      await client.close();
    });
  }

  it('refuses a payload it cannot read with an error-response naming the field', async () => {
    const client = await open(evalBot, 'pipecat-eval');
    const from = client.seen.length;
    const request = client.messages.custom(DOCUMENTS_MESSAGE, { documents: [{ id: 'x' }] });
    client.connection.send(request);
    const at = await client.waitForType('error-response', 5000, from);
    expect(client.seen[at].message).toEqual({
      type: 'error-response',
      id: request.id,
      data: { error: `${DOCUMENTS_MESSAGE}: d.documents[0].filename: expected a non-empty string` },
    });
    await client.close();
  });

  it('--documents: each connection starts with them indexed; what one connection indexes stays its own', async () => {
    const [a, b] = await Promise.all([open(preloaded, 'pipecat-eval'), open(preloaded, 'pipecat-eval')]);
    expect((await ask(a, QUESTION)).reply).toBe(ANSWER);
    const budget = readFileSync(join(ROOT, 'test/e2e/gaia/eval/corpus/documents/budget_2025.md'), 'utf8');
    const doc = { id: 'budget_2025', filename: 'budget_2025.md', format: 'markdown', path: '-', content: budget };
    a.connection.send(a.messages.custom(DOCUMENTS_MESSAGE, { documents: [{ ...doc, bytes: budget.length }] }));
    await a.waitForType('server-response', 5000);
    expect((await ask(a, 'What documents do you have?')).reply).toBe(
      'I have 2 documents indexed: acme_q3_report.md and budget_2025.md.',
    );
    expect((await ask(b, 'What documents do you have?')).reply).toBe('I have one document indexed: acme_q3_report.md.');
    await Promise.all([a.close(), b.close()]);
  });

  it('refuses a --documents file it cannot read, naming the option', async () => {
    await expect(startRefbotProcess(['--documents', join(tmp, 'missing.json')])).rejects.toThrow(
      /documents: cannot read/,
    );
  });
});
