import { readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORECARD_WEIGHTS, type Scenario } from '../scenario/index.js';
import { ScenarioFiles } from '../session/media/scenario.testutil.js';
import { refuseDocuments, writeDocumentsFile } from './documents-file.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

async function gaia(name: string, docs: string[]): Promise<Scenario> {
  const s = await files.load('name: g\nturns:\n  - user: "hi"\n', name);
  return {
    ...s,
    gaia: {
      id: 'g',
      persona: { name: 'power_user', description: 'Precise requests', builtin: true },
      documents: docs.map((d) => ({ corpus_doc: d, path: files.path(d), written_path: `eval/${d}` })),
      turns: [{ turn: 1, objective: 'Ask', user_message: 'hi', within_ms: 60_000 }],
      simulator: { service: 'ollama' },
      scoring: { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 },
    },
  };
}

describe('the spawn way: documents in a file for the bot', () => {
  it('writes <stem>.documents.json (a DocumentsFile), or the located error of a document it cannot read', async () => {
    files.write('budget.md', 'Expenses above $50,000 need CFO approval.\n');
    const written = await writeDocumentsFile(await gaia('w.yaml', ['budget.md']), files.dir, '001-g');
    expect(written).toEqual({ file: files.path('001-g.documents.json') });
    expect(JSON.parse(readFileSync(files.path('001-g.documents.json'), 'utf8'))).toMatchObject({
      documents: [{ id: 'budget.md', filename: 'budget.md', format: 'markdown', bytes: 42 }],
    });
    const broken = await writeDocumentsFile(await gaia('x.yaml', ['gone.md']), files.dir, '002-g');
    expect(broken).toEqual({
      error: expect.stringMatching(
        /x\.yaml:\d+:\d+: error: setup\.index_documents\[0\]\.path: cannot read eval\/gone\.md/,
      ),
    });
  });

  it('refuses --documents-via spawn without a spawn: that names {documents}, before any bot starts', async () => {
    const s = await gaia('r.yaml', ['budget.md']);
    const eval_ = { codec: 'pipecat-eval', handshake: 'rtvi' } as const;
    expect(() => refuseDocuments([s], { ...eval_, documentsVia: 'spawn' }, null)).toThrow(
      /r\.yaml:\d+:\d+: error: setup\.index_documents: --documents-via spawn .*use earshot suite with \{documents\}/,
    );
    expect(() => refuseDocuments([s], { ...eval_, documentsVia: 'spawn' }, false)).toThrow(/spawn: to name/);
    expect(() => refuseDocuments([s], { ...eval_, documentsVia: 'spawn' }, true)).not.toThrow();
    expect(() => refuseDocuments([s], { ...eval_, documentsVia: undefined }, null)).not.toThrow();
    expect(() => refuseDocuments([s], { ...eval_, documentsVia: 'context' }, null)).not.toThrow();
    const pb = { codec: 'protobuf', handshake: 'rtvi', documentsVia: 'context' } as const;
    expect(() => refuseDocuments([s], pb, null)).toThrow(/--documents-via context seeds the bot's context/);
    const bare = { codec: 'protobuf', handshake: 'none', documentsVia: undefined } as const;
    expect(() => refuseDocuments([s], bare, null)).toThrow(/a bot without RTVI \(--handshake none\) cannot be sent/);
  });
});
