import {
  closeSync,
  fdatasyncSync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { Redactor } from '../core/redact.js';
import { EarshotError } from '../core/errors.js';
import { redactDeep } from './redact-value.js';
import type { ScenarioResult } from './types.js';
import type { RunSummary } from './summary.js';

export const RESULTS_FILE = 'results.jsonl';
export const SUMMARY_FILE = 'summary.json';

export interface ResultsWriterOptions {
  /** Masks secrets in every line; defaults to the secrets found in `process.env`. */
  redactor?: Redactor;
  /** File name inside the output dir; default `results.jsonl`. */
  fileName?: string;
  /**
   * fdatasync after each line (default true). A line is safe from a process crash as soon as
   * `append` returns either way; the sync also survives a machine crash, for a few ms per scenario.
   */
  sync?: boolean;
  /** Start the file empty instead of appending to what is there (a merge rewriting its output). */
  truncate?: boolean;
}

/**
 * Streams results to `<outDir>/results.jsonl`, one JSON line per scenario, the
 * moment each ends. Each line goes out in whole `write(2)` calls on an
 * append-mode descriptor before `append` returns, so a process that dies later
 * (SIGKILL, OOM) loses nothing it already reported.
 */
export class ResultsWriter {
  readonly outDir: string;
  readonly path: string;
  private fd: number | null;
  private readonly redactor: Redactor;
  private readonly sync: boolean;
  private written = 0;

  constructor(outDir: string, options: ResultsWriterOptions = {}) {
    this.outDir = outDir;
    this.path = join(outDir, options.fileName ?? RESULTS_FILE);
    this.redactor = options.redactor ?? new Redactor(process.env);
    this.sync = options.sync ?? true;
    try {
      mkdirSync(outDir, { recursive: true });
      this.fd = openSync(this.path, 'a+');
      if (options.truncate) ftruncateSync(this.fd, 0);
      else dropIncompleteTail(this.fd);
    } catch (err) {
      throw new EarshotError(`cannot open results file ${this.path}: ${(err as Error).message}`, { cause: err });
    }
  }

  /** Lines appended by this writer. */
  get count(): number {
    return this.written;
  }

  append(result: ScenarioResult): void {
    if (this.fd === null) throw new EarshotError(`results file ${this.path} is closed`);
    const line = `${JSON.stringify(redactDeep(result, this.redactor))}\n`;
    writeFully(this.fd, Buffer.from(line, 'utf8'));
    if (this.sync) fdatasyncSync(this.fd);
    this.written += 1;
  }

  /** Writes `<outDir>/summary.json` atomically (temp file + rename); returns its path. */
  writeSummary(summary: RunSummary, fileName = SUMMARY_FILE): string {
    const target = join(this.outDir, fileName);
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, `${JSON.stringify(redactDeep(summary, this.redactor), null, 2)}\n`);
    renameSync(temp, target);
    return target;
  }

  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }
}

function writeFully(fd: number, buf: Buffer): void {
  let offset = 0;
  while (offset < buf.length) offset += writeSync(fd, buf, offset, buf.length - offset);
}

/**
 * A process killed mid-write can leave a partial last line. Appending after it
 * would glue the next result onto the fragment and spoil both, so the fragment
 * (never a finished result: those end with a newline) is cut off first.
 */
function dropIncompleteTail(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const chunk = Buffer.alloc(Math.min(size, 64 * 1024));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    if (end === size && chunk[n - 1] === 0x0a) return;
    const nl = chunk.subarray(0, n).lastIndexOf(0x0a);
    if (nl >= 0) {
      ftruncateSync(fd, start + nl + 1);
      return;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
}
