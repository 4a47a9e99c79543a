import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManualClock } from '../core/clock.js';
import { Redactor } from '../core/redact.js';
import { UsageError } from '../core/errors.js';
import { readResultsDir } from '../results/index.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { REPORTERS, createReporters, parseReporterList, UnknownReporterError, ReporterSpecError } from './registry.js';
import { ReporterError, ReporterSet } from './reporter-set.js';
import { startOf } from './format.js';
import { VirtualTerminal } from './terminal.testutil.js';
import type { Reporter } from './reporter.js';

const tmp = (): string => mkdtempSync(join(tmpdir(), 'earshot-reporters-'));
const io = (): {
  stdout: VirtualTerminal;
  stderr: VirtualTerminal;
  clock: ManualClock;
  redactor: Redactor;
  env: NodeJS.ProcessEnv;
} => ({
  stdout: new VirtualTerminal(false),
  stderr: new VirtualTerminal(false),
  clock: new ManualClock(),
  redactor: new Redactor({}),
  env: {},
});

describe('parseReporterList', () => {
  it('reads a comma list, with optional name=PATH, from one or several --reporter values', () => {
    expect(parseReporterList('list,junit')).toEqual([{ name: 'list' }, { name: 'junit' }]);
    expect(parseReporterList(['dot', 'junit=ci/junit.xml, html'])).toEqual([
      { name: 'dot' },
      { name: 'junit', file: 'ci/junit.xml' },
      { name: 'html' },
    ]);
    expect(parseReporterList('list,list, ,')).toEqual([{ name: 'list' }]);
  });

  it('rejects an unknown name with a usage error listing the known reporters', () => {
    expect(() => parseReporterList('list,xml')).toThrow(UnknownReporterError);
    expect(() => parseReporterList('xml')).toThrow(
      'unknown reporter "xml"; known reporters: list, dot, json, jsonl, junit, html, github',
    );
    expect(() => parseReporterList('toString')).toThrow(UnknownReporterError);
    try {
      parseReporterList('xml');
    } catch (err) {
      expect(err).toBeInstanceOf(UsageError);
      expect((err as UsageError).exitCode).toBe(2);
    }
  });

  it('rejects a file for a terminal reporter, an empty file, and one reporter with two files', () => {
    expect(() => parseReporterList('list=out.txt')).toThrow(ReporterSpecError);
    expect(() => parseReporterList('junit=')).toThrow(/empty file/);
    expect(() => parseReporterList('junit=a.xml,junit=b.xml')).toThrow(/given twice with different files/);
  });
});

describe('createReporters', () => {
  it('adds list when no chosen reporter prints to the terminal', () => {
    const out = tmp();
    expect(createReporters('junit,html', { ...io(), outDir: out }).names).toEqual(['list', 'junit', 'html', 'jsonl']);
    expect(createReporters('json=summary.json', { ...io(), outDir: out }).names).toEqual(['list', 'json', 'jsonl']);
    expect(createReporters('', io()).names).toEqual(['list']);
  });

  it('does not add list when a chosen reporter already prints to the terminal', () => {
    expect(createReporters('dot', io()).names).toEqual(['dot']);
    expect(createReporters('json', io()).names).toEqual(['json']);
    expect(createReporters('github', io()).names).toEqual(['list', 'github']);
  });

  it("calls the caller's own reporters after the named ones; one that prints stands in for list", async () => {
    const seen: string[] = [];
    const quiet: Reporter = { name: 'mine', printsToTerminal: false, onScenarioEnd: (r) => void seen.push(r.name) };
    expect(createReporters('junit', { ...io(), outDir: tmp(), extra: [quiet] }).names).toEqual([
      'list',
      'junit',
      'jsonl',
      'mine',
    ]);
    const loud: Reporter = { name: 'console', printsToTerminal: true };
    expect(createReporters('', { ...io(), extra: [loud] }).names).toEqual(['console']);
    await createReporters('dot', { ...io(), extra: [quiet] }).onScenarioEnd(makeResult({ name: 'x', file: 'x.yaml' }));
    expect(seen).toEqual(['x']);
  });

  it('always streams results.jsonl when there is an output dir', async () => {
    const out = tmp();
    const set = createReporters('dot', { ...io(), outDir: out });
    expect(set.names).toEqual(['dot', 'jsonl']);
    const r = makeResult({ file: 'a.yaml' });
    await set.onScenarioEnd(r);
    expect(readResultsDir(out).results).toEqual([r]);
    const summary = await set.finish({ wall_ms: 12 });
    expect(JSON.parse(readFileSync(join(out, 'summary.json'), 'utf8'))).toEqual(JSON.parse(JSON.stringify(summary)));
  });

  it('says which option a file reporter is missing', () => {
    expect(() => createReporters('junit', io())).toThrow(
      'reporter junit needs an output dir (--out DIR) or a file (junit=PATH)',
    );
    expect(() => createReporters('html', io())).toThrow(UsageError);
  });

  it('writes each file reporter to its default place in the output dir, or to name=PATH', async () => {
    const out = tmp();
    const custom = join(tmp(), 'ci', 'junit-custom.xml');
    const set = createReporters(`junit=${custom},html,json=${join(out, 's.json')}`, { ...io(), outDir: out });
    await set.onScenarioEnd(makeResult({ file: 'a.yaml' }));
    await set.finish();
    expect(existsSync(custom)).toBe(true);
    expect(existsSync(join(out, 'junit.xml'))).toBe(false);
    expect(existsSync(join(out, 'report.html'))).toBe(true);
    expect(JSON.parse(readFileSync(join(out, 's.json'), 'utf8'))).toMatchObject({ results: 1, ok: true });
  });

  it('has a factory for every documented reporter', () => {
    expect(Object.keys(REPORTERS)).toEqual(['list', 'dot', 'json', 'jsonl', 'junit', 'html', 'github']);
  });
});

describe('ReporterSet', () => {
  it('calls every hook of every reporter in order', async () => {
    const calls: string[] = [];
    const spy = (name: string): Reporter => ({
      name,
      printsToTerminal: false,
      onBegin: () => void calls.push(`${name}:begin`),
      onScenarioStart: (i) => void calls.push(`${name}:start ${i.name}`),
      onTurnEnd: (_s, t, f) => void calls.push(`${name}:turn ${t.index} ${f.length}`),
      onScenarioEnd: (r) => void calls.push(`${name}:end ${r.name}`),
      onEnd: (s) => void calls.push(`${name}:done ${s.results}`),
    });
    const set = new ReporterSet([spy('a'), spy('b')], new VirtualTerminal(false));
    const r = makeResult({ file: 'x.yaml', status: 'failed' });
    await set.onBegin({ started_at: '' });
    await set.onScenarioStart(startOf(r));
    await set.onTurnEnd(startOf(r), r.turns[1], r.failures);
    await set.onScenarioEnd(r);
    await set.finish();
    expect(calls).toEqual([
      'a:begin',
      'b:begin',
      'a:start x',
      'b:start x',
      'a:turn 1 1',
      'b:turn 1 1',
      'a:end x',
      'b:end x',
      'a:done 1',
      'b:done 1',
    ]);
  });

  it('keeps going when one reporter throws, then reports every failure at the end', async () => {
    const stderr = new VirtualTerminal(false);
    const seen: string[] = [];
    const broken: Reporter = {
      name: 'broken',
      printsToTerminal: false,
      onScenarioEnd: () => {
        throw new Error('disk full');
      },
    };
    const fine: Reporter = { name: 'fine', printsToTerminal: false, onScenarioEnd: (r) => void seen.push(r.name) };
    const set = new ReporterSet([broken, fine], stderr);
    await set.onScenarioEnd(makeResult({ file: 'a.yaml' }));
    await set.onScenarioEnd(makeResult({ file: 'b.yaml' }));
    expect(seen).toEqual(['a', 'b']);
    expect(stderr.raw).toContain('earshot: reporter broken failed in onScenarioEnd: disk full');
    await expect(set.finish()).rejects.toThrow(ReporterError);
    await expect(set.finish()).rejects.toThrow(
      'reporting failed: broken (onScenarioEnd): disk full; broken (onScenarioEnd): disk full',
    );
  });
});

describe('ReporterSet.replay (earshot merge)', () => {
  it('writes one result file, summary and report from finished results', async () => {
    const out = tmp();
    const results = [
      makeResult({ file: 'b.yaml', shard: '2/2' }),
      makeResult({ file: 'a.yaml', shard: '1/2', status: 'failed' }),
    ];
    const set = createReporters('junit', { ...io(), outDir: out, truncateResults: true });
    const summary = await set.replay(results, { started_at: '', total: 2, title: 'merge' }, { shards: ['1/2', '2/2'] });
    expect(summary).toMatchObject({ results: 2, ok: false, shards: ['1/2', '2/2'] });
    expect(readResultsDir(out).results).toEqual(results);
    expect(readFileSync(join(out, 'junit.xml'), 'utf8')).toContain('<testsuite name="a.yaml" tests="2" failures="1"');
  });
});
