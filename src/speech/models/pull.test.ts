import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ManualClock } from '../../core/clock.js';
import { ModelDownloadError, SpeechConfigError } from '../errors.js';
import { LocalHub, sha256 } from './hub.testutil.js';
import { streamProgress } from './progress.js';
import { hubFromEnv, pullModel } from './pull.js';
import { findModel, requiredFiles } from './registry.js';
import { ModelStore } from './store.js';

/**
 * Pulls against a hub on localhost that serves the real hub's URL layout
 * (this machine reaches no model hub, so this is the only server the download
 * code can be exercised against here).
 */
const MODEL = 'whisper-tiny.en';
const REPO = 'onnx-community/whisper-tiny.en';
const ENCODER = 'onnx/encoder_model.onnx';
const DECODER = 'onnx/decoder_model_merged_quantized.onnx';

let hub: LocalHub;
let dir: string;
let store: ModelStore;

class Captured {
  text = '';
  isTTY = false;
  columns = 100;
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

beforeEach(async () => {
  hub = new LocalHub();
  const spec = findModel(MODEL)!;
  const files: Record<string, number> = {};
  for (const path of requiredFiles(spec)) files[path] = path.endsWith('.onnx') ? 300_000 : 700;
  files['onnx/encoder_model_quantized.onnx'] = 90_000; // the repo has more than we pull
  files['README.md'] = 100;
  hub.addRepo(REPO, files);
  await hub.start();
  dir = mkdtempSync(join(tmpdir(), 'earshot-pull-'));
  store = new ModelStore(join(dir, 'models'));
});

afterEach(async () => {
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
});

const fileOnDisk = (path: string): string => join(store.modelDir(findModel(MODEL)!), path);
const resolves = (): string[] =>
  hub.requests.filter((r) => r.url.includes('/resolve/') || r.url.startsWith('/cdn/')).map((r) => r.url);

describe('pullModel', () => {
  it('downloads exactly the files the loader reads, checking LFS files by sha256 and small files by git blob id', async () => {
    const out = new Captured();
    const result = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, progress: streamProgress(out) });

    expect(result.files.map((f) => f.path)).toEqual(requiredFiles(findModel(MODEL)!));
    expect(result.files.every((f) => f.outcome === 'downloaded')).toBe(true);
    expect(result.files.find((f) => f.path === ENCODER)?.verified).toBe('sha256');
    expect(result.files.find((f) => f.path === 'config.json')?.verified).toBe('git-sha1');
    for (const f of result.files) expect(readFileSync(fileOnDisk(f.path))).toEqual(hub.file(REPO, f.path).content);
    expect(store.status(findModel(MODEL)!).present).toBe(true);
    expect(existsSync(`${fileOnDisk(ENCODER)}.part`)).toBe(false);
    expect(hub.requests[0].url).toBe(`/api/models/${REPO}/revision/main?blobs=true`);
    expect(resolves()).not.toContain(`/${REPO}/resolve/main/onnx/encoder_model_quantized.onnx`);
  });

  it('reports progress as plain lines off a terminal: start, quarters, done', async () => {
    const out = new Captured();
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, progress: streamProgress(out) });
    expect(out.text).toContain(`${ENCODER}: downloading 293.0 KiB\n`);
    expect(out.text).toMatch(new RegExp(`${ENCODER}: (25|50|75)% \\(`));
    expect(out.text).toMatch(new RegExp(`${ENCODER}: 293.0 KiB done, verified`));
    expect(out.text).not.toContain('\r');
  });

  it('draws one redrawn bar on a terminal', async () => {
    const out = new Captured();
    out.isTTY = true;
    const clock = new ManualClock();
    const progress = streamProgress(out, clock);
    progress.fileStart('onnx/model.onnx', 1000, 0);
    clock.advance(150);
    progress.fileProgress('onnx/model.onnx', 500);
    clock.advance(50); // within 100 ms of the last draw: not redrawn
    progress.fileProgress('onnx/model.onnx', 600);
    clock.advance(300);
    progress.fileDone('onnx/model.onnx', 'downloaded', 1000);
    const frames = out.text.split('\r\x1b[K').filter(Boolean);
    expect(frames).toHaveLength(3);
    expect(frames[1]).toContain('[############------------]  50% 500 B/1000 B');
    expect(frames[2]).toMatch(/\[#{24}\] 100% 1000 B\/1000 B 2\.0 KiB\/s\n$/);
  });

  it('skips files already present and verified, without downloading them again', async () => {
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } });
    const before = resolves().length;
    const again = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } });
    expect(again.files.every((f) => f.outcome === 'present')).toBe(true);
    expect(resolves().length).toBe(before);
  });

  it('replaces a damaged file that is already in place', async () => {
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } });
    writeFileSync(fileOnDisk(ENCODER), Buffer.alloc(300_000));
    const again = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } });
    expect(again.files.find((f) => f.path === ENCODER)?.outcome).toBe('downloaded');
    expect(sha256(readFileSync(fileOnDisk(ENCODER)))).toBe(sha256(hub.file(REPO, ENCODER).content));
  });

  it('deletes a download whose sha256 does not match and fails naming the file', async () => {
    hub.corrupt.add(DECODER);
    const err = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as Error).message).toMatch(
      new RegExp(
        `^pull ${MODEL}: ${DECODER}: sha256 mismatch: expected [0-9a-f]{64}, got [0-9a-f]{64}; the download was deleted$`,
      ),
    );
    expect(existsSync(fileOnDisk(DECODER))).toBe(false);
    expect(existsSync(`${fileOnDisk(DECODER)}.part`)).toBe(false);
    expect(store.status(findModel(MODEL)!).present).toBe(false);
  });

  it('catches a corrupted small file by its git blob id', async () => {
    hub.corrupt.add('tokenizer.json');
    await expect(pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } })).rejects.toThrow(
      /tokenizer\.json: git-sha1 mismatch/,
    );
  });

  it('keeps the partial file of a broken transfer and resumes it with a Range request on the next pull', async () => {
    hub.dropAfter.set(ENCODER, 120_000);
    const err = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, retries: 0 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ModelDownloadError);
    expect((err as Error).message).toMatch(
      /transfer interrupted at 120000 of 300000 bytes .*; run the pull again to resume$/,
    );
    expect(statSync(`${fileOnDisk(ENCODER)}.part`).size).toBe(120_000);

    const out = new Captured();
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, progress: streamProgress(out) });
    const encoderFetches = hub.requests.filter(
      (r) => r.url.startsWith('/cdn/') && r.url.includes('encoder_model.onnx'),
    );
    expect(encoderFetches.map((r) => r.range)).toEqual([undefined, 'bytes=120000-']);
    expect(out.text).toContain(`${ENCODER}: downloading 293.0 KiB, resuming at 117.2 KiB`);
    expect(sha256(readFileSync(fileOnDisk(ENCODER)))).toBe(sha256(hub.file(REPO, ENCODER).content));
  });

  it('resumes by itself within one pull when retries are left', async () => {
    hub.dropAfter.set(DECODER, 50_000);
    const out = new Captured();
    const result = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, progress: streamProgress(out) });
    expect(result.files.find((f) => f.path === DECODER)?.outcome).toBe('downloaded');
    expect(out.text).toContain(`${DECODER}: transfer interrupted at 50000 of 300000 bytes`);
    expect(out.text).toContain('resuming (attempt 2 of 3)');
    expect(sha256(readFileSync(fileOnDisk(DECODER)))).toBe(sha256(hub.file(REPO, DECODER).content));
  });

  it('starts over when a stale .part is longer than the file', async () => {
    mkdirSync(dirname(fileOnDisk(ENCODER)), { recursive: true });
    writeFileSync(`${fileOnDisk(ENCODER)}.part`, Buffer.alloc(400_000));
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } });
    expect(sha256(readFileSync(fileOnDisk(ENCODER)))).toBe(sha256(hub.file(REPO, ENCODER).content));
  });

  it('sends HF_TOKEN as a bearer header and never shows it', async () => {
    const token = 'hf_secretTOKEN1234567890';
    hub.token = token;
    const out = new Captured();
    const denied = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } }).catch((e: unknown) => e);
    expect((denied as Error).message).toBe(
      `pull ${MODEL}: ${REPO}: the hub refused access (HTTP 401); set HF_TOKEN to a token that can read ${REPO}`,
    );
    await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint, token }, progress: streamProgress(out) });
    expect(hub.requests.filter((r) => r.authorization === `Bearer ${token}`).length).toBeGreaterThan(7);
    const missing = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint, token }, revision: 'v9' }).catch(
      (e: unknown) => e,
    );
    expect((missing as Error).message).toMatch(
      /^pull whisper-tiny\.en: onnx-community\/whisper-tiny\.en: not found at http:\/\/127\.0\.0\.1:\d+ \(revision v9\)$/,
    );
    expect(out.text).not.toContain(token);
  });

  it('falls back to size checks when the metadata route fails', async () => {
    hub.metadataStatus = 500;
    const out = new Captured();
    const result = await pullModel(MODEL, { store, hub: { endpoint: hub.endpoint }, progress: streamProgress(out) });
    expect(out.text).toContain(`${MODEL}: file metadata unavailable (HTTP 500); checking sizes only`);
    expect(result.files.every((f) => f.verified === 'size')).toBe(true);
    expect(store.status(findModel(MODEL)!).present).toBe(true);
  });

  it('says which file the repository lacks', async () => {
    hub.repos.get(REPO)!.delete('generation_config.json');
    await expect(pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } })).rejects.toThrow(
      `pull ${MODEL}: generation_config.json: ${REPO}@main has no such file (the repository layout changed?)`,
    );
  });

  it('fails clearly when the hub cannot be reached', async () => {
    await hub.stop();
    await expect(pullModel(MODEL, { store, hub: { endpoint: hub.endpoint } })).rejects.toThrow(
      new RegExp(`^pull ${MODEL}: ${REPO}: cannot reach http://127\\.0\\.0\\.1:\\d+: fetch failed`),
    );
  });

  it('refuses unknown model names, listing the known ones', async () => {
    const err = await pullModel('whisper-huge', { store, hub: { endpoint: hub.endpoint } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SpeechConfigError);
    expect((err as Error).message).toBe(
      "models: name: unknown model 'whisper-huge' (known: whisper-tiny.en, whisper-base.en, whisper-tiny, whisper-base, moonshine-tiny, moonshine-base, kokoro)",
    );
  });
});

describe('hubFromEnv', () => {
  it('uses HF_ENDPOINT (trailing slash dropped) and HF_TOKEN, defaulting to huggingface.co', () => {
    expect(hubFromEnv({})).toEqual({ endpoint: 'https://huggingface.co' });
    expect(hubFromEnv({ HF_ENDPOINT: 'http://mirror.local/', HF_TOKEN: 'hf_x' })).toEqual({
      endpoint: 'http://mirror.local',
      token: 'hf_x',
    });
  });
});
