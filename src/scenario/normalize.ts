import { dirname, isAbsolute, resolve } from 'node:path';
import { realpathSync, statSync } from 'node:fs';
import { diagnosticAt, type Diagnostic, type SourceLocation } from './diagnostics.js';
import { isInside } from './root.js';
import { DEFAULT_EXPLAIN_BELOW, DEFAULT_OLLAMA_EXTRA, DEFAULT_OLLAMA_MODEL } from './fields.js';
import type { CheckContext } from './spec.js';
import type {
  CodeHook,
  ExpectedCall,
  JudgeConfig,
  JudgeEvalConfig,
  LlmConfig,
  SpeechConfig,
  TranscriptionConfig,
  UserConfig,
} from './types.js';

/** Shared state of one file's normalization: where it is, what was found, what it needs. */
export class Normalizer {
  readonly hooks: CodeHook[] = [];
  constructor(
    /** Absolute path of the file being loaded. */
    readonly file: string,
    /** Realpath of its scenario root. */
    readonly root: string,
    readonly allowOutsideRoot: boolean,
    readonly check: CheckContext,
  ) {}

  get diagnostics(): Diagnostic[] {
    return this.check.diagnostics;
  }

  /** The location of `path`, or of its nearest located ancestor, or the file start. */
  locate(path: string): SourceLocation {
    return nearestLocation(this.check.locations, this.file, path);
  }

  error(path: string, message: string, expected?: string): void {
    this.diagnostics.push(diagnosticAt('error', this.locate(path), path, message, expected));
  }

  /** Whether an error was already reported at `path` or inside it (to avoid cascades). */
  hasErrorAt(path: string): boolean {
    return this.diagnostics.some(
      (d) =>
        d.severity === 'error' && (d.path === path || d.path.startsWith(`${path}.`) || d.path.startsWith(`${path}[`)),
    );
  }

  warn(path: string, message: string): void {
    this.diagnostics.push(diagnosticAt('warning', this.locate(path), path, message));
  }

  /** A key Pipecat still reads but dropped from its newest format. */
  deprecated(path: string, message: string): void {
    this.diagnostics.push({ ...diagnosticAt('warning', this.locate(path), path, message), code: 'deprecated' });
  }

  /** Whether the file wrote `path` (a default filled in later has no location). */
  wrote(path: string): boolean {
    return this.check.locations[path] !== undefined;
  }

  /**
   * Resolves a path written in the file (relative to the file, as Pipecat does, or to `base` where the format says
   * otherwise: GAIA's documents), requires it to exist and to stay inside the scenario root after symlinks.
   */
  localFile(path: string, written: string, what: string, base = dirname(this.file)): string | undefined {
    const absolute = resolve(base, written);
    let real: string;
    try {
      real = realpathSync.native(absolute);
    } catch {
      // Pipecat resolves the path without opening it, so its files load with a
      // recording still missing; the run fails at that turn. Warn, keep the path.
      this.warn(
        path,
        `${what} not found: ${written} (looked for ${absolute}); the run fails at this turn unless it exists`,
      );
      return absolute;
    }
    if (!this.allowOutsideRoot && !isInside(this.root, real)) {
      this.error(
        path,
        `${what} ${written} resolves to ${real}, outside the scenario root ${this.root} ` +
          `(pass --allow-outside-root to allow it)`,
      );
      return undefined;
    }
    try {
      if (!statSync(real).isFile()) {
        this.error(path, `${what} ${written} is not a regular file`);
        return undefined;
      }
    } catch {
      this.error(path, `${what} ${written} cannot be read`);
      return undefined;
    }
    return absolute;
  }

  /** Records a `factory:` hook; the runtime refuses it unless --allow-code (a Python one always). */
  factory(block: string, value: unknown): void {
    if (typeof value !== 'string') return;
    this.hooks.push(parseFactory(block, value, dirname(this.file), this.locate(`${block}.factory`)));
  }
}

export function nearestLocation(locations: Record<string, SourceLocation>, file: string, path: string): SourceLocation {
  let p = path;
  for (;;) {
    const loc = locations[p];
    if (loc) return loc;
    if (!p) return { file, line: 1, col: 1 };
    p = parentPath(p);
  }
}

export function parentPath(path: string): string {
  const m = /^(.*?)(?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])$/.exec(path);
  return m ? m[1] : '';
}

/** Pipecat's factory: a dotted path to a Python callable (`evals.judges.typesafe_classifier`). */
const PYTHON_DOTTED_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/**
 * `./tts.js#makeTts` → that module's `makeTts`; `./tts.js` or a package name →
 * its default export. A dotted name with no `/`, `#` or JS extension is
 * Pipecat's Python path (`my_pkg.make_tts`: module `my_pkg`, callable
 * `make_tts`), kept as data: Node cannot call it.
 */
export function parseFactory(block: string, factory: string, baseDir: string, location: SourceLocation): CodeHook {
  if (PYTHON_DOTTED_PATH.test(factory) && !/\.(?:[cm]?js|[cm]?ts|json)$/.test(factory)) {
    const dot = factory.lastIndexOf('.');
    return {
      block,
      factory,
      runtime: 'python',
      module: factory.slice(0, dot),
      export: factory.slice(dot + 1),
      location,
    };
  }
  let module = factory;
  let exportName = 'default';
  const hash = factory.lastIndexOf('#');
  if (hash > 0) {
    module = factory.slice(0, hash);
    exportName = factory.slice(hash + 1) || 'default';
  }
  if (module.startsWith('./') || module.startsWith('../') || isAbsolute(module)) module = resolve(baseDir, module);
  return { block, factory, runtime: 'node', module, export: exportName, location };
}

type Raw = Record<string, unknown> | undefined;

function asRecord(value: unknown): Raw {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** `judge.eval` / `simulator`: Pipecat's default judge when absent or empty. */
export function normalizeLlm(value: unknown, path: string, n: Normalizer): LlmConfig {
  const raw = asRecord(value);
  if (!raw || Object.keys(raw).length === 0) {
    return { service: 'ollama', model: DEFAULT_OLLAMA_MODEL, extra: { ...DEFAULT_OLLAMA_EXTRA } };
  }
  const cfg = { ...raw, service: typeof raw.service === 'string' ? raw.service : 'ollama' } as LlmConfig;
  if (cfg.factory !== undefined) n.factory(path, cfg.factory);
  else if (cfg.service.toLowerCase() === 'ollama' && cfg.model === undefined) {
    // Pipecat's Ollama default: the default model comes with the extras it needs.
    cfg.model = DEFAULT_OLLAMA_MODEL;
    if (cfg.extra === undefined) cfg.extra = { ...DEFAULT_OLLAMA_EXTRA };
  }
  return cfg;
}

export function normalizeUser(value: unknown, n: Normalizer): UserConfig {
  const raw = asRecord(value) ?? {};
  const modality = raw.modality === 'audio' ? 'audio' : 'text';
  const speech = asRecord(raw.speech) as SpeechConfig | undefined;
  if (!speech) return { modality };
  if (speech.factory === undefined && speech.service === undefined && !n.hasErrorAt('user.speech')) {
    n.error('user.speech', "needs a 'service:' (the TTS that speaks the user turns) or a 'factory:'");
  }
  if (modality === 'text') {
    n.warn('user.speech', 'ignored: user.modality is text, so no user turn is synthesized');
    return { modality };
  }
  if (speech.factory !== undefined) n.factory('user.speech', speech.factory);
  return { modality, speech };
}

/** `judge.eval`: the judging LLM or classifier factory, its explainer, and Pipecat's judge defaults. */
function normalizeJudgeEval(value: unknown, n: Normalizer): JudgeEvalConfig {
  const raw = asRecord(value) ?? {};
  const { explainer, explain_below: below, allow_continue: allow, ...llm } = raw;
  const cfg: JudgeEvalConfig = {
    ...normalizeLlm(llm, 'judge.eval', n),
    explain_below: typeof below === 'number' ? below : DEFAULT_EXPLAIN_BELOW,
    allow_continue: allow !== false,
  };
  if (explainer === false) cfg.explainer = false;
  else if (explainer === true)
    n.error(
      'judge.eval.explainer',
      "expected the explainer's LLM block (service:, model:), or false for verdicts without reasons",
    );
  else if (asRecord(explainer)) cfg.explainer = normalizeLlm(explainer, 'judge.eval.explainer', n);
  return cfg;
}

export function normalizeJudge(value: unknown, n: Normalizer): JudgeConfig {
  const raw = asRecord(value) ?? {};
  const modality = raw.modality === 'audio' ? 'audio' : 'text';
  const judge: JudgeConfig = { modality, eval: normalizeJudgeEval(raw.eval, n) };
  const [transcription, check] = transcriptionBlocks(raw, modality, n);
  if (modality === 'audio' && check) judge.transcription_check = check;
  if (typeof raw.transcription_disagreement === 'number')
    judge.transcription_disagreement = raw.transcription_disagreement;
  if (modality === 'audio') {
    if (!transcription) {
      if (!n.hasErrorAt('judge.transcription')) {
        const where = n.check.locations['judge.modality'] ? 'judge.modality' : 'judge';
        const message = "needs a 'judge.transcription:' block (the STT that transcribes the bot's audio)";
        n.error(where, where === 'judge.modality' ? `audio ${message}` : `judge.modality: audio ${message}`);
      }
      return judge;
    }
    if (transcription.factory !== undefined) n.factory('judge.transcription', transcription.factory);
    judge.transcription = transcription;
  } else if (transcription) {
    n.warn('judge.transcription', 'ignored: judge.modality is text, so the bot does not speak');
  }
  return judge;
}

/**
 * `judge.transcription`: one block (Pipecat's), or (earshot) a list of two, the
 * transcriber and the one that checks it.
 */
function transcriptionBlocks(
  raw: Record<string, unknown>,
  modality: string,
  n: Normalizer,
): [TranscriptionConfig | undefined, TranscriptionConfig | undefined] {
  const list = Array.isArray(raw.transcription)
    ? raw.transcription.map((t) => asRecord(t) as TranscriptionConfig | undefined)
    : [asRecord(raw.transcription) as TranscriptionConfig | undefined];
  if (list.length > 2)
    n.error(
      'judge.transcription[2]',
      'lists at most two transcribers: the one that transcribes the bot, and the one that checks it',
    );
  const check = list[1];
  if (check && modality === 'audio' && check.factory !== undefined) n.factory('judge.transcription[1]', check.factory);
  if (raw.transcription_disagreement !== undefined && !check) {
    n.warn(
      'judge.transcription_disagreement',
      'compares two transcribers, and judge.transcription names one: it applies only with --stt-check',
    );
  }
  // A model folder is read by the recognizer only: written relative to the scenario file, like its other paths.
  for (const block of list)
    if (block && typeof block.model_dir === 'string') block.model_dir = resolve(dirname(n.file), block.model_dir);
  return [list[0], check];
}

/** A `calls:` entry or the `name:`/`args:` shorthand, as the matcher reads it. */
export function normalizeCall(value: unknown): ExpectedCall {
  if (typeof value === 'string') return { name: value };
  const raw = asRecord(value) ?? {};
  const call: ExpectedCall = {};
  if (typeof raw.name === 'string') call.name = raw.name;
  const args = asRecord(raw.args);
  if (args) call.args = args;
  return call;
}

export { asRecord };
