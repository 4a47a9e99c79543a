import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LocalHub } from '../../../../src/speech/models/hub.testutil.js';
import { writeFixtureModels } from '../../../../src/speech/fixture-models/write.js';
import { findModel, requiredFiles } from '../../../../src/speech/models/registry.js';
import { CLI } from '../../../support/paths.js';

/**
 * `earshot models`, run as a user runs it: the built CLI in a subprocess,
 * pulling from a hub on localhost (no model hub is reachable here).
 */
let dir: string;
let hub: LocalHub;

function earshot(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ status: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [CLI, ...args],
      {
        cwd: dir,
        env: {
          ...process.env,
          EARSHOT_DEBUG: '',
          EARSHOT_MODELS_DIR: join(dir, 'store'),
          HF_ENDPOINT: hub.endpoint,
          HF_TOKEN: '',
          ...env,
        },
      },
      (err, stdout, stderr) => done({ status: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(() => {
  if (!existsSync(CLI)) throw new Error(`build the CLI first: npx tsc -p tsconfig.build.json (missing ${CLI})`);
});
beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'earshot-models-cli-'));
  hub = new LocalHub();
  const files: Record<string, number> = {};
  for (const path of requiredFiles(findModel('moonshine-tiny')!)) files[path] = path.endsWith('.onnx') ? 200_000 : 300;
  hub.addRepo('onnx-community/moonshine-tiny-ONNX', files);
  await hub.start();
});
afterEach(async () => {
  await hub.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('earshot models', () => {
  it('lists every known model with its status, size and repository', async () => {
    const r = await earshot(['models', 'list']);
    expect(r.status).toBe(0);
    expect(r.stdout.split('\n').slice(0, 3)).toEqual([
      `Model store: ${join(dir, 'store')}`,
      'NAME             KIND  STATUS   SIZE  HUB REPOSITORY',
      'whisper-tiny.en  stt   missing  0 B   onnx-community/whisper-tiny.en',
    ]);
    expect(r.stdout).toContain('kokoro           tts   missing  0 B   onnx-community/Kokoro-82M-v1.0-ONNX');
    expect(r.stdout).toContain('Pull one with: earshot models pull whisper-tiny.en');
  });

  it('pulls a model with progress on stderr, after which list shows it present', async () => {
    const pull = await earshot(['models', 'pull', 'moonshine-tiny']);
    expect(pull.stderr).toContain(
      `moonshine-tiny: onnx-community/moonshine-tiny-ONNX (decoder_model_merged=q8,encoder_model=fp32) -> ${join(dir, 'store', 'onnx-community', 'moonshine-tiny-ONNX')}\n`,
    );
    expect(pull.stderr).toContain('onnx/encoder_model.onnx: downloading 195.3 KiB\n');
    expect(pull.stdout).toBe('moonshine-tiny: ready, 7 files, 392.1 KiB (7 downloaded)\n');
    expect(pull.status).toBe(0);

    const list = await earshot(['models', 'list', '--json']);
    const parsed = JSON.parse(list.stdout) as { models: Array<{ name: string; present: boolean; size_bytes: number }> };
    expect(parsed.models.find((m) => m.name === 'moonshine-tiny')).toMatchObject({
      present: true,
      size_bytes: 401_500,
    });

    const again = await earshot(['models', 'pull', 'moonshine-tiny']);
    expect(again.stdout).toBe('moonshine-tiny: ready, 7 files, 392.1 KiB (0 downloaded)\n');
  });

  it('lists generated fixture models as fixtures, not as the real weights', async () => {
    await writeFixtureModels(join(dir, 'store'), { models: ['whisper-tiny.en'] });
    const r = await earshot(['models', 'list']);
    expect(r.stdout).toMatch(/^whisper-tiny\.en {2}stt {3}fixture \(tiny\) {2}\d/m);
    const list = await earshot(['models', 'list', '--json']);
    const parsed = JSON.parse(list.stdout) as { models: Array<{ name: string; fixture?: { variant: string } }> };
    expect(parsed.models.find((m) => m.name === 'whisper-tiny.en')?.fixture?.variant).toBe('tiny');
    expect(parsed.models.find((m) => m.name === 'whisper-base.en')?.fixture).toBeUndefined();
  });

  it('refuses unknown names with exit code 2, listing the known ones', async () => {
    const r = await earshot(['models', 'pull', 'moonshine-tiny', 'parakeet']);
    expect(r.status).toBe(2);
    expect(r.stderr).toBe(
      "earshot: unknown model 'parakeet' (known: whisper-tiny.en, whisper-base.en, whisper-tiny, whisper-base, moonshine-tiny, moonshine-base, kokoro)\n",
    );
    expect(hub.requests).toEqual([]);
  });

  it('fails in one line, keeping no damaged file, when a download does not match its checksum', async () => {
    hub.corrupt.add('onnx/encoder_model.onnx');
    const r = await earshot(['models', 'pull', 'moonshine-tiny']);
    expect(r.status).toBe(1);
    expect(r.stderr.trim().split('\n').at(-1)).toMatch(
      /^earshot: pull moonshine-tiny: onnx\/encoder_model\.onnx: sha256 mismatch: expected [0-9a-f]{64}, got [0-9a-f]{64}; the download was deleted$/,
    );
    expect(existsSync(join(dir, 'store', 'onnx-community', 'moonshine-tiny-ONNX', 'onnx', 'encoder_model.onnx'))).toBe(
      false,
    );
  });
});
