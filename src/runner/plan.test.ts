import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { loadManifest } from '../scenario/index.js';
import { NoRunsError } from './errors.js';
import { executionOrder, planSuite, runKey, type PlannedRun } from './plan.js';

const root = mkdtempSync(join(tmpdir(), 'earshot-plan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scenario(turns: number, name: string): string {
  const list = Array.from({ length: turns }, (_, i) => `  - user: "question ${i}"\n    expect:\n      - event: response\n        text_contains: "answer"\n`);
  return `name: ${name}\nturns:\n${list.join('')}`;
}

/** A project: manifest.yaml, scenarios/ and a simulation, written fresh per test. */
function project(manifest: string, files: Record<string, string> = {}): string {
  const dir = mkdtempSync(join(root, 'p-'));
  mkdirSync(join(dir, 'scenarios'));
  mkdirSync(join(dir, 'extra'));
  const defaults: Record<string, string> = {
    'scenarios/greeting.yaml': scenario(1, 'greeting'),
    'scenarios/weather.yaml': scenario(3, 'weather'),
    'scenarios/story.yaml': scenario(6, 'story'),
    'extra/dtmf.yml': scenario(2, 'dtmf'),
    'scenarios/persona.yaml':
      'name: persona\npersona: "a caller"\ngoal: "ask"\nsuccess: "answered"\nsimulator: { service: openai, model: m }\nruns: 3\npass_threshold: 0.5\n',
  };
  for (const [path, text] of Object.entries({ ...defaults, ...files })) writeFileSync(join(dir, path), text);
  writeFileSync(join(dir, 'manifest.yaml'), manifest);
  return join(dir, 'manifest.yaml');
}

const TWO_BOTS = `
suite:
  - bot: bots/a.py
    scenarios: [greeting, weather]
  - bot: bots/b.py
    scenarios: [greeting, extra/dtmf.yml]
`;

const brief = (runs: PlannedRun[]): string[] => runs.map((r) => `${r.bot} ${r.file} #${r.repeat_index}`);

describe('planSuite', () => {
  it("carries an entry's handshake (earshot: none for a bot without RTVI) into each of its runs", async () => {
    const plan = planSuite(await loadManifest(project(`suite:\n  - bot: bots/raw.py\n    handshake: none\n    scenarios: [greeting]\n  - bot: bots/rtvi.py\n    scenarios: [greeting]\n`)));
    expect(plan.runs.map((r) => [r.bot, r.handshake])).toEqual([
      ['bots/raw.py', 'none'],
      ['bots/rtvi.py', undefined],
    ]);
    await expect(loadManifest(project(`suite:\n  - bot: bots/raw.py\n    handshake: nope\n    scenarios: [greeting]\n`))).rejects.toThrow(/suite\[0\]\.handshake/);
  });

  it('expands bot × scenario in manifest order, with files relative to the manifest', async () => {
    const plan = planSuite(await loadManifest(project(TWO_BOTS)));
    expect(brief(plan.runs)).toEqual([
      'bots/a.py scenarios/greeting.yaml #0',
      'bots/a.py scenarios/weather.yaml #0',
      'bots/b.py scenarios/greeting.yaml #0',
      'bots/b.py extra/dtmf.yml #0',
    ]);
    expect(plan.runs.map((r) => r.ordinal)).toEqual([0, 1, 2, 3]);
    expect(plan.runs[0].bot_path).toBe(join(plan.manifest.bots_dir, 'bots/a.py'));
    expect(plan.runs[3].loaded.kind === 'script' && plan.runs[3].loaded.turns.length).toBe(2);
  });

  it('interleaves repeats repeat-major, as Pipecat does, so each bot meets the same stretch of the sweep', async () => {
    const plan = planSuite(await loadManifest(project(`repeat: 2\n${TWO_BOTS}`)));
    expect(plan.repeat).toBe(2);
    expect(plan.runs.map((r) => `${r.bot[5]}:${r.scenario.name}#${r.repeat_index}`)).toEqual([
      'a:greeting#0', 'a:weather#0', 'b:greeting#0', 'b:dtmf#0',
      'a:greeting#1', 'a:weather#1', 'b:greeting#1', 'b:dtmf#1',
    ]);
    expect(planSuite(plan.manifest, { repeat: 3 }).runs).toHaveLength(12);
  });

  it("multiplies a simulation's repeats by its runs and keeps pass_threshold with it", async () => {
    const plan = planSuite(await loadManifest(project(`repeat: 2\nsuite:\n  - bot: a.py\n    scenarios: [persona, greeting]\n`)));
    const sims = plan.runs.filter((r) => r.loaded.kind === 'simulation');
    expect(sims.map((r) => r.repeat_index)).toEqual([0, 1, 2, 3, 4, 5]);
    expect(plan.runs.filter((r) => r.scenario.name === 'greeting')).toHaveLength(2);
    expect(sims[0].loaded.kind === 'simulation' && sims[0].loaded.pass_threshold).toBe(0.5);
  });

  it('filters by bot substring (-p) and exact scenario name (-s), like Pipecat', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(brief(planSuite(manifest, { pattern: 'b.p' }).runs)).toEqual(['bots/b.py scenarios/greeting.yaml #0', 'bots/b.py extra/dtmf.yml #0']);
    expect(brief(planSuite(manifest, { scenario: 'greeting' }).runs)).toEqual(['bots/a.py scenarios/greeting.yaml #0', 'bots/b.py scenarios/greeting.yaml #0']);
    expect(() => planSuite(manifest, { scenario: 'dtmf', pattern: 'a.py' })).toThrow(/no runs match -p "a.py" and -s "dtmf"/);
  });

  it('says what exists when the filters leave nothing to run', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(() => planSuite(manifest, { scenario: 'greet' })).toThrow(NoRunsError);
    expect(() => planSuite(manifest, { scenario: 'greet' })).toThrow(/no runs match -s "greet" \(bots: bots\/a.py, bots\/b.py; scenarios: greeting, weather, dtmf\)/);
  });

  it('keeps ordinals of the full expansion after filtering, so artifact names never collide across shards', async () => {
    const plan = planSuite(await loadManifest(project(TWO_BOTS)), { pattern: 'b.py' });
    expect(plan.runs.map((r) => r.ordinal)).toEqual([2, 3]);
  });

  it('cuts a deterministic, disjoint, complete and turn-balanced shard of the filtered list', async () => {
    const manifest = await loadManifest(project(`repeat: 3\nsuite:\n  - bot: a.py\n    scenarios: [greeting, weather, story]\n  - bot: b.py\n    scenarios: [weather, story, extra/dtmf.yml]\n`));
    const all = planSuite(manifest).runs;
    const shards = [1, 2, 3].map((index) => planSuite(manifest, { shard: { index, total: 3 } }).runs);
    const keys = shards.flat().map(runKey);
    expect(new Set(keys).size).toBe(all.length);
    expect(keys.sort()).toEqual(all.map(runKey).sort());
    const loads = shards.map((s) => s.reduce((sum, r) => sum + (r.loaded.kind === 'script' ? r.loaded.turns.length : 0), 0));
    expect(Math.max(...loads) - Math.min(...loads)).toBeLessThanOrEqual(6);
    expect(planSuite(manifest, { shard: { index: 2, total: 3 } }).runs.map(runKey)).toEqual(shards[1].map(runKey));
    // Each shard keeps the manifest's order.
    for (const s of shards) expect(s.map((r) => r.ordinal)).toEqual([...s.map((r) => r.ordinal)].sort((a, b) => a - b));
  });

  it('resolves bots against --bots-dir when given', async () => {
    const plan = planSuite(await loadManifest(project(TWO_BOTS)), { botsDir: '/elsewhere' });
    expect(plan.runs[0].bot_path).toBe('/elsewhere/bots/a.py');
  });

  it('refuses a broken scenario before anything runs, with file, line and column', async () => {
    const manifest = await loadManifest(project(TWO_BOTS, { 'scenarios/weather.yaml': 'name: weather\nturns:\n  - user: 5\n    expect: nope\n' }));
    expect(() => planSuite(manifest)).toThrow(UsageError);
    expect(() => planSuite(manifest)).toThrow(/weather\.yaml:\d+:\d+: error: turns\[0\]/);
  });

  it('starts the longest scenarios of each repeat first, keeping repeats in order', async () => {
    const plan = planSuite(await loadManifest(project(`repeat: 2\nsuite:\n  - bot: a.py\n    scenarios: [greeting, weather, story, persona]\n`)));
    const order = executionOrder(plan.runs).map((r) => `${r.scenario.name}#${r.repeat_index}`);
    expect(order.slice(0, 4)).toEqual(['story#0', 'weather#0', 'greeting#0', 'persona#0']);
    expect(order.slice(4, 8)).toEqual(['story#1', 'weather#1', 'greeting#1', 'persona#1']);
    expect(plan.runs[0].scenario.name).toBe('greeting'); // the plan itself keeps manifest order
  });

  it('refuses a repeat below 1', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(() => planSuite(manifest, { repeat: 0 })).toThrow(/repeat must be a whole number/);
  });
});
