import { describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../core/redact.js';
import { ResultsWriter } from './writer.js';
import { readResultsDir, readResultsFile } from './reader.js';
import { makeResult } from './fixtures.testutil.js';
import { summarize } from './summary.js';
import { ResultsFileError } from './errors.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'earshot-results-'));
const CHILD = join(import.meta.dirname, 'crash-child.testutil.ts');

function runChildUntilAppended(outDir: string, mode: string): Promise<{ signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CHILD, outDir, mode], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('appended 2')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ signal });
      else reject(new Error(`child exited ${code} before being killed: ${stderr}`));
    });
  });
}

describe('ResultsWriter', () => {
  it('appends one JSON line per scenario, readable back in order', () => {
    const dir = tmp();
    const writer = new ResultsWriter(dir);
    writer.append(makeResult({ file: 'a.yaml' }));
    writer.append(makeResult({ file: 'b.yaml', status: 'failed' }));
    writer.close();
    const text = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    expect(text.split('\n')).toHaveLength(3);
    const back = readResultsDir(dir);
    expect(back.results.map((r) => [r.file, r.status])).toEqual([
      ['a.yaml', 'passed'],
      ['b.yaml', 'failed'],
    ]);
    expect(back.results[1]).toEqual(makeResult({ file: 'b.yaml', status: 'failed' }));
    expect(back.truncated).toBe(false);
  });

  it('keeps both results intact when the process is SIGKILLed right after appending them', async () => {
    const dir = tmp();
    const { signal } = await runChildUntilAppended(dir, 'sync');
    expect(signal).toBe('SIGKILL');
    const back = readResultsDir(dir);
    expect(back.truncated).toBe(false);
    expect(back.results.map((r) => r.file)).toEqual(['scenarios/a.yaml', 'scenarios/b.yaml']);
    expect(back.results[0].turns[1].expectations[1].text).toBe('first </script> line');
  }, 30_000);

  it('keeps results across a SIGKILL without fsync too (the line is in the kernel when append returns)', async () => {
    const dir = tmp();
    await runChildUntilAppended(dir, 'nosync');
    expect(readResultsDir(dir).results).toHaveLength(2);
  }, 30_000);

  it('appends to an existing results file instead of replacing it', () => {
    const dir = tmp();
    new ResultsWriter(dir).append(makeResult({ file: 'a.yaml' }));
    const again = new ResultsWriter(dir);
    again.append(makeResult({ file: 'b.yaml' }));
    again.close();
    expect(readResultsDir(dir).results.map((r) => r.file)).toEqual(['a.yaml', 'b.yaml']);
  });

  it('cuts off a partial line left by a killed writer before appending, so no line is spoiled', () => {
    const dir = tmp();
    const w = new ResultsWriter(dir);
    w.append(makeResult({ file: 'a.yaml' }));
    w.close();
    appendFileSync(join(dir, 'results.jsonl'), '{"name":"half a line","fi');
    expect(readResultsDir(dir).truncated).toBe(true);
    const w2 = new ResultsWriter(dir);
    w2.append(makeResult({ file: 'c.yaml' }));
    w2.close();
    const back = readResultsDir(dir);
    expect(back.truncated).toBe(false);
    expect(back.results.map((r) => r.file)).toEqual(['a.yaml', 'c.yaml']);
  });

  it('masks secrets from the environment and credential-shaped fields in every line', () => {
    const dir = tmp();
    const secret = 'sk-live-"quoted\\secret-123';
    const redactor = new Redactor({ OPENAI_API_KEY: secret });
    const w = new ResultsWriter(dir, { redactor });
    const r = makeResult({ file: 'a.yaml', reply: `my key is ${secret}` });
    r.events?.push({ name: 'function_call', at_ms: 1, args: { api_key: 'abcdefgh12345', city: 'Paris' } });
    w.append(r);
    w.writeSummary(summarize([r]));
    w.close();
    const text = readFileSync(join(dir, 'results.jsonl'), 'utf8');
    expect(text).not.toContain('quoted');
    expect(text).not.toContain('abcdefgh12345');
    const back = readResultsDir(dir).results[0];
    expect(back.turns[1].expectations[1].text).toBe('my key is [redacted]');
    expect(back.events?.at(-1)).toMatchObject({ args: { api_key: '[redacted]', city: 'Paris' } });
  });

  it('writes summary.json whole (a reader never sees half of it)', () => {
    const dir = tmp();
    const w = new ResultsWriter(dir);
    const path = w.writeSummary(summarize([makeResult({ file: 'a.yaml' })]));
    expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ version: 1, ok: true, results: 1 });
  });
});

describe('readResultsFile', () => {
  it('names the file and line of a malformed complete line', () => {
    const dir = tmp();
    const path = join(dir, 'results.jsonl');
    writeFileSync(path, `${JSON.stringify(makeResult({ file: 'a.yaml' }))}\n{"oops": true}\n`);
    expect(() => readResultsFile(path)).toThrow(ResultsFileError);
    expect(() => readResultsFile(path)).toThrow(`${path}:2: not a scenario result: field "file" must be a string`);
    writeFileSync(path, 'not json\n');
    expect(() => readResultsFile(path)).toThrow(/:1: not valid JSON/);
  });

  it('says what is missing when a dir holds no results', () => {
    expect(() => readResultsDir(tmp())).toThrow(/no results\.jsonl here/);
    expect(() => readResultsDir('/nonexistent/earshot-dir')).toThrow(/not a directory/);
  });
});
