import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Hugging Face hub on localhost, for pull tests: these machines reach no
 * model hub, so this is the only place the download code can meet a server.
 * It serves the hub's URL layout:
 *
 * - `GET /api/models/{repo}/revision/{rev}?blobs=true` → `{sha, siblings: [{rfilename, size, blobId, lfs?}]}`
 * - `GET /{repo}/resolve/{rev}/{path}` → the bytes; LFS files redirect (302)
 *   to `/cdn/...` like the real hub; Range requests get 206.
 *
 * Switches: `corrupt` serves different bytes of the same size, `dropAfter`
 * cuts the first transfer of a file after N bytes, `token` demands a bearer
 * token, `metadataStatus` breaks the API route.
 */
export interface HubFile {
  content: Buffer;
  lfs: boolean;
}

export interface HubRequest {
  url: string;
  range?: string;
  authorization?: string;
}

export class LocalHub {
  readonly repos = new Map<string, Map<string, HubFile>>();
  readonly requests: HubRequest[] = [];
  readonly corrupt = new Set<string>();
  /** path → bytes sent before the connection is destroyed (once per path). */
  readonly dropAfter = new Map<string, number>();
  token: string | undefined;
  metadataStatus = 200;
  private server: Server | undefined;
  private port = 0;

  get endpoint(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Adds a repo whose files are random bytes: `.onnx` files as LFS objects. */
  addRepo(repo: string, files: Record<string, number>): void {
    const map = new Map<string, HubFile>();
    for (const [path, size] of Object.entries(files)) {
      map.set(path, { content: randomBytes(size), lfs: path.endsWith('.onnx') });
    }
    this.repos.set(repo, map);
  }

  /** Adds a repo serving the given files (e.g. generated fixtures): `.onnx` files as LFS objects. */
  addFiles(repo: string, files: Record<string, Buffer>): void {
    const map = new Map<string, HubFile>();
    for (const [path, content] of Object.entries(files)) map.set(path, { content, lfs: path.endsWith('.onnx') });
    this.repos.set(repo, map);
  }

  file(repo: string, path: string): HubFile {
    const f = this.repos.get(repo)?.get(path);
    if (!f) throw new Error(`no ${repo}/${path} on the local hub`);
    return f;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', this.endpoint);
    this.requests.push({
      url: url.pathname + url.search,
      range: req.headers.range,
      authorization: req.headers.authorization,
    });
    if (this.token && req.headers.authorization !== `Bearer ${this.token}`) {
      res
        .writeHead(401, { 'content-type': 'application/json' })
        .end('{"error":"Invalid credentials in Authorization header"}');
      return;
    }
    const api = /^\/api\/models\/(.+)\/revision\/([^/]+)$/.exec(url.pathname);
    if (api) return this.metadata(decodeURIComponent(api[1]), decodeURIComponent(api[2]), res);
    const cdn = /^\/cdn\/(.+)$/.exec(url.pathname);
    const resolve = /^\/(.+?\/[^/]+)\/resolve\/([^/]+)\/(.+)$/.exec(url.pathname);
    if (resolve) {
      const [, repo, rev, rawPath] = resolve;
      const path = rawPath.split('/').map(decodeURIComponent).join('/');
      const file = this.repos.get(repo)?.get(path);
      if (!file || rev !== 'main') {
        res.writeHead(404).end('Entry not found');
        return;
      }
      if (file.lfs) {
        res.writeHead(302, { location: `/cdn/${encodeURIComponent(`${repo}|${path}`)}` }).end();
        return;
      }
      return this.serve(path, file, req, res);
    }
    if (cdn) {
      const [repo, path] = decodeURIComponent(cdn[1]).split('|');
      return this.serve(path, this.file(repo, path), req, res);
    }
    res.writeHead(404).end();
  }

  private metadata(repo: string, revision: string, res: ServerResponse): void {
    const files = this.repos.get(repo);
    if (!files || revision !== 'main') {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"Repository not found"}');
      return;
    }
    if (this.metadataStatus !== 200) {
      res.writeHead(this.metadataStatus).end('upstream trouble');
      return;
    }
    const siblings = [...files.entries()].map(([rfilename, f]) => {
      const sha256 = createHash('sha256').update(f.content).digest('hex');
      const pointer = `version https://git-lfs.github.com/spec/v1\noid sha256:${sha256}\nsize ${f.content.length}\n`;
      const blob = f.lfs ? Buffer.from(pointer) : f.content;
      const blobId = createHash('sha1').update(`blob ${blob.length}\0`).update(blob).digest('hex');
      return f.lfs
        ? {
            rfilename,
            size: f.content.length,
            blobId,
            lfs: { sha256, size: f.content.length, pointerSize: blob.length },
          }
        : { rfilename, size: f.content.length, blobId };
    });
    res
      .writeHead(200, { 'content-type': 'application/json' })
      .end(JSON.stringify({ id: repo, sha: 'f'.repeat(40), siblings }));
  }

  private serve(path: string, file: HubFile, req: IncomingMessage, res: ServerResponse): void {
    let body = file.content;
    if (this.corrupt.has(path)) {
      body = Buffer.from(body);
      body[body.length >> 1] ^= 0xff;
    }
    const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
    const start = range ? Number(range[1]) : 0;
    if (start > body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(start);
    const headers: Record<string, string> = {
      'content-length': String(slice.length),
      'content-type': 'application/octet-stream',
    };
    if (range) headers['content-range'] = `bytes ${start}-${body.length - 1}/${body.length}`;
    res.writeHead(range ? 206 : 200, headers);
    const drop = this.dropAfter.get(path);
    if (drop !== undefined && drop < slice.length) {
      this.dropAfter.delete(path);
      res.write(slice.subarray(0, drop), () => setTimeout(() => res.destroy(), 20));
      return;
    }
    res.end(slice);
  }
}

export function sha256(buf: Buffer): string {
  return createHash('sha256').update(buf).digest('hex');
}
