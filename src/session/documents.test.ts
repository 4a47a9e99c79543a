import { afterAll, describe, expect, it } from 'vitest';
import { formatDiagnostic, DEFAULT_SCORECARD_WEIGHTS, type GaiaDocumentRef, type Scenario } from '../scenario/index.js';
import { MAX_DOCUMENT_BYTES } from '../protocol/index.js';
import { ScenarioFiles } from './media/scenario.testutil.js';
import { readDocuments } from './documents.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

async function withDocuments(documents: GaiaDocumentRef[]): Promise<Scenario> {
  const s = await files.load('name: g\nturns:\n  - user: "hi"\n', 'docs.yaml');
  return {
    ...s,
    gaia: {
      id: 'g',
      persona: { name: 'power_user', description: 'Precise requests', builtin: true },
      documents,
      turns: [{ turn: 1, objective: 'Ask', user_message: 'hi', within_ms: 60_000 }],
      simulator: { service: 'ollama' },
      scoring: { weights: { ...DEFAULT_SCORECARD_WEIGHTS }, pass_threshold: 7 },
    },
  };
}
const ref = (name: string, over: Partial<GaiaDocumentRef> = {}): GaiaDocumentRef => ({
  corpus_doc: name.replace(/\..*$/, ''),
  path: files.path(name),
  written_path: `eval/${name}`,
  ...over,
});

describe('readDocuments: what the bot is sent', () => {
  it('reads text as UTF-8 and images as base64, with the format from the manifest or the extension', async () => {
    files.write('report.md', '# Q3\nRevenue: $14.2 million\n');
    files.write('chart.png', Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    const read = await readDocuments(await withDocuments([ref('report.md'), ref('chart.png', { filename: 'c.png' })]));
    expect(read).toEqual({
      documents: [
        {
          id: 'report',
          filename: 'report.md',
          format: 'markdown',
          path: files.path('report.md'),
          bytes: 28,
          content: '# Q3\nRevenue: $14.2 million\n',
        },
        {
          id: 'chart',
          filename: 'c.png',
          format: 'image',
          path: files.path('chart.png'),
          bytes: 4,
          content_base64: 'iVBORw==',
        },
      ],
    });
  });

  it('a missing or oversized file is a located error naming the path as written', async () => {
    files.write('big.txt', Buffer.alloc(MAX_DOCUMENT_BYTES + 1, 0x61));
    const read = await readDocuments(await withDocuments([ref('missing.md'), ref('big.txt')]));
    expect('problems' in read && read.problems.map((d) => formatDiagnostic(d))).toEqual([
      expect.stringMatching(
        /docs\.yaml:\d+:\d+: error: setup\.index_documents\[0\]\.path: cannot read eval\/missing\.md: .*ENOENT/,
      ),
      expect.stringMatching(
        /setup\.index_documents\[1\]\.path: eval\/big\.txt is 1048577 bytes; .* at most 1048576 bytes/,
      ),
    ]);
  });
});
