import { closeSync, constants, fstatSync, openSync, readSync, statSync } from 'node:fs';
import { LineCounter, parseDocument, type Document, type ScalarTag, type Tags } from 'yaml';
import { diagnosticAt, type Diagnostic, type SourceLocation } from './diagnostics.js';

/**
 * Reading one YAML file safely: a size cap checked before reading, only regular
 * files (a FIFO or /dev/zero would block forever), no binary content, UTF-8 only,
 * a cheap pre-scan that refuses absurd nesting before the parser can recurse
 * into it, and Pipecat's scalar rules.
 */

export interface LoadLimits {
  /** Largest file read, in bytes. Scenario files are a few KiB; this stops accidents and attacks. */
  maxFileBytes: number;
  /** Deepest nesting of mappings and lists, counted across includes. */
  maxDepth: number;
  /** Nodes produced after expanding aliases and includes (the YAML-bomb guard). */
  maxNodes: number;
  /** String characters produced after expanding aliases and includes. */
  maxExpandedChars: number;
  /** Alias uses per loaded file. */
  maxAliases: number;
  /** Nested `!include` levels. */
  maxIncludeDepth: number;
  /** `!include` uses per loaded file, all levels together. */
  maxIncludes: number;
  /** Indentation, in columns, beyond which a line is refused as pathological nesting. */
  maxIndentColumns: number;
}

export const DEFAULT_LIMITS: LoadLimits = {
  maxFileBytes: 1024 * 1024,
  maxDepth: 64,
  maxNodes: 100_000,
  maxExpandedChars: 8 * 1024 * 1024,
  maxAliases: 10_000,
  maxIncludeDepth: 16,
  maxIncludes: 256,
  maxIndentColumns: 480,
};

export interface ParsedSource {
  file: string;
  text: string;
  doc: Document.Parsed;
  lines: LineCounter;
}

export type SourceResult = { ok: true; source: ParsedSource } | { ok: false; diagnostics: Diagnostic[] };

function at(file: string, line: number, col: number, via?: SourceLocation): SourceLocation {
  return via ? { file, line, col, included_from: via } : { file, line, col };
}

function lineColOf(text: string, offset: number): { line: number; col: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, col: offset - lineStart + 1 };
}

/** Reads and parses `file` (an absolute path). `via` is the `!include` site, when there is one. */
export function readYamlFile(file: string, limits: LoadLimits, via?: SourceLocation): SourceResult {
  const fail = (line: number, col: number, message: string): SourceResult => ({
    ok: false,
    diagnostics: [diagnosticAt('error', at(file, line, col, via), '', message)],
  });
  let fd: number;
  try {
    // Non-blocking: opening a FIFO for reading would otherwise wait for a writer forever.
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return fail(1, 1, 'file not found');
    if (code === 'EISDIR') return fail(1, 1, 'is a directory, not a YAML file');
    if (code === 'EACCES' || code === 'EPERM') return fail(1, 1, 'permission denied');
    return fail(1, 1, `cannot open: ${code ?? String(err)}`);
  }
  let bytes: Buffer;
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return fail(1, 1, 'is a directory, not a YAML file');
    if (!stat.isFile()) return fail(1, 1, 'not a regular file (device, FIFO or socket)');
    if (stat.size > limits.maxFileBytes) {
      return fail(1, 1, `file is ${stat.size} bytes; scenario files are limited to ${limits.maxFileBytes} bytes`);
    }
    // Read at most one byte past the cap: the file may have grown since fstat.
    bytes = Buffer.alloc(Math.min(stat.size + 1, limits.maxFileBytes + 1));
    const n = readSync(fd, bytes, 0, bytes.length, 0);
    if (n > limits.maxFileBytes) return fail(1, 1, `file exceeds ${limits.maxFileBytes} bytes`);
    bytes = bytes.subarray(0, n);
  } finally {
    closeSync(fd);
  }
  return parseYamlBytes(file, bytes, limits, via);
}

/**
 * Parsed files shared by many loads (a validate run over a folder where every
 * scenario includes the same judge block). An entry is reused only while the
 * file keeps its size and modification time.
 */
export class SourceCache {
  private readonly entries = new Map<
    string,
    { mtimeMs: number; size: number; maxBytes: number; source: ParsedSource }
  >();
  constructor(private readonly maxEntries = 1000) {}

  read(file: string, limits: LoadLimits, via?: SourceLocation): SourceResult {
    let mtimeMs: number;
    let size: number;
    try {
      ({ mtimeMs, size } = statSync(file));
    } catch {
      return readYamlFile(file, limits, via);
    }
    const hit = this.entries.get(file);
    if (hit && hit.mtimeMs === mtimeMs && hit.size === size && hit.maxBytes === limits.maxFileBytes) {
      return { ok: true, source: hit.source };
    }
    const result = readYamlFile(file, limits, via);
    if (result.ok) {
      if (this.entries.size >= this.maxEntries) this.entries.clear();
      this.entries.set(file, { mtimeMs, size, maxBytes: limits.maxFileBytes, source: result.source });
    }
    return result;
  }
}

export function parseYamlBytes(file: string, bytes: Buffer, limits: LoadLimits, via?: SourceLocation): SourceResult {
  const nul = bytes.indexOf(0);
  if (nul >= 0) {
    const { line, col } = lineColOf(bytes.subarray(0, nul).toString('latin1'), nul);
    return {
      ok: false,
      diagnostics: [
        diagnosticAt(
          'error',
          at(file, line, col, via),
          '',
          `binary file: NUL byte at offset ${nul}; expected YAML text`,
        ),
      ],
    };
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    const bad = firstInvalidUtf8(bytes);
    const { line, col } = lineColOf(bytes.subarray(0, bad).toString('latin1'), bad);
    return {
      ok: false,
      diagnostics: [
        diagnosticAt('error', at(file, line, col, via), '', `not UTF-8 text: invalid byte at offset ${bad}`),
      ],
    };
  }
  const scan = prescan(text, limits);
  if (scan) {
    return { ok: false, diagnostics: [diagnosticAt('error', at(file, scan.line, scan.col, via), '', scan.message)] };
  }
  return parseYamlText(file, text, via);
}

export function parseYamlText(file: string, text: string, via?: SourceLocation): SourceResult {
  const lines = new LineCounter();
  const doc = parseDocument(text, {
    lineCounter: lines,
    // Pipecat's PyYAML keeps the last of duplicate keys; the converter warns instead of failing.
    uniqueKeys: false,
    merge: false,
    prettyErrors: false,
    customTags: pipecatScalarTags,
  });
  const diagnostics: Diagnostic[] = [];
  for (const e of doc.errors) {
    const pos = lines.linePos(e.pos[0]);
    diagnostics.push(
      diagnosticAt('error', at(file, pos.line, pos.col, via), '', `YAML syntax: ${firstLine(e.message)}`),
    );
  }
  if (diagnostics.length > 0) return { ok: false, diagnostics };
  return { ok: true, source: { file, text, doc, lines } };
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}

function firstInvalidUtf8(bytes: Buffer): number {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let lo = 0;
  let hi = bytes.length;
  // Binary search for the shortest invalid prefix; a cut inside a valid multi-byte
  // sequence also fails, so step back to the sequence start.
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    try {
      decoder.decode(bytes.subarray(0, mid + 1));
      lo = mid + 1;
    } catch {
      hi = mid;
    }
  }
  let i = lo;
  while (i > 0 && (bytes[i] & 0xc0) === 0x80 && lo - i < 3) i--;
  return i;
}

/**
 * Refuses nesting that could exhaust the parser's stack before parsing: flow
 * brackets deeper than the limit, or lines indented absurdly far. Quotes and
 * comments are skipped roughly; the parser still checks everything properly.
 */
function prescan(text: string, limits: LoadLimits): { line: number; col: number; message: string } | undefined {
  const maxFlow = limits.maxDepth * 2;
  let depth = 0;
  let line = 1;
  let lineStart = 0;
  let quote = '';
  let atLineStart = true;
  let indent = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '\n') {
      line++;
      lineStart = i + 1;
      quote = quote === '"' ? quote : '';
      atLineStart = true;
      indent = 0;
      continue;
    }
    if (atLineStart) {
      if (c === ' ') {
        indent++;
        if (indent > limits.maxIndentColumns) {
          return {
            line,
            col: indent,
            message: `line indented more than ${limits.maxIndentColumns} columns: nesting too deep`,
          };
        }
        continue;
      }
      atLineStart = false;
    }
    if (quote) {
      if (c === '\\' && quote === '"') i++;
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") {
      const prev = i > lineStart ? text[i - 1] : ' ';
      if (' \t[{,:-'.includes(prev)) quote = c;
    } else if (c === '#' && (i === lineStart || text[i - 1] === ' ' || text[i - 1] === '\t')) {
      const end = text.indexOf('\n', i);
      i = (end < 0 ? text.length : end) - 1;
    } else if (c === '[' || c === '{') {
      depth++;
      if (depth > maxFlow) {
        return { line, col: i - lineStart + 1, message: `nesting deeper than ${maxFlow} levels` };
      }
    } else if ((c === ']' || c === '}') && depth > 0) {
      depth--;
    }
  }
  return undefined;
}

/**
 * PyYAML as Pipecat configures it: integers are plain decimal only (`012` and
 * `0x10` stay strings, so `dtmf: 012` keeps its digits), underscores group
 * digits, and YAML 1.1 booleans (yes/no/on/off) are booleans. `!include` is
 * kept as a tagged string for the converter to resolve.
 */
const DECIMAL_INT = /^[-+]?(?:0|[1-9][0-9_]*)$/;
export function isDecimalIntSource(source: string): boolean {
  return DECIMAL_INT.test(source);
}

function pipecatScalarTags(tags: Tags): Tags {
  const kept = tags.filter((t) => {
    const tag = typeof t === 'string' ? t : t.tag;
    return ![
      'tag:yaml.org,2002:int',
      'tag:yaml.org,2002:bool',
      'tag:yaml.org,2002:float',
      'int',
      'bool',
      'float',
    ].includes(tag);
  });
  const int: ScalarTag = {
    tag: 'tag:yaml.org,2002:int',
    default: true,
    identify: (v) => typeof v === 'number' && Number.isInteger(v),
    test: DECIMAL_INT,
    resolve: (s) => Number(s.replace(/_/g, '')) || 0, // `-0` is 0, as in Python
  };
  const bool: ScalarTag = {
    tag: 'tag:yaml.org,2002:bool',
    default: true,
    identify: (v) => typeof v === 'boolean',
    test: /^(?:yes|Yes|YES|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
    resolve: (s) => /^(?:yes|true|on)$/i.test(s),
  };
  // YAML 1.1 floats as PyYAML reads them: a dot is required and an exponent needs its sign (`1e5` stays text).
  const float: ScalarTag = {
    tag: 'tag:yaml.org,2002:float',
    default: true,
    identify: (v) => typeof v === 'number',
    test: new RegExp(
      String.raw`^(?:[-+]?[0-9][0-9_]*\.[0-9_]*(?:[eE][-+][0-9]+)?|[-+]?\.[0-9_]+(?:[eE][-+][0-9]+)?|` +
        String.raw`[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$`,
    ),
    resolve: (s) => {
      const t = s.replace(/_/g, '').toLowerCase();
      if (t.endsWith('.inf')) return t.startsWith('-') ? -Infinity : Infinity;
      if (t === '.nan') return NaN;
      return Number(t);
    },
  };
  const include: ScalarTag = { tag: '!include', resolve: (s) => s };
  return [int, float, bool, ...kept, include];
}
