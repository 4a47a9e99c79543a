import { findSourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';
import { EarshotError } from '../../core/errors.js';
import type { SourceLocation } from '../diagnostics.js';

/**
 * A NeMo scenario that cannot run as defined (no name, no usable whitelist, a signal with nothing to compute it
 * from, user-side state earshot's caller cannot hold), raised where the class is registered: at the module's import,
 * before anything connects. Exit code 2, as a usage error; the message starts with `file:line:col`.
 */
export class ScenarioDefinitionError extends EarshotError {
  readonly scenario: string;
  readonly location: SourceLocation;
  readonly reason: string;
  constructor(scenario: string, location: SourceLocation, reason: string) {
    super(`${location.file}:${location.line}:${location.col}: scenario ${scenario}: ${reason}`, { exitCode: 2 });
    this.name = 'ScenarioDefinitionError';
    this.scenario = scenario;
    this.location = location;
    this.reason = reason;
  }
}

/** `at f (file:///x.ts:3:7)`, `at /x.ts:3:7`, `at async file:///x.ts:3:7` → the location (never node:internal). */
const FRAME = /(?:\(|\bat\s+(?:async\s+)?)((?:file:\/\/)?\/[^()\s]*|[A-Za-z]:\\[^()\s]*):(\d+):(\d+)\)?\s*$/;
/**
 * tsx runs a CommonJS-mode `.ts` (no `"type": "module"` above it) as a `data:` URL naming the file in `filePath=`;
 * its line and column are the compiled code's, so only the file is kept.
 */
const DATA_FRAME = /^at .*data:text\/javascript,.*[?&]filePath=([^:?\s)]+)/;

/**
 * The first stack frame outside earshot's NeMo registry files (whichever copy: `src/` or `dist/`): the line that
 * registered the class. The file of `new Error().stack`'s frames; unknown when no frame has one.
 */
export function callSite(stack: string | undefined, skip: RegExp): SourceLocation {
  for (const raw of (stack ?? '').split('\n').slice(1)) {
    const line = raw.trim();
    const data = DATA_FRAME.exec(line);
    if (data) {
      const file = decodeURIComponent(data[1]).replace(/[?#].*$/, '');
      if (!skip.test(file)) return { file, line: 1, col: 1 };
      continue;
    }
    const m = FRAME.exec(line);
    if (!m) continue;
    let file = m[1];
    const mapped = original(file, Number(m[2]), Number(m[3]));
    if (file.startsWith('file://')) {
      try {
        file = fileURLToPath(file);
      } catch {
        continue;
      }
    }
    file = file.replace(/[?#].*$/, '');
    if (skip.test(file)) continue;
    return { file, line: mapped?.line ?? Number(m[2]), col: mapped?.col ?? Number(m[3]) };
  }
  return { file: '<unknown>', line: 0, col: 0 };
}

/**
 * A frame's position in the author's source, when the module was compiled with a source map Node registered (tsx's)
 * and the stack came out unmapped (a host that replaces `Error.prepareStackTrace`, such as a test runner).
 */
function original(file: string, line: number, col: number): { line: number; col: number } | undefined {
  try {
    const entry = findSourceMap(file)?.findEntry(line - 1, col - 1) as
      | { originalLine?: number; originalColumn?: number }
      | undefined;
    if (entry?.originalLine === undefined || entry.originalColumn === undefined) return undefined;
    return { line: entry.originalLine + 1, col: entry.originalColumn + 1 };
  } catch {
    return undefined;
  }
}
