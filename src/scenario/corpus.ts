import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { childPath, closest, diagnosticAt, type Diagnostic } from './diagnostics.js';
import { CORPUS_FORMATS, CORPUS_SPEC } from './gaia-fields.js';
import type { CorpusFact } from './gaia-types.js';
import { nearestLocation } from './normalize.js';
import { findScenarioRoot, isInside } from './root.js';
import { DEFAULT_LIMITS, readYamlFile, type LoadLimits } from './source.js';
import { check, INVALID, type CheckContext } from './spec.js';
import type { SourceMap } from './types.js';
import { Expander } from './ynode.js';

/**
 * AMD GAIA's corpus manifest (`eval/corpus/manifest.json`): the documents a scenario's `setup.index_documents` and
 * `ground_truth` name, and their facts. Read as YAML (JSON is YAML), so every problem has a line and column.
 */

export interface CorpusDocument {
  id: string;
  filename: string;
  format?: string;
  domain?: string;
  facts: CorpusFact[];
}

export interface AdversarialDocument {
  id: string;
  filename: string;
  expected_behavior: string;
}

export interface Corpus {
  /** Absolute path of the manifest. */
  file: string;
  documents: Map<string, CorpusDocument>;
  adversarial: Map<string, AdversarialDocument>;
  /** Where each field of the manifest was written. */
  locations: SourceMap;
  /** The manifest's own problems (errors make every scenario that uses it invalid). */
  diagnostics: Diagnostic[];
  /** False when the file could not be read as a manifest at all (its diagnostics say why): nothing to check against. */
  readable: boolean;
}

/** Manifests read during one load or validate run, by absolute path: six scenarios share one corpus. */
export type CorpusCache = Map<string, Corpus>;

/** Where GAIA keeps the manifest, looked for in the scenario's folder and each one above it up to the root. */
const MANIFEST_PLACES = [join('eval', 'corpus', 'manifest.json'), join('corpus', 'manifest.json')];

/** The nearest `eval/corpus/manifest.json` or `corpus/manifest.json` from the scenario's folder up to its root. */
export function findCorpus(scenarioFile: string, root: string): string | undefined {
  let dir = dirname(safeRealpath(scenarioFile));
  for (;;) {
    for (const place of MANIFEST_PLACES) {
      const candidate = join(dir, place);
      if (existsSync(candidate)) return candidate;
    }
    const parent = dirname(dir);
    if (dir === root || parent === dir || !isInside(root, parent)) return undefined;
    dir = parent;
  }
}

export function loadCorpus(path: string, options: { limits?: Partial<LoadLimits>; cache?: CorpusCache } = {}): Corpus {
  const file = resolve(path);
  const known = options.cache?.get(file);
  if (known) return known;
  const corpus = readCorpus(file, { ...DEFAULT_LIMITS, ...options.limits });
  options.cache?.set(file, corpus);
  return corpus;
}

function readCorpus(file: string, limits: LoadLimits): Corpus {
  const corpus: Corpus = {
    file,
    documents: new Map(),
    adversarial: new Map(),
    locations: {},
    diagnostics: [],
    readable: false,
  };
  const read = readYamlFile(file, limits);
  if (!read.ok) {
    corpus.diagnostics.push(...read.diagnostics);
    return corpus;
  }
  const expander = new Expander({ limits, root: findScenarioRoot(file), allowOutsideRoot: false });
  const doc = expander.expand(read.source, safeRealpath(file));
  corpus.diagnostics.push(...expander.diagnostics);
  if (!doc) return corpus;
  const ctx: CheckContext = { diagnostics: corpus.diagnostics, locations: corpus.locations, textStart: {} };
  const raw = check(doc, CORPUS_SPEC, '', ctx);
  if (raw === INVALID || raw === null || typeof raw !== 'object') return corpus;
  corpus.readable = true;
  new ManifestReader(corpus, dirname(file)).read(raw as Record<string, unknown>);
  return corpus;
}

type Raw = Record<string, unknown>;
const records = (v: unknown): (Raw | undefined)[] =>
  Array.isArray(v) ? v.map((x) => (x && typeof x === 'object' ? (x as Raw) : undefined)) : [];
const textOf = (v: unknown): string | undefined =>
  typeof v === 'string' ? v : typeof v === 'number' ? String(v) : undefined;

/** The manifest's rules beyond the types: unique ids, known formats, files present, totals that add up. */
class ManifestReader {
  private readonly ids = new Map<string, string>();

  constructor(
    private readonly corpus: Corpus,
    private readonly dir: string,
  ) {}

  read(raw: Raw): void {
    // Facts as listed (a broken one is reported on its own, not again as a total that does not add up).
    let facts = 0;
    records(raw.documents).forEach((d, i) => {
      facts += Array.isArray(d?.facts) ? d.facts.length : 0;
      if (d) this.document(d, `documents[${i}]`);
    });
    records(raw.adversarial_documents).forEach((d, i) => {
      if (d) this.adversarial(d, `adversarial_documents[${i}]`);
    });
    const listed = this.corpus.documents.size;
    const all = listed + this.corpus.adversarial.size;
    if (typeof raw.total_documents === 'number' && raw.total_documents !== listed && raw.total_documents !== all) {
      this.warn(
        'total_documents',
        `says ${raw.total_documents}, but the manifest lists ${listed} document${listed === 1 ? '' : 's'}` +
          (all > listed ? ` (${all} with the adversarial ones)` : ''),
      );
    }
    if (typeof raw.total_facts === 'number' && raw.total_facts !== facts)
      this.warn(
        'total_facts',
        `says ${raw.total_facts}, but the documents hold ${facts} fact${facts === 1 ? '' : 's'}`,
      );
  }

  private document(d: Raw, p: string): CorpusDocument | undefined {
    const id = typeof d.id === 'string' ? d.id : undefined;
    const filename = typeof d.filename === 'string' ? d.filename : undefined;
    if (!id || !filename || !this.claim(id, p)) return undefined;
    const doc: CorpusDocument = { id, filename, facts: [] };
    if (typeof d.format === 'string') {
      doc.format = d.format;
      if (!(CORPUS_FORMATS as readonly string[]).includes(d.format)) {
        const guess = closest(d.format, CORPUS_FORMATS);
        const hint = guess ? `did you mean "${guess}"? ` : '';
        this.warn(`${p}.format`, `unknown format "${d.format}"; ${hint}GAIA's are ${CORPUS_FORMATS.join(', ')}`);
      }
    }
    if (typeof d.domain === 'string') doc.domain = d.domain;
    const seen = new Map<string, string>();
    records(d.facts).forEach((f, j) => {
      const fp = `${p}.facts[${j}]`;
      const factId = typeof f?.id === 'string' ? f.id : undefined;
      const question = typeof f?.question === 'string' ? f.question : undefined;
      const answer = textOf(f?.answer);
      if (!factId || question === undefined || answer === undefined) return;
      const first = seen.get(factId);
      if (first !== undefined) {
        this.error(`${fp}.id`, `duplicate fact id '${factId}' in document '${id}' (${this.where(first)} has it)`);
        return;
      }
      seen.set(factId, `${fp}.id`);
      const fact: CorpusFact = { doc_id: id, id: factId, question, answer };
      if (typeof f?.difficulty === 'string') fact.difficulty = f.difficulty as CorpusFact['difficulty'];
      doc.facts.push(fact);
    });
    this.fileExists(join('documents', filename), `${p}.filename`);
    this.corpus.documents.set(id, doc);
    return doc;
  }

  private adversarial(d: Raw, p: string): void {
    const { id, filename, expected_behavior: behavior } = d;
    if (typeof id !== 'string' || typeof filename !== 'string' || typeof behavior !== 'string') return;
    if (!this.claim(id, p)) return;
    this.fileExists(join('adversarial', filename), `${p}.filename`);
    this.corpus.adversarial.set(id, { id, filename, expected_behavior: behavior });
  }

  /** A document id is unique across documents and adversarial documents: scenarios name both the same way. */
  private claim(id: string, p: string): boolean {
    const first = this.ids.get(id);
    if (first !== undefined) {
      this.error(childPath(p, 'id'), `duplicate document id '${id}' (${this.where(first)} has it)`);
      return false;
    }
    this.ids.set(id, childPath(p, 'id'));
    return true;
  }

  private fileExists(relative: string, p: string): void {
    const full = join(this.dir, relative);
    let isFile = false;
    try {
      isFile = statSync(full).isFile();
    } catch {
      // Missing: warned below.
    }
    if (!isFile) this.warn(p, `no such file ${relative} beside the manifest (looked for ${full})`);
  }

  private where(path: string): string {
    const loc = nearestLocation(this.corpus.locations, this.corpus.file, path);
    return `line ${loc.line}`;
  }

  private error(p: string, message: string): void {
    const loc = nearestLocation(this.corpus.locations, this.corpus.file, p);
    this.corpus.diagnostics.push(diagnosticAt('error', loc, p, message));
  }

  private warn(p: string, message: string): void {
    const loc = nearestLocation(this.corpus.locations, this.corpus.file, p);
    this.corpus.diagnostics.push(diagnosticAt('warning', loc, p, message));
  }
}

function safeRealpath(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}
