import { monotonicClock, type Clock } from '../../core/clock.js';

/** What a pull reports as it goes. */
export interface PullProgress {
  /** A download starts; `resumedFromBytes` > 0 when a `.part` file is continued. */
  fileStart(file: string, totalBytes: number, resumedFromBytes: number): void;
  /** Bytes of the file on disk so far (resumed bytes included). */
  fileProgress(file: string, receivedBytes: number): void;
  fileDone(file: string, outcome: 'downloaded' | 'present', bytes: number): void;
  note(message: string): void;
}

export const silentProgress: PullProgress = {
  fileStart: () => undefined,
  fileProgress: () => undefined,
  fileDone: () => undefined,
  note: () => undefined,
};

export interface ProgressStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

const REDRAW_MS = 100;

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  if (bytes < 1024 ** 3) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`;
  return `${(bytes / 1024 ** 3).toFixed(2)} GiB`;
}

/**
 * A progress bar on a terminal (one line redrawn in place, at most ten times
 * a second); on a pipe or CI log, plain lines at the start, at every quarter
 * and at the end, so logs stay readable.
 */
export function streamProgress(stream: ProgressStream, clock: Clock = monotonicClock): PullProgress {
  const tty = stream.isTTY === true;
  let current:
    | { file: string; total: number; startBytes: number; startMs: number; lastDrawMs: number; quarter: number }
    | undefined;

  const rate = (received: number): string => {
    if (!current) return '';
    const seconds = (clock.now() - current.startMs) / 1000;
    if (seconds <= 0) return '';
    return `${formatBytes((received - current.startBytes) / seconds)}/s`;
  };

  const draw = (received: number): void => {
    if (!current) return;
    const pct = current.total > 0 ? Math.min(100, Math.floor((received / current.total) * 100)) : 0;
    const width = 24;
    const filled = Math.round((pct / 100) * width);
    const bar = `${'#'.repeat(filled)}${'-'.repeat(width - filled)}`;
    const line =
      `${current.file} [${bar}] ${String(pct).padStart(3)}% ` +
      `${formatBytes(received)}/${formatBytes(current.total)} ${rate(received)}`;
    const columns = stream.columns ?? 100;
    stream.write(`\r\x1b[K${line.slice(0, Math.max(20, columns - 1))}`);
  };

  return {
    fileStart(file, totalBytes, resumedFromBytes) {
      const now = clock.now();
      current = { file, total: totalBytes, startBytes: resumedFromBytes, startMs: now, lastDrawMs: now, quarter: 0 };
      if (tty) draw(resumedFromBytes);
      else {
        const resumed = resumedFromBytes > 0 ? `, resuming at ${formatBytes(resumedFromBytes)}` : '';
        stream.write(`${file}: downloading ${formatBytes(totalBytes)}${resumed}\n`);
      }
    },
    fileProgress(file, receivedBytes) {
      if (!current || current.file !== file) return;
      const now = clock.now();
      if (tty) {
        if (now - current.lastDrawMs >= REDRAW_MS) {
          current.lastDrawMs = now;
          draw(receivedBytes);
        }
        return;
      }
      const quarter = current.total > 0 ? Math.floor((receivedBytes / current.total) * 4) : 0;
      if (quarter > current.quarter && quarter < 4) {
        current.quarter = quarter;
        stream.write(`${file}: ${quarter * 25}% (${formatBytes(receivedBytes)})\n`);
      }
    },
    fileDone(file, outcome, bytes) {
      if (tty && current?.file === file) {
        draw(bytes);
        stream.write('\n');
      }
      const what = outcome === 'present' ? 'already present, verified' : `done, verified ${rate(bytes)}`.trim();
      if (!tty || outcome === 'present') stream.write(`${file}: ${formatBytes(bytes)} ${what}\n`);
      current = undefined;
    },
    note(message) {
      stream.write(`${message}\n`);
    },
  };
}
