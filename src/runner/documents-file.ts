import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { formatDiagnostic, locationOf, type Runnable } from '../scenario/index.js';
import {
  checkWire,
  documentProblems,
  documentsOf,
  readDocuments,
  type DocumentsFile,
  type SessionSettings,
} from '../session/index.js';

/**
 * The `spawn` way of giving a GAIA scenario's documents to the bot: the suite writes them beside the results as
 * `<stem>.documents.json` (a `DocumentsFile`), and the bot's `spawn:` names it with `{documents}` (also in
 * `EARSHOT_DOCUMENTS`). Every run gets one when the template asks, empty for a scenario without documents.
 */
export async function writeDocumentsFile(
  scenario: Runnable,
  outDir: string,
  stem: string,
): Promise<{ file: string } | { error: string }> {
  const read = await readDocuments(scenario);
  if ('problems' in read) return { error: documentProblems(read.problems) };
  const file = join(outDir, `${stem}.documents.json`);
  const body: DocumentsFile = { documents: read.documents };
  await writeFile(file, `${JSON.stringify(body)}\n`);
  return { file };
}

/**
 * Refuses, before any bot starts, scenarios whose documents cannot reach the bot the way the run says: `spawn`
 * without a `spawn:` that names `{documents}` (or outside a suite), `context` on a wire without eval-context, no
 * way at all (a bot without RTVI). The same located errors the session would give (wire-check.ts), said once up
 * front instead of once per run.
 */
export function refuseDocuments(
  scenarios: readonly Runnable[],
  settings: Pick<SessionSettings, 'documentsVia' | 'codec' | 'handshake'>,
  spawnNamesDocuments: boolean | null,
  cwd?: string,
): void {
  const lines: string[] = [];
  for (const s of scenarios) {
    if (!documentsOf(s).length) continue;
    const loc = locationOf(s, 'setup.index_documents');
    const at = (message: string): void =>
      void lines.push(
        formatDiagnostic(
          { severity: 'error', file: loc.file, line: loc.line, col: loc.col, path: 'setup.index_documents', message },
          { cwd },
        ),
      );
    if (settings.documentsVia === 'spawn' && spawnNamesDocuments !== true) {
      at(
        spawnNamesDocuments === null
          ? '--documents-via spawn gives the documents to a bot the run starts: use earshot suite with ' +
              '{documents} in its spawn:, or --documents-via message'
          : "--documents-via spawn needs the suite's spawn: to name {documents} (the bot's documents file)",
      );
      continue;
    }
    const wire = { codec: settings.codec, handshake: settings.handshake, documentsVia: settings.documentsVia };
    for (const d of checkWire(s, wire).problems)
      if (d.path.startsWith('setup.index_documents')) lines.push(formatDiagnostic(d, { cwd }));
  }
  if (lines.length) throw new UsageError(`the documents cannot reach the bot:\n${[...new Set(lines)].join('\n')}`);
}
