import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { UsageError } from '../core/errors.js';
import { loadManifest } from '../scenario/index.js';
import { NoRunsError } from './errors.js';
import type { RunnableFilter } from './select.js';
import {
  durationKey,
  executionOrder,
  expectedDurations,
  planSuite,
  runKey,
  runWeight,
  SIMULATION_WEIGHT_TURNS,
  type PlannedRun,
} from './plan.js';
import { previousDurations } from './durations.js';

const root = mkdtempSync(join(tmpdir(), 'earshot-plan-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function scenario(turns: number, name: string): string {
  const list = Array.from(
    { length: turns },
    (_, i) => `  - user: "question ${i}"\n    expect:\n      - event: response\n        text_contains: "answer"\n`,
  );
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
    'extra/dtmf.yaml': scenario(2, 'dtmf'),
    'scenarios/persona.yaml':
      'name: persona\npersona: "a caller"\ngoal: "ask"\nsuccess: "answered"\nsimulator: { service: openai, model: m }\nruns: 3\npass_threshold: 0.5\n',
  };
  for (const [path, text] of Object.entries({ ...defaults, ...files })) writeFileSync(join(dir, path), text);
  writeFileSync(join(dir, 'manifest.yaml'), manifest);
  return join(dir, 'manifest.yaml');
}

/** One file, three scenarios: two scripted, one simulation, with a file-level default. */
const WEATHER_LIST = `name: weather
stop_on_failure: false
scenarios:
  - name: rain
    turns:
      - user: "Will it rain?"
        expect: [{ event: response, text_contains: "rain" }]
  - name: sun
    turns:
      - user: "Sunny?"
        expect: [{ event: response }]
      - user: "Warm?"
        expect: [{ event: response }]
  - name: caller
    persona: "a caller"
    goal: "ask"
    success: "answered"
    simulator: { service: openai, model: m }
    runs: 2
`;

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
    const plan = planSuite(
      await loadManifest(
        project(
          `suite:\n  - bot: bots/raw.py\n    handshake: none\n    scenarios: [greeting]\n  - bot: bots/rtvi.py\n    scenarios: [greeting]\n`,
        ),
      ),
    );
    expect(plan.runs.map((r) => [r.bot, r.handshake])).toEqual([
      ['bots/raw.py', 'none'],
      ['bots/rtvi.py', undefined],
    ]);
    await expect(
      loadManifest(project(`suite:\n  - bot: bots/raw.py\n    handshake: nope\n    scenarios: [greeting]\n`)),
    ).rejects.toThrow(/suite\[0\]\.handshake/);
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
      'a:greeting#0',
      'a:weather#0',
      'b:greeting#0',
      'b:dtmf#0',
      'a:greeting#1',
      'a:weather#1',
      'b:greeting#1',
      'b:dtmf#1',
    ]);
    expect(planSuite(plan.manifest, { repeat: 3 }).runs).toHaveLength(12);
  });

  it('runs a simulation its own runs: times, unless a repeat is set (manifest or flag, 1 included), as Pipecat', async () => {
    const unset = planSuite(await loadManifest(project(`suite:\n  - bot: a.py\n    scenarios: [persona, greeting]\n`)));
    const sims = unset.runs.filter((r) => r.loaded.kind === 'simulation');
    expect(sims.map((r) => r.repeat_index)).toEqual([0, 1, 2]);
    expect(sims[0].loaded.kind === 'simulation' && sims[0].loaded.pass_threshold).toBe(0.5);
    expect(unset.runs.filter((r) => r.id === 'greeting')).toHaveLength(1);
    const inManifest = planSuite(
      await loadManifest(project(`repeat: 2\nsuite:\n  - bot: a.py\n    scenarios: [persona, greeting]\n`)),
    );
    expect(inManifest.runs.map((r) => `${r.id}#${r.repeat_index}`)).toEqual([
      'persona#0',
      'greeting#0',
      'persona#1',
      'greeting#1',
    ]);
    expect(planSuite(unset.manifest, { repeat: 1 }).runs.map((r) => r.id)).toEqual(['persona', 'greeting']);
  });

  it('runs every scenario of a file a manifest entry names, each named <file name>/<scenario name>', async () => {
    const manifest = await loadManifest(
      project('suite:\n  - bot: a.py\n    scenarios: [weather, greeting]\n', {
        'scenarios/weather.yaml': WEATHER_LIST,
      }),
    );
    const plan = planSuite(manifest);
    expect(plan.runs.map((r) => `${r.id}#${r.repeat_index} ${r.file} ${r.loaded.kind}`)).toEqual([
      'weather/rain#0 scenarios/weather.yaml script',
      'weather/sun#0 scenarios/weather.yaml script',
      'weather/caller#0 scenarios/weather.yaml simulation',
      'greeting#0 scenarios/greeting.yaml script',
      'weather/caller#1 scenarios/weather.yaml simulation', // its own runs: 2
    ]);
    expect(new Set(plan.runs.map(runKey)).size).toBe(5);
    expect(plan.runs[1].loaded.kind === 'script' && plan.runs[1].loaded.turns.length).toBe(2);
  });

  it('filters -s by the full <file>/<scenario> name, either half of it, the manifest name for the file, or a glob', async () => {
    const manifest = await loadManifest(
      project('suite:\n  - bot: a.py\n    scenarios: [weather, greeting]\n', {
        'scenarios/weather.yaml': WEATHER_LIST,
      }),
    );
    const ids = (scenario: string): string[] => [...new Set(planSuite(manifest, { scenario }).runs.map((r) => r.id))];
    expect(ids('weather/sun')).toEqual(['weather/sun']);
    expect(ids('weather')).toEqual(['weather/rain', 'weather/sun', 'weather/caller']);
    expect(ids('rain')).toEqual(['weather/rain']);
    expect(ids('weather/s*')).toEqual(['weather/sun']);
    expect(ids('*/ca??er')).toEqual(['weather/caller']);
    expect(ids('greeting')).toEqual(['greeting']);
    expect(() => ids('weather/su')).toThrow(
      /no runs match -s "weather\/su" \(bots: a.py; scenarios: weather\/rain, weather\/sun, weather\/caller \(simulation\), greeting\)/,
    );
  });

  it('filters -k by kind: script or simulation', async () => {
    const manifest = await loadManifest(
      project('suite:\n  - bot: a.py\n    scenarios: [weather, persona]\n', { 'scenarios/weather.yaml': WEATHER_LIST }),
    );
    expect(planSuite(manifest, { kind: 'script' }).runs.map((r) => r.id)).toEqual(['weather/rain', 'weather/sun']);
    expect([...new Set(planSuite(manifest, { kind: 'simulation' }).runs.map((r) => r.id))]).toEqual([
      'weather/caller',
      'persona',
    ]);
    expect(() => planSuite(manifest, { kind: 'simulation', scenario: 'rain' })).toThrow(
      /no runs match -s "rain" and -k simulation/,
    );
  });

  it("keys runs on an entry's name: label, so one bot may run a scenario under two labels, each with its own body and cap", async () => {
    const manifest = await loadManifest(
      project(
        'suite:\n  - bot: a.py\n    name: fast\n    concurrency: 1\n    runner_body: {data: {model: small}}\n    scenarios: [greeting]\n  - bot: a.py\n    name: slow\n    scenarios: [greeting]\n',
      ),
    );
    const runs = planSuite(manifest).runs;
    expect(runs.map((r) => [r.label, r.bot, r.runner_body_data, r.concurrency])).toEqual([
      ['fast', 'a.py', { model: 'small' }, 1],
      ['slow', 'a.py', undefined, undefined],
    ]);
    expect(new Set(runs.map(runKey)).size).toBe(2);
    expect(planSuite(manifest, { pattern: 'slo' }).runs.map((r) => r.label)).toEqual(['slow']);
    expect(planSuite(manifest, { pattern: 'a.py' }).runs).toHaveLength(2);
  });

  it('refuses, located in the manifest, a label that runs one scenario twice', async () => {
    const manifest = await loadManifest(
      project('suite:\n  - bot: a.py\n    scenarios: [greeting]\n  - bot: a.py\n    scenarios: [greeting]\n'),
    );
    expect(() => planSuite(manifest)).toThrow(
      /manifest\.yaml:5:\d+: error: suite\[1\]\.scenarios\[0\]: 'a\.py' runs 'greeting' twice/,
    );
  });

  it("collects the manifest's and its files' warnings for the runner to print, and with strict refuses them", async () => {
    const misspelled =
      'name: greeting\nscenarios:\n  - name: hi\n    turns:\n      - user: "hi"\n        expect:\n          - event: response\n            text_contians: "hello"\n';
    const manifest = await loadManifest(
      project('suite:\n  - bot: a.py\n    scenarios: [greeting, weather]\n', { 'scenarios/greeting.yaml': misspelled }),
    );
    const plan = planSuite(manifest);
    expect(plan.warnings.map((d) => `${d.line}:${d.col} ${d.message}`)).toEqual([
      expect.stringMatching(/^8:13 .*text_contians.*text_contains/),
      expect.stringMatching(/^2:1 .*deprecated/),
    ]);
    expect(() => planSuite(manifest, { strict: true })).toThrow(/greeting\.yaml:8:13: error: .*text_contians/);
  });

  it('resolves bare names under --scenarios-dir instead of the manifest’s scenarios_dir', async () => {
    const path = project('suite:\n  - bot: a.py\n    scenarios: [dtmf]\n');
    await expect(loadManifest(path)).rejects.toThrow(/scenario not found: dtmf/);
    const manifest = await loadManifest(path, { scenariosDir: join(path, '..', 'extra') });
    expect(manifest.scenarios_dir).toBe(join(path, '..', 'extra'));
    expect(planSuite(manifest).runs.map((r) => r.file)).toEqual(['extra/dtmf.yaml']);
  });

  it('filters by bot substring (-p) and exact scenario name (-s), like Pipecat', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(brief(planSuite(manifest, { pattern: 'b.p' }).runs)).toEqual([
      'bots/b.py scenarios/greeting.yaml #0',
      'bots/b.py extra/dtmf.yml #0',
    ]);
    expect(brief(planSuite(manifest, { scenario: 'greeting' }).runs)).toEqual([
      'bots/a.py scenarios/greeting.yaml #0',
      'bots/b.py scenarios/greeting.yaml #0',
    ]);
    expect(() => planSuite(manifest, { scenario: 'dtmf', pattern: 'a.py' })).toThrow(
      /no runs match -p "a.py" and -s "dtmf"/,
    );
  });

  it('says what exists when the filters leave nothing to run', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(() => planSuite(manifest, { scenario: 'greet' })).toThrow(NoRunsError);
    expect(() => planSuite(manifest, { scenario: 'greet' })).toThrow(
      /no runs match -s "greet" \(bots: bots\/a.py, bots\/b.py; scenarios: greeting, weather, dtmf\)/,
    );
  });

  it('keeps ordinals of the full expansion after filtering, so artifact names never collide across shards', async () => {
    const plan = planSuite(await loadManifest(project(TWO_BOTS)), { pattern: 'b.py' });
    expect(plan.runs.map((r) => r.ordinal)).toEqual([2, 3]);
  });

  it('cuts a deterministic, disjoint, complete and turn-balanced shard of the filtered list', async () => {
    const manifest = await loadManifest(
      project(
        `repeat: 3\nsuite:\n  - bot: a.py\n    scenarios: [greeting, weather, story]\n  - bot: b.py\n    scenarios: [weather, story, extra/dtmf.yml]\n`,
      ),
    );
    const all = planSuite(manifest).runs;
    const shards = [1, 2, 3].map((index) => planSuite(manifest, { shard: { index, total: 3 } }).runs);
    const keys = shards.flat().map(runKey);
    expect(new Set(keys).size).toBe(all.length);
    expect(keys.sort()).toEqual(all.map(runKey).sort());
    const loads = shards.map((s) =>
      s.reduce((sum, r) => sum + (r.loaded.kind === 'script' ? r.loaded.turns.length : 0), 0),
    );
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
    const manifest = await loadManifest(
      project(TWO_BOTS, { 'scenarios/weather.yaml': 'name: weather\nturns:\n  - user: 5\n    expect: nope\n' }),
    );
    expect(() => planSuite(manifest)).toThrow(UsageError);
    expect(() => planSuite(manifest)).toThrow(/weather\.yaml:\d+:\d+: error: turns\[0\]/);
  });

  it('starts the longest scenarios of each repeat first, keeping repeats in order (a simulation weighs its max_turns, capped)', async () => {
    const plan = planSuite(
      await loadManifest(
        project(`repeat: 2\nsuite:\n  - bot: a.py\n    scenarios: [greeting, weather, story, persona]\n`),
      ),
    );
    const order = executionOrder(plan.runs).map((r) => `${r.scenario.name}#${r.repeat_index}`);
    expect(order.slice(0, 4)).toEqual(['story#0', 'persona#0', 'weather#0', 'greeting#0']);
    expect(order.slice(4, 8)).toEqual(['story#1', 'persona#1', 'weather#1', 'greeting#1']);
    expect(runWeight(plan.runs.find((r) => r.loaded.kind === 'simulation')!)).toBe(SIMULATION_WEIGHT_TURNS);
    expect(plan.runs[0].scenario.name).toBe('greeting'); // the plan itself keeps manifest order
  });

  it('keeps only the scenarios of the --category / --severity asked for (earshot extension), and says what there was when none match', async () => {
    const files = {
      'scenarios/greeting.yaml': 'name: greeting\ncategory: smalltalk\nseverity: low\nturns:\n  - user: hi\n',
      'scenarios/persona.yaml':
        'name: persona\ncategory: booking\nseverity: critical\npersona: "a caller"\ngoal: "ask"\nsuccess: "answered"\nsimulator: { service: openai, model: m }\n',
    };
    const manifest = await loadManifest(
      project(`suite:\n  - bot: a.py\n    scenarios: [greeting, weather, persona]\n`, files),
    );
    const ids = (filter: RunnableFilter): string[] => planSuite(manifest, { filter }).runs.map((r) => r.id);
    expect(ids({ categories: ['booking'] })).toEqual(['persona']);
    expect(ids({ severities: ['low', 'critical'] })).toEqual(['greeting', 'persona']);
    expect(() => ids({ categories: ['booking'], severities: ['low'] })).toThrow(
      /no runs match --category booking --severity low \(bots: a\.py; scenarios: greeting, weather, persona \(simulation\)\)/,
    );
  });

  it('orders by earlier durations where known, estimating new scenarios from their turns', async () => {
    const plan = planSuite(
      await loadManifest(project(`suite:\n  - bot: a.py\n    scenarios: [greeting, weather, story, persona]\n`)),
    );
    const byName = new Map(plan.runs.map((r) => [r.scenario.name, r]));
    const turns = (n: string): number => runWeight(byName.get(n)!);
    // greeting was slow last time (a bot that waits out a timeout), story quick; persona is new.
    const known = new Map([
      [durationKey(byName.get('greeting')!), 9000],
      [durationKey(byName.get('story')!), 100 * turns('story')],
      [durationKey(byName.get('weather')!), 300 * turns('weather')],
    ]);
    const order = executionOrder(plan.runs, known).map((r) => r.scenario.name);
    expect(order[0]).toBe('greeting');
    // persona's estimate: its turns × the median ms per turn of the known runs.
    const perTurn = [9000 / turns('greeting'), 100, 300].sort((a, b) => a - b)[1];
    expect(expectedDurations(plan.runs, known)[plan.runs.indexOf(byName.get('persona')!)]).toBe(
      turns('persona') * perTurn,
    );
    // Repeat-major (a simulation's own `runs:` are repeats), longest first within a repeat, plan order on ties.
    const expected = plan.runs.map((r, i) => ({
      name: r.scenario.name,
      repeat: r.repeat_index,
      ordinal: r.ordinal,
      ms: expectedDurations(plan.runs, known)[i],
    }));
    expect(order).toEqual(
      [...expected].sort((a, b) => a.repeat - b.repeat || b.ms - a.ms || a.ordinal - b.ordinal).map((e) => e.name),
    );
    // Durations of another bot's label do not apply.
    const other = new Map([[durationKey({ ...byName.get('persona')!, label: 'b.py' }), 1e6]]);
    expect(executionOrder(plan.runs, other).map((r) => r.scenario.name)).toEqual(
      executionOrder(plan.runs).map((r) => r.scenario.name),
    );
  });

  it('reads durations from the newest earlier results beside the output folder, averaging repeats', () => {
    const runs = mkdtempSync(join(tmpdir(), 'earshot-durations-'));
    try {
      const line = (name: string, ms: number, repeat = 0): string =>
        JSON.stringify({ file: 'scenarios/s.yaml', name, duration_ms: ms, run: { bot: 'a.py', repeat_index: repeat } });
      mkdirSync(join(runs, 'old'));
      writeFileSync(join(runs, 'old', 'results.jsonl'), `${line('s/slow', 1)}\n`);
      mkdirSync(join(runs, 'new'));
      writeFileSync(
        join(runs, 'new', 'results.jsonl'),
        `${line('s/slow', 4000)}\n${line('s/slow', 6000, 1)}\nnot json\n${line('s/quick', 200)}\n{"file":"x"}\n`,
      );
      utimesSync(join(runs, 'old', 'results.jsonl'), new Date(1000), new Date(1000));
      const known = previousDurations(join(runs, 'this-run'));
      expect(Object.fromEntries(known)).toEqual({
        [durationKey({ file: 'scenarios/s.yaml', id: 's/slow', label: 'a.py' })]: 5000,
        [durationKey({ file: 'scenarios/s.yaml', id: 's/quick', label: 'a.py' })]: 200,
      });
      expect(previousDurations(join(runs, 'missing', 'deeper')).size).toBe(0);
    } finally {
      rmSync(runs, { recursive: true, force: true });
    }
  });

  it('refuses a repeat below 1', async () => {
    const manifest = await loadManifest(project(TWO_BOTS));
    expect(() => planSuite(manifest, { repeat: 0 })).toThrow(/repeat must be a whole number/);
  });
});
