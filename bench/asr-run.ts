/**
 * What bench/asr.ts and scripts/gpu-check.ts share: the Flite utterances the
 * models are timed on, and running one job of bench/asr-cell.ts in a fresh
 * process.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sincResample } from '../src/audio/index.js';
import { FliteTts } from '../src/speech/tts/flite.js';
import type { ChildJob, UtteranceFile } from './asr-cell.js';
import { pickUtterances } from './asr-stats.js';

export const ROOT = resolve(import.meta.dirname, '..');

/** Flite (slt, 16 kHz) sentences of fixtures/sentences.txt, alone and run together in twos and threes, 2–8 s long. */
export async function writeUtterances(count: number, file: string): Promise<{ text: string; seconds: number }[]> {
  const sentences = readFileSync(join(ROOT, 'fixtures', 'sentences.txt'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() && !l.startsWith('#'));
  const texts: string[] = [];
  for (let span = 1; span <= 3; span++) {
    for (let i = 0; i + span <= sentences.length; i++) texts.push(sentences.slice(i, i + span).join(' '));
  }
  const tts = new FliteTts({ resample: sincResample });
  const candidates: { text: string; seconds: number; pcm: Int16Array }[] = [];
  try {
    for (const text of texts) {
      const { pcm } = await tts.synthesize(text, { sampleRate: 16000 });
      candidates.push({ text, seconds: pcm.length / 16000, pcm });
    }
  } finally {
    await tts.close();
  }
  const picked = pickUtterances(candidates, count);
  const out: UtteranceFile = {
    sample_rate: 16000,
    utterances: picked.map((u) => ({
      text: u.text,
      seconds: u.seconds,
      pcm_b64: Buffer.from(u.pcm.buffer, u.pcm.byteOffset, u.pcm.byteLength).toString('base64'),
    })),
  };
  writeFileSync(file, JSON.stringify(out));
  return picked;
}

export interface ChildOptions {
  /** `inherit` shows the child's progress; `pipe` keeps its stderr for the caller (and for a failure's message). */
  stderr: 'inherit' | 'pipe';
}

export class ChildError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'ChildError';
  }
}

/**
 * Runs one job in a fresh process (its peak RSS is then the job's own).
 * Resolves with the job's result and what it wrote to stderr; a failure
 * rejects with the child's last stderr line as the message.
 */
export function runChild<R>(job: ChildJob, work: string, o: ChildOptions): Promise<{ result: R; stderr: string }> {
  const file = join(work, `job-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(file, JSON.stringify(job));
  return new Promise((resolveRun, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'bench', 'asr-cell.ts'), file], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', o.stderr],
    });
    const chunks: Buffer[] = [];
    p.stderr?.on('data', (d: Buffer) => chunks.push(d));
    p.on('error', reject);
    p.on('exit', (code, signal) => {
      const stderr = Buffer.concat(chunks).toString('utf8');
      if (code === 0) return resolveRun({ result: JSON.parse(readFileSync(job.out, 'utf8')) as R, stderr });
      const last = stderr.trim().split('\n').filter(Boolean).at(-1);
      const why = last?.replace(/^bench\/asr-cell: /, '') ?? `exited with ${signal ?? `code ${code}`}`;
      reject(new ChildError(why, stderr));
    });
  });
}
