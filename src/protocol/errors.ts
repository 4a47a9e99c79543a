import { EarshotError, UsageError } from '../core/errors.js';

/** Nothing accepted a WebSocket connection at `url` before the connect timeout. */
export class ConnectError extends EarshotError {
  readonly url: string;
  readonly attempts: number;
  readonly elapsedMs: number;
  readonly timeoutMs: number;
  /** The last attempt's failure, in words (`connect ECONNREFUSED 127.0.0.1:7860`). */
  readonly lastCause: string;
  constructor(fields: {
    url: string;
    attempts: number;
    elapsedMs: number;
    timeoutMs: number;
    lastCause: string;
    cause?: unknown;
  }) {
    super(
      `could not connect to ${fields.url} within ${fields.timeoutMs} ms ` +
        `(${fields.attempts} attempt${fields.attempts === 1 ? '' : 's'}): ${fields.lastCause}`,
      { cause: fields.cause },
    );
    this.name = 'ConnectError';
    this.url = fields.url;
    this.attempts = fields.attempts;
    this.elapsedMs = fields.elapsedMs;
    this.timeoutMs = fields.timeoutMs;
    this.lastCause = fields.lastCause;
  }
}

export class UnknownCodecError extends UsageError {
  readonly codec: string;
  readonly known: readonly string[];
  constructor(codec: string, known: readonly string[]) {
    super(`unknown wire codec "${codec}" (known: ${known.join(', ')})`);
    this.name = 'UnknownCodecError';
    this.codec = codec;
    this.known = known;
  }
}

/** A bot URL that is not a ws:// or wss:// URL. */
export class InvalidUrlError extends UsageError {
  readonly url: string;
  constructor(url: string, why: string) {
    super(`invalid bot URL "${url}": ${why}`);
    this.name = 'InvalidUrlError';
    this.url = url;
  }
}

/** The reference bot's server could not listen (port in use, bad host). */
export class ListenError extends EarshotError {
  readonly host: string;
  readonly port: number;
  constructor(host: string, port: number, cause: unknown) {
    super(`cannot listen on ${host}:${port}: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'ListenError';
    this.host = host;
    this.port = port;
  }
}

/** Options out of range (a negative timeout, a zero queue). */
export class WireOptionError extends UsageError {
  readonly option: string;
  constructor(option: string, why: string) {
    super(`${option}: ${why}`);
    this.name = 'WireOptionError';
    this.option = option;
  }
}
