/**
 * `--library <dir>`: the folder the reference bot may search and index from on its own (GAIA's "smart discovery":
 * asked something no indexed document answers, an agent looks for a file that does). Only text formats are read,
 * each at most MAX_DOCUMENT_BYTES; the folder is read once, when first searched.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { DOCUMENT_FORMATS, documentExtension, formatOfFilename, MAX_DOCUMENT_BYTES } from '../../protocol/documents.js';
import { type DocumentInput, type DocumentMatch, DocumentIndex } from './documents.js';

/** The extensions of text formats: an image has no sentences for this bot to read. */
const TEXT_EXTENSIONS = new Set(
  Object.entries(DOCUMENT_FORMATS)
    .filter(([, format]) => format !== 'image')
    .map(([ext]) => ext),
);
const MAX_DEPTH = 6;
const MAX_FILES = 500;

export interface LibraryFile {
  /** Absolute path. */
  path: string;
  /** As the bot reports it: relative to the working folder when inside it. */
  shown: string;
  document: DocumentInput;
}

export class DocumentLibrary {
  private files: LibraryFile[] | null = null;
  /** Every file's sentences, indexed by path (two report.md in different folders are two documents). */
  private index: DocumentIndex | null = null;
  private readonly byPath = new Map<string, LibraryFile>();

  constructor(readonly dir: string) {}

  /** Every readable text file under the folder, in path order. */
  list(): LibraryFile[] {
    this.files ??= walk(resolve(this.dir), 0)
      .slice(0, MAX_FILES)
      .flatMap((path) => {
        const content = readText(path);
        if (content === null) return [];
        const filename = basename(path);
        const id = filename.replace(/\.[^.]+$/, '');
        return [
          {
            path,
            shown: shownPath(path),
            document: { id, filename, format: formatOfFilename(filename), path, content },
          },
        ];
      });
    return this.files;
  }

  /** The file a caller named ("eval/corpus/adversarial/empty.txt", or just "empty.txt"): by path ending, then name. */
  find(named: string): LibraryFile | null {
    const parts = named.split(/[\\/]/).filter(Boolean);
    const files = this.list();
    for (let keep = parts.length; keep >= 1; keep--) {
      const tail = sep + parts.slice(-keep).join(sep);
      const hit = files.find((f) => f.path.endsWith(tail));
      if (hit) return hit;
    }
    return null;
  }

  /** The file whose sentence best answers the question, among those not already indexed (by file name). */
  search(question: string, exclude: ReadonlySet<string>): { file: LibraryFile; match: DocumentMatch } | null {
    const match = this.indexed().search(question, (d) => exclude.has(d.filename));
    const file = match && this.byPath.get(match.document.id);
    return file && match ? { file, match } : null;
  }

  /** The library's index, built on the first search: the folder is read once, so its index is too. */
  private indexed(): DocumentIndex {
    if (this.index) return this.index;
    const index = new DocumentIndex();
    for (const f of this.list()) {
      index.add({ ...f.document, id: f.path }, 'library');
      this.byPath.set(f.path, f);
    }
    this.index = index;
    return index;
  }
}

function walk(dir: string, depth: number): string[] {
  if (depth > MAX_DEPTH) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return [];
  }
  return names.flatMap((name) => {
    const path = join(dir, name);
    try {
      const st = statSync(path);
      if (st.isDirectory()) return walk(path, depth + 1);
      return st.isFile() && TEXT_EXTENSIONS.has(documentExtension(name)) && st.size <= MAX_DOCUMENT_BYTES ? [path] : [];
    } catch {
      return [];
    }
  });
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

function shownPath(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel) ? rel.split(sep).join('/') : path;
}
