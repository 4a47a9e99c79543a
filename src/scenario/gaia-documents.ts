import { existsSync, realpathSync } from 'node:fs';
import { basename, dirname, resolve } from 'node:path';
import { closest } from './diagnostics.js';
import type { GaiaDocumentRef } from './gaia-types.js';
import type { CorpusLookup } from './gaia-turns.js';
import { asRecord, type Normalizer } from './normalize.js';
import { isInside } from './root.js';

/**
 * `setup.index_documents`: each entry names a corpus document (`corpus_doc`) and its file (`path`). GAIA writes the
 * path "relative to repo root"; earshot reads it against the scenario root (root.ts: the nearest folder above the
 * file with a package.json, .git or suite manifest), which a GAIA checkout is.
 */
export function normalizeGaiaDocuments(raw: unknown, n: Normalizer, lookup: CorpusLookup): GaiaDocumentRef[] {
  const out: GaiaDocumentRef[] = [];
  const seen = new Set<string>();
  (Array.isArray(raw) ? raw : []).forEach((value, j) => {
    const d = asRecord(value);
    const p = `setup.index_documents[${j}]`;
    if (!d || typeof d.corpus_doc !== 'string' || typeof d.path !== 'string') return;
    const id = d.corpus_doc;
    if (seen.has(id)) n.warn(`${p}.corpus_doc`, `'${id}' is listed twice`);
    seen.add(id);
    const path = rootFile(n, `${p}.path`, d.path);
    if (path === undefined) return;
    const ref: GaiaDocumentRef = { corpus_doc: id, path, written_path: d.path };
    const corpus = lookup.corpus;
    if (!corpus) lookup.missing(`${p}.corpus_doc`);
    else {
      const doc = corpus.documents.get(id);
      const adversarial = corpus.adversarial.get(id);
      const filename = doc?.filename ?? adversarial?.filename;
      if (filename === undefined) {
        const ids = [...corpus.documents.keys(), ...corpus.adversarial.keys()];
        const guess = closest(id, ids);
        const hint = guess ? `did you mean '${guess}'?` : `its documents: ${ids.join(', ') || 'none'}`;
        n.error(
          `${p}.corpus_doc`,
          `unknown document '${id}': the corpus manifest ${corpus.file} does not list it; ${hint}`,
        );
      } else {
        ref.filename = filename;
        if (doc?.format !== undefined) ref.format = doc.format;
        if (basename(d.path) !== filename)
          n.warn(
            `${p}.path`,
            `the manifest's file for '${id}' is ${filename}, but this path names ${basename(d.path)}`,
          );
      }
    }
    out.push(ref);
  });
  return out;
}

/**
 * A path written relative to the scenario root (GAIA's repo root). When it is not there but is relative to a folder
 * between the file and the root (a GAIA checkout inside a bigger project), that one is used, with a warning that says
 * how to mark the root. Confined to the root unless --allow-outside-root, as `!include`, `image:` and `audio:` are.
 */
export function rootFile(n: Normalizer, path: string, written: string): string | undefined {
  const fromRoot = resolve(n.root, written);
  if (existsSync(fromRoot)) return n.localFile(path, written, 'document', n.root);
  const found = nearerBase(n, written);
  if (found === undefined) {
    // Not localFile's warning: this one says where GAIA's paths are read from.
    n.warn(
      path,
      `document not found: ${written} (looked for ${fromRoot}: GAIA's paths are relative to the repo root, which ` +
        'earshot reads as the scenario root); the run fails unless it exists',
    );
    return fromRoot;
  }
  n.warn(
    path,
    `${written} is not under the scenario root ${n.root}; read it from ${found} instead ` +
      "(GAIA's paths are relative to the repo root: mark that folder with a package.json, .git or suite manifest)",
  );
  return n.localFile(path, written, 'document', found);
}

/** The nearest folder from the scenario file up to (not including) the root where `written` exists. */
function nearerBase(n: Normalizer, written: string): string | undefined {
  let dir: string;
  try {
    dir = dirname(realpathSync.native(n.file));
  } catch {
    dir = dirname(n.file);
  }
  while (dir !== n.root && isInside(n.root, dir)) {
    if (existsSync(resolve(dir, written))) return dir;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return undefined;
}
