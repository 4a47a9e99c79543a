import { mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EarshotError } from '../core/errors.js';

/** No free port was found in the whole range. */
export class NoFreePortError extends EarshotError {
  readonly basePort: number;
  constructor(basePort: number) {
    super(`no free TCP port between ${basePort} and 65535`);
    this.name = 'NoFreePortError';
    this.basePort = basePort;
  }
}

/** Where earshot processes on one machine mark the ports their bots are about to bind. */
export const DEFAULT_PORT_LOCK_DIR = join(tmpdir(), 'earshot-ports');

/** Whether a listener could bind `port` on `host` right now. */
export function canListen(port: number, host?: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.unref();
    server.once('error', () => resolve(false));
    server.listen({ port, host, exclusive: true }, () => server.close(() => resolve(true)));
  });
}

/**
 * A port is free when nothing listens on it on the loopback address or the
 * wildcard: a bot may bind either, and `localhost` may reach either.
 */
export async function isPortFree(port: number): Promise<boolean> {
  return (await canListen(port, '127.0.0.1')) && (await canListen(port));
}

export interface PortAllocatorOptions {
  probe?: (port: number) => Promise<boolean>;
  /**
   * Folder of lock files (`<port>`, holding the owner's pid) shared by every
   * earshot process on the machine; null for none. Default `$TMPDIR/earshot-ports`.
   */
  lockDir?: string | null;
}

/**
 * Hands out one free port per bot run, starting at the manifest's `base_port`
 * (Pipecat's `base_port + index`) but probing instead of trusting it: a port
 * something else holds is skipped. A bot takes a while to bind its port, and a
 * probe in that window would find it free, so ports are also locked: in this
 * process until released, and across processes (shards side by side on one
 * machine) with a lock file whose owner is checked for liveness. The cursor
 * moves on after each port, so a port a stopped bot just left is not reused at once.
 */
export class PortAllocator {
  private readonly reserved = new Set<number>();
  private readonly probe: (port: number) => Promise<boolean>;
  private readonly lockDir: string | null;
  private cursor: number;
  private lock: Promise<unknown> = Promise.resolve();

  constructor(
    readonly basePort: number,
    options: PortAllocatorOptions = {},
  ) {
    if (!Number.isInteger(basePort) || basePort < 1 || basePort > 65535) {
      throw new EarshotError(`base_port must be an integer between 1 and 65535, got ${basePort}`);
    }
    this.cursor = basePort;
    this.probe = options.probe ?? isPortFree;
    this.lockDir = options.lockDir === undefined ? DEFAULT_PORT_LOCK_DIR : options.lockDir;
    if (this.lockDir !== null) mkdirSync(this.lockDir, { recursive: true });
  }

  /** A port nothing listens on, reserved until `release`. Concurrent calls never get the same port. */
  acquire(): Promise<number> {
    const next = this.lock.then(() => this.scan());
    this.lock = next.catch(() => undefined);
    return next;
  }

  release(port: number): void {
    if (!this.reserved.delete(port)) return;
    this.unlockFile(port);
  }

  /** Releases every port still held (process exit). Synchronous. */
  releaseAll(): void {
    for (const port of [...this.reserved]) this.release(port);
  }

  get inUse(): number {
    return this.reserved.size;
  }

  private async scan(): Promise<number> {
    const span = 65535 - this.basePort + 1;
    for (let tried = 0; tried < span; tried++) {
      const port = this.cursor;
      this.cursor = port >= 65535 ? this.basePort : port + 1;
      if (this.reserved.has(port) || !this.lockFile(port)) continue;
      if (await this.probe(port)) {
        this.reserved.add(port);
        return port;
      }
      this.unlockFile(port);
    }
    throw new NoFreePortError(this.basePort);
  }

  /** Creates `<lockDir>/<port>` exclusively; a lock whose owner died is taken over. */
  private lockFile(port: number): boolean {
    if (this.lockDir === null) return true;
    const file = join(this.lockDir, String(port));
    for (let attempt = 0; attempt < 2; attempt++) {
      try {
        writeFileSync(file, String(process.pid), { flag: 'wx' });
        return true;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') return false;
        if (ownerAlive(file)) return false;
        try {
          unlinkSync(file);
        } catch {
          // Another process took it over first; the retry settles who owns it.
        }
      }
    }
    return false;
  }

  private unlockFile(port: number): void {
    if (this.lockDir === null) return;
    const file = join(this.lockDir, String(port));
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) unlinkSync(file);
    } catch {
      // Already gone.
    }
  }
}

function ownerAlive(file: string): boolean {
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return false; // gone in between: free to take
  }
  if (text === '') return true; // being written right now
  const pid = Number(text);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
