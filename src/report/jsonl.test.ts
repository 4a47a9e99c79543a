import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { readResultsDir, summarize } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { createJsonlReporter } from './jsonl.js';
import { createJsonReporter } from './json.js';
import { VirtualTerminal } from './terminal.testutil.js';

const base = (): {
  stdout: VirtualTerminal;
  stderr: VirtualTerminal;
  env: NodeJS.ProcessEnv;
  clock: ManualClock;
  redactor: Redactor;
} => ({
  stdout: new VirtualTerminal(false),
  stderr: new VirtualTerminal(false),
  env: {},
  clock: new ManualClock(),
  redactor: new Redactor({}),
});

describe('jsonl reporter', () => {
  it('has each result on disk as soon as its scenario ends, and summary.json at the end', () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-jsonl-'));
    const jsonl = createJsonlReporter({ ...base(), outDir: out });
    const a = makeResult({ file: 'a.yaml' });
    jsonl.onScenarioEnd?.(a);
    expect(readResultsDir(out).results).toEqual([a]);
    jsonl.onEnd?.(summarize([a]));
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toMatchObject({ results: 1 });
  });

  it('starts from an empty file when asked to (a merge rewriting its output)', () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-jsonl-'));
    createJsonlReporter({ ...base(), outDir: out }).onScenarioEnd?.(makeResult({ file: 'old.yaml' }));
    createJsonlReporter({ ...base(), outDir: out, truncateResults: true }).onScenarioEnd?.(
      makeResult({ file: 'new.yaml' }),
    );
    expect(readResultsDir(out).results.map((r) => r.file)).toEqual(['new.yaml']);
  });
});

describe('json reporter', () => {
  it('prints the summary to stdout, or writes it to json=PATH and then prints nothing', () => {
    const io = base();
    const toStdout = createJsonReporter(io);
    expect(toStdout.printsToTerminal).toBe(true);
    toStdout.onEnd?.(summarize([makeResult({ file: 'a.yaml' })]));
    expect(JSON.parse(io.stdout.raw)).toMatchObject({ version: 1, ok: true, counts: { passed: 1 } });
    const file = join(mkdtempSync(join(tmpdir(), 'earshot-json-')), 'deep', 'summary.json');
    const io2 = base();
    const toFile = createJsonReporter({ ...io2, file });
    expect(toFile.printsToTerminal).toBe(false);
    toFile.onEnd?.(summarize([makeResult({ file: 'a.yaml', status: 'failed' })]));
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ ok: false });
    expect(io2.stdout.raw).toBe('');
  });
});
