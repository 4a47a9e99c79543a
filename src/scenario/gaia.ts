import { basename, extname, relative } from 'node:path';
import { diagnosticAt, type Diagnostic } from './diagnostics.js';
import { findCorpus, loadCorpus, type Corpus, type CorpusCache } from './corpus.js';
import { GAIA_SPEC } from './gaia-fields.js';
import { normalizeGaiaDocuments } from './gaia-documents.js';
import { normalizeGaiaTurns, type CorpusLookup } from './gaia-turns.js';
import type { GaiaSpec } from './gaia-types.js';
import type { LoadLimits } from './source.js';
import { DEFAULT_PADDING_SECS } from './fields.js';
import { DEFAULT_SCORECARD_PASS, DEFAULT_SCORECARD_WEIGHTS } from './file-fields.js';
import { asRecord, normalizeJudge, normalizeLlm, normalizeUser, Normalizer } from './normalize.js';
import { DEFAULT_GAIA_PERSONA, personaNearMiss, resolvePersona } from './personas.js';
import type { ScriptBody } from './script.js';
import { normalizeConditions } from './conditions.js';
import { normalizeTags } from './simulation-extensions.js';
import { check, INVALID, type CheckContext } from './spec.js';
import {
  SCORECARD_DIMENSIONS,
  type Scenario,
  type ScenarioCheck,
  type ScenarioFile,
  type UserConfig,
} from './types.js';
import { entry, type YMap } from './ynode.js';

/**
 * An AMD GAIA scenario file (gaia-shape.ts recognises it) loaded as what earshot runs: one scripted scenario named by
 * GAIA's `id`, one turn per GAIA turn, and the `gaia` block the GAIA driver plays and scores. Spoken unless the file
 * says otherwise: the caller through Flite, the bot heard through PocketSphinx.
 */

export interface GaiaFileContext {
  file: string;
  root: string;
  allowOutsideRoot: boolean;
  /** `--corpus`; else the nearest manifest up to the root. */
  corpus?: string;
  corpusCache?: CorpusCache;
  limits?: Partial<LoadLimits>;
  defaultWithinMs: number;
  includes: string[];
  /** Problems found reading the file (its includes). */
  fileDiagnostics: Diagnostic[];
  /** Sorts the diagnostics (and applies --strict). */
  finish: (d: Diagnostic[]) => Diagnostic[];
}

/** The file's one scenario checked; `scenario_file` when it loaded. */
export interface GaiaInspection {
  check: ScenarioCheck;
  diagnostics: Diagnostic[];
  scenario_file?: ScenarioFile;
}

/** earshot's defaults for a GAIA file without `user:`/`judge:`: a spoken call on the bundled engines. */
export const GAIA_DEFAULT_USER = { modality: 'audio', speech: { service: 'flite' } } as const;
export const GAIA_DEFAULT_JUDGE = {
  modality: 'audio',
  transcription: { service: 'sphinx', padding_secs: DEFAULT_PADDING_SECS },
} as const;

export function inspectGaiaFile(doc: YMap, c: GaiaFileContext): GaiaInspection {
  const stem = basename(c.file, extname(c.file));
  const diagnostics = [...c.fileDiagnostics];
  const ctx: CheckContext = { diagnostics, locations: {}, textStart: {} };
  const raw = check(doc, GAIA_SPEC, '', ctx);
  let loaded: Scenario | undefined;
  if (raw !== INVALID && raw !== null && typeof raw === 'object') {
    const n = new Normalizer(c.file, c.root, c.allowOutsideRoot, ctx);
    const fields = raw as Record<string, unknown>;
    const body = normalizeGaia(fields, n, stem, c);
    loaded = {
      ...body,
      file: c.file,
      root: c.root,
      includes: c.includes,
      warnings: [],
      locations: ctx.locations,
      file_name: body.name,
      index: 0,
      ...normalizeTags(fields),
      requires_code: n.hooks.some((h) => h.runtime === 'node'),
      code_hooks: n.hooks,
    };
  }
  const all = c.finish(diagnostics);
  const ok = loaded !== undefined && !all.some((d) => d.severity === 'error');
  const idValue = entry(doc, 'id')?.value;
  const id = loaded?.name ?? (idValue?.kind === 'scalar' && typeof idValue.value === 'string' ? idValue.value : stem);
  const scenarioCheck: ScenarioCheck = {
    id,
    file: c.file,
    kind: 'script',
    format: 'gaia',
    status: ok ? 'valid' : 'invalid',
    diagnostics: all,
  };
  if (!ok || !loaded) return { check: scenarioCheck, diagnostics: all };
  loaded.warnings = all;
  scenarioCheck.loaded = loaded;
  const scenarioFile: ScenarioFile = {
    file: c.file,
    name: loaded.name,
    format: 'gaia',
    scenarios: [loaded],
    includes: c.includes,
    warnings: all,
  };
  return { check: scenarioCheck, diagnostics: all, scenario_file: scenarioFile };
}

type GaiaBody = ScriptBody & { gaia: GaiaSpec };

export function normalizeGaia(raw: Record<string, unknown>, n: Normalizer, stem: string, c: GaiaFileContext): GaiaBody {
  const id = typeof raw.id === 'string' ? raw.id : stem;
  if (typeof raw.id === 'string') checkId(id, stem, n);
  // Copies: a loaded scenario's blocks are its own (command-line overrides rewrite them).
  const user: UserConfig = raw.user !== undefined ? normalizeUser(raw.user, n) : structuredClone(GAIA_DEFAULT_USER);
  if (user.modality === 'audio' && !user.speech && !n.hasErrorAt('user.speech')) {
    const where = n.wrote('user.modality') ? 'user.modality' : 'user';
    const message = "needs a 'user.speech:' block: every GAIA turn is spoken";
    n.error(where, where === 'user.modality' ? `audio ${message}` : `user.modality: audio ${message}`);
  }
  const judge = normalizeJudge(raw.judge !== undefined ? raw.judge : structuredClone(GAIA_DEFAULT_JUDGE), n);
  const lookup = corpusLookup(n, c);
  const setup = asRecord(raw.setup);
  const documents = normalizeGaiaDocuments(setup?.index_documents, n, lookup);
  const gaiaTurns = normalizeGaiaTurns(raw.turns, n, lookup, c.defaultWithinMs);
  const gaia: GaiaSpec = {
    id,
    persona: persona(raw.persona, n),
    documents,
    turns: gaiaTurns,
    simulator: normalizeLlm(raw.simulator, 'simulator', n),
    scoring: scoring(raw, n),
  };
  if (typeof raw.name === 'string') gaia.display_name = raw.name.trim();
  if (typeof raw.description === 'string') gaia.description = raw.description.trim();
  if (typeof raw.expected_outcome === 'string') gaia.expected_outcome = raw.expected_outcome.trim();
  if (lookup.corpus) gaia.corpus = lookup.corpus.file;
  const body: GaiaBody = {
    kind: 'script',
    name: id,
    turns: gaiaTurns.map((t) => (t.user_message !== undefined ? { user: t.user_message, expect: [] } : { expect: [] })),
    context: [],
    user,
    judge,
    trigger_disconnect: false,
    // Every GAIA turn is played and scored: a failed turn does not end the call.
    stop_on_failure: false,
    gaia,
  };
  const conditions = normalizeConditions(raw.conditions, 'conditions', n, user.modality === 'audio');
  if (conditions) body.conditions = conditions;
  return body;
}

/** GAIA: "Unique identifier (snake_case, alphanumeric + underscores)"; its file is `<category>/<id>.yaml`. */
function checkId(id: string, stem: string, n: Normalizer): void {
  // A UTF-16 index, as columns are counted.
  const bad = id.search(/[^A-Za-z0-9_]/);
  if (bad >= 0) {
    const char = String.fromCodePoint(id.codePointAt(bad) ?? 0);
    const start = n.check.textStart.id;
    const at = start ? { ...start, col: start.col + bad } : n.locate('id');
    n.diagnostics.push(
      diagnosticAt(
        'error',
        at,
        'id',
        `invalid character ${JSON.stringify(char)} in id ${JSON.stringify(id)}; ` +
          'expected only letters, digits and underscores (snake_case)',
        'snake_case: letters, digits and underscores',
      ),
    );
    return;
  }
  if (id !== id.toLowerCase()) n.warn('id', `'${id}' is not snake_case; GAIA ids are lowercase`);
  if (id !== stem)
    n.warn('id', `the file is ${stem}${extname(n.file)}, but its id is '${id}' (GAIA names a file <id>.yaml)`);
}

function persona(value: unknown, n: Normalizer): GaiaSpec['persona'] {
  if (typeof value !== 'string') {
    if (!n.hasErrorAt('persona'))
      n.warn(
        'persona',
        `no 'persona:': the caller is ${DEFAULT_GAIA_PERSONA} (GAIA's nine built-ins, such as casual_user or ` +
          'data_analyst, or any text describing the caller)',
      );
    return resolvePersona(DEFAULT_GAIA_PERSONA);
  }
  const guess = personaNearMiss(value);
  if (guess)
    n.warn(
      'persona',
      `'${value.trim()}' is not a built-in persona, so the caller model reads it as free text; ` +
        `did you mean '${guess}'?`,
    );
  return resolvePersona(value);
}

function scoring(raw: Record<string, unknown>, n: Normalizer): GaiaSpec['scoring'] {
  const weights = { ...DEFAULT_SCORECARD_WEIGHTS };
  const written = asRecord(raw.weights) ?? {};
  for (const dim of SCORECARD_DIMENSIONS) if (typeof written[dim] === 'number') weights[dim] = written[dim] as number;
  if (SCORECARD_DIMENSIONS.every((d) => weights[d] === 0))
    n.error('weights', 'every weight is 0: at least one dimension must count');
  const threshold = typeof raw.pass_threshold === 'number' ? raw.pass_threshold : DEFAULT_SCORECARD_PASS;
  return { weights, pass_threshold: threshold };
}

/** The corpus: `--corpus`, else the nearest manifest up to the scenario root; none found → one warning, on use. */
function corpusLookup(n: Normalizer, c: GaiaFileContext): CorpusLookup {
  const path = c.corpus ?? findCorpus(c.file, c.root);
  let corpus: Corpus | undefined;
  if (path !== undefined) {
    corpus = loadCorpus(path, {
      ...(c.limits ? { limits: c.limits } : {}),
      ...(c.corpusCache ? { cache: c.corpusCache } : {}),
    });
    n.diagnostics.push(...corpus.diagnostics);
    // An unreadable manifest is reported once, above; checking references against nothing would only repeat it.
    if (!corpus.readable) return { missing: () => undefined };
  }
  let warned = false;
  return {
    ...(corpus ? { corpus } : {}),
    missing(path: string): void {
      if (warned) return;
      warned = true;
      const from = relative(c.root, c.file) || c.file;
      n.warn(
        path,
        `no corpus manifest found (eval/corpus/manifest.json or corpus/manifest.json, from ${from} up to the ` +
          `scenario root ${c.root}; or --corpus): documents and facts are not checked, and the judge gets no facts`,
      );
    },
  };
}
