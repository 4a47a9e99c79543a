import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Redactor } from '../../core/redact.js';
import { ModelDownloadError } from '../errors.js';
import { silentProgress, type PullProgress } from './progress.js';
import { requiredFiles, type DtypeSpec, type ModelSpec } from './registry.js';
import { lookupModel, type ModelStore } from './store.js';

/**
 * `earshot models pull`: fetches a model's files from the Hugging Face hub
 * into the store.
 *
 * - Metadata first: `GET {endpoint}/api/models/{repo}/revision/{rev}?blobs=true`
 *   lists every file with its size, its LFS sha256 (weights) or its git blob
 *   id (small files). Each download is checked against them.
 * - Files: `GET {endpoint}/{repo}/resolve/{rev}/{path}` into `<file>.part`,
 *   continued with a Range request when a `.part` is already there (an
 *   interrupted pull resumes), renamed into place only once size and hash
 *   match. A mismatch deletes the `.part` and fails.
 * - `HF_TOKEN` goes out as a bearer header and never into a message.
 */
export const DEFAULT_HF_ENDPOINT = 'https://huggingface.co';

export interface HubSettings {
  endpoint: string;
  token?: string;
}

export function hubFromEnv(env: NodeJS.ProcessEnv = process.env): HubSettings {
  const endpoint = (env.HF_ENDPOINT || DEFAULT_HF_ENDPOINT).replace(/\/+$/, '');
  return env.HF_TOKEN ? { endpoint, token: env.HF_TOKEN } : { endpoint };
}

export interface PullOptions {
  store: ModelStore;
  /** Which weight files: the model's default precision unless given. */
  dtype?: DtypeSpec;
  hub?: HubSettings;
  revision?: string;
  progress?: PullProgress;
  signal?: AbortSignal;
  /** Extra attempts (each resuming) when a transfer breaks off. Default 2. */
  retries?: number;
}

/** How a file was checked: the hub's LFS sha256, its git blob id, or only its size. */
export type Verification = 'sha256' | 'git-sha1' | 'size';

export interface PulledFile {
  path: string;
  bytes: number;
  outcome: 'downloaded' | 'present';
  verified: Verification;
}

export interface PullResult {
  model: ModelSpec;
  dir: string;
  files: PulledFile[];
}

interface Expected {
  size?: number;
  sha256?: string;
  gitSha1?: string;
}

interface HubSibling {
  rfilename?: string;
  size?: number;
  blobId?: string;
  lfs?: { sha256?: string; oid?: string; size?: number };
}

export async function pullModel(name: string, options: PullOptions): Promise<PullResult> {
  const model = lookupModel(name);
  const hub = options.hub ?? hubFromEnv();
  const revision = options.revision ?? model.revision;
  const progress = options.progress ?? silentProgress;
  const redact = new Redactor({}, hub.token ? [hub.token] : []);
  const ctx = { model, hub, revision, progress, signal: options.signal, redact };
  const files = requiredFiles(model, options.dtype);
  const expected = await fetchMetadata(ctx, files);
  const dir = options.store.modelDir(model);
  const out: PulledFile[] = [];
  for (const path of files) {
    out.push(await pullFile(ctx, path, join(dir, ...path.split('/')), expected.get(path) ?? {}, options.retries ?? 2));
  }
  return { model, dir, files: out };
}

interface Ctx {
  model: ModelSpec;
  hub: HubSettings;
  revision: string;
  progress: PullProgress;
  signal?: AbortSignal;
  redact: Redactor;
}

function headers(ctx: Ctx, extra: Record<string, string> = {}): Record<string, string> {
  return ctx.hub.token ? { ...extra, authorization: `Bearer ${ctx.hub.token}` } : extra;
}

/** The endpoint without any user:password part, for messages. */
function where(ctx: Ctx): string {
  try {
    const u = new URL(ctx.hub.endpoint);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/$/, '')}`;
  } catch {
    return ctx.redact.text(ctx.hub.endpoint);
  }
}

function fail(ctx: Ctx, file: string, message: string, cause?: unknown): never {
  throw new ModelDownloadError(ctx.model.name, file, ctx.redact.text(message), cause === undefined ? {} : { cause });
}

async function fetchMetadata(ctx: Ctx, files: string[]): Promise<Map<string, Expected>> {
  const url =
    `${ctx.hub.endpoint}/api/models/${ctx.model.repo}/revision/` + `${encodeURIComponent(ctx.revision)}?blobs=true`;
  let res: Response;
  try {
    res = await fetch(url, { headers: headers(ctx), signal: ctx.signal });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    fail(ctx, ctx.model.repo, `cannot reach ${where(ctx)}: ${causeText(err)}`, err);
  }
  if (res.status === 401 || res.status === 403) {
    fail(
      ctx,
      ctx.model.repo,
      `the hub refused access (HTTP ${res.status}); set HF_TOKEN to a token that can read ${ctx.model.repo}`,
    );
  }
  if (res.status === 404) fail(ctx, ctx.model.repo, `not found at ${where(ctx)} (revision ${ctx.revision})`);
  const out = new Map<string, Expected>();
  let siblings: HubSibling[] | undefined;
  if (res.ok) {
    try {
      const body = (await res.json()) as { siblings?: HubSibling[] };
      siblings = Array.isArray(body.siblings) ? body.siblings : undefined;
    } catch {
      siblings = undefined;
    }
  } else {
    await res.body?.cancel();
  }
  if (!siblings) {
    ctx.progress.note(`${ctx.model.name}: file metadata unavailable (HTTP ${res.status}); checking sizes only`);
    return out;
  }
  for (const s of siblings) {
    if (!s.rfilename) continue;
    const lfsSha = s.lfs?.sha256 ?? s.lfs?.oid;
    out.set(s.rfilename, {
      size: s.lfs?.size ?? s.size,
      sha256: lfsSha,
      gitSha1: lfsSha ? undefined : s.blobId,
    });
  }
  const missing = files.filter((f) => !out.has(f));
  if (missing.length) {
    fail(ctx, missing[0], `${ctx.model.repo}@${ctx.revision} has no such file (the repository layout changed?)`);
  }
  return out;
}

async function pullFile(
  ctx: Ctx,
  path: string,
  final: string,
  expected: Expected,
  retries: number,
): Promise<PulledFile> {
  const verification: Verification = expected.sha256 ? 'sha256' : expected.gitSha1 ? 'git-sha1' : 'size';
  const existing = await stat(final).catch(() => undefined);
  if (existing?.isFile() && expected.size !== undefined) {
    if (await matches(final, existing.size, expected)) {
      ctx.progress.fileDone(path, 'present', existing.size);
      return { path, bytes: existing.size, outcome: 'present', verified: verification };
    }
    // A damaged copy must not look present to `models list` or the loaders.
    await rm(final, { force: true });
  }
  await mkdir(dirname(final), { recursive: true });
  const part = `${final}.part`;
  for (let attempt = 0; ; attempt++) {
    try {
      await download(ctx, path, part, expected);
      break;
    } catch (err) {
      const retryable = err instanceof TransferInterrupted && attempt < retries && !ctx.signal?.aborted;
      if (!retryable) {
        if (err instanceof TransferInterrupted) {
          fail(ctx, path, `${err.message}; run the pull again to resume`, err.cause);
        }
        throw err;
      }
      ctx.progress.note(`${path}: ${err.message}; resuming (attempt ${attempt + 2} of ${retries + 1})`);
    }
  }
  const size = (await stat(part)).size;
  if (expected.size !== undefined && size !== expected.size) {
    await rm(part, { force: true });
    fail(ctx, path, `size mismatch: expected ${expected.size} bytes, got ${size}; the partial file was deleted`);
  }
  if (!(await matches(part, size, expected))) {
    const got = expected.sha256 ? await sha256File(part) : await gitSha1File(part, size);
    await rm(part, { force: true });
    fail(
      ctx,
      path,
      `${verification} mismatch: expected ${expected.sha256 ?? expected.gitSha1}, got ${got}; the download was deleted`,
    );
  }
  await rename(part, final);
  ctx.progress.fileDone(path, 'downloaded', size);
  return { path, bytes: size, outcome: 'downloaded', verified: verification };
}

/** A transfer that broke off after some bytes reached the `.part` file. */
class TransferInterrupted extends Error {}

async function download(ctx: Ctx, path: string, part: string, expected: Expected): Promise<void> {
  let have = (await stat(part).catch(() => undefined))?.size ?? 0;
  if (expected.size !== undefined && have > expected.size) {
    await rm(part, { force: true });
    have = 0;
  }
  // complete from an earlier run, verified by the caller
  if (expected.size !== undefined && have === expected.size) return;
  const url = `${ctx.hub.endpoint}/${ctx.model.repo}/resolve/${encodeURIComponent(ctx.revision)}/${path
    .split('/')
    .map(encodeURIComponent)
    .join('/')}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: headers(ctx, have > 0 ? { range: `bytes=${have}-` } : {}), signal: ctx.signal });
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    fail(ctx, path, `cannot reach ${where(ctx)}: ${causeText(err)}`, err);
  }
  if (res.status === 416 && have > 0) {
    // The server has fewer bytes than our .part: it is not the same file. Start over.
    await res.body?.cancel();
    await rm(part, { force: true });
    return download(ctx, path, part, expected);
  }
  if (res.status === 401 || res.status === 403) {
    await res.body?.cancel();
    fail(
      ctx,
      path,
      `the hub refused access (HTTP ${res.status}); set HF_TOKEN to a token that can read ${ctx.model.repo}`,
    );
  }
  if (res.status !== 200 && res.status !== 206) {
    await res.body?.cancel();
    fail(ctx, path, `HTTP ${res.status} from ${where(ctx)}`);
  }
  const append = res.status === 206 && have > 0 && contentRangeStart(res) === have;
  if (!append) have = 0;
  const total = expected.size ?? (Number(res.headers.get('content-length')) || 0) + have;
  if (expected.size === undefined && total > 0) expected.size = total;
  ctx.progress.fileStart(path, total, have);
  const fh = await open(part, append ? 'a' : 'w');
  let received = have;
  try {
    if (res.body) {
      for await (const chunk of res.body as AsyncIterable<Uint8Array>) {
        await fh.write(chunk);
        received += chunk.byteLength;
        ctx.progress.fileProgress(path, received);
      }
    }
  } catch (err) {
    if (ctx.signal?.aborted) throw err;
    throw new TransferInterrupted(`transfer interrupted at ${received} of ${total} bytes (${causeText(err)})`, {
      cause: err,
    });
  } finally {
    await fh.close();
  }
  if (expected.size !== undefined && received < expected.size) {
    throw new TransferInterrupted(`transfer ended at ${received} of ${expected.size} bytes`);
  }
}

function contentRangeStart(res: Response): number | undefined {
  const m = /^bytes (\d+)-/.exec(res.headers.get('content-range') ?? '');
  return m ? Number(m[1]) : undefined;
}

async function matches(file: string, size: number, expected: Expected): Promise<boolean> {
  if (expected.size !== undefined && size !== expected.size) return false;
  if (expected.sha256) return (await sha256File(file)) === expected.sha256.toLowerCase();
  if (expected.gitSha1) return (await gitSha1File(file, size)) === expected.gitSha1.toLowerCase();
  return true;
}

async function hashFile(file: string, algorithm: string, prefix?: string): Promise<string> {
  const hash = createHash(algorithm);
  if (prefix !== undefined) hash.update(prefix);
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

export function sha256File(file: string): Promise<string> {
  return hashFile(file, 'sha256');
}

/** Git's object id of a file: sha1 over `blob <size>\0` and the content. */
export function gitSha1File(file: string, size: number): Promise<string> {
  return hashFile(file, 'sha1', `blob ${size}\0`);
}

function causeText(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const cause = err.cause instanceof Error ? `: ${err.cause.message}` : '';
  return `${err.message}${cause}`;
}
