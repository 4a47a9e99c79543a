import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { JudgeConfigError } from '../../judge/index.js';
import { loadScenarioFile, ScenarioError, type Simulation } from '../../scenario/index.js';
import { CodeNotAllowedError } from '../../core/code-hooks.js';
import { createSimulationDriver } from './setup.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-sim-setup-'));
writeFileSync(join(dir, 'package.json'), '{}\n');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const BASE =
  'name: s\npersona: "Jamie"\ngoal: "Book."\nsuccess: "booked"\njudge: { eval: { service: openai, model: j, endpoint: "http://127.0.0.1:9/v1" } }\n';
function sim(yaml: string, name = 'sim.yaml'): Simulation {
  writeFileSync(join(dir, name), yaml);
  return loadScenarioFile(join(dir, name)).scenarios[0] as Simulation;
}

describe('building a simulation driver (before any bot is contacted)', () => {
  it('a Pipecat Python factory as simulator is refused, located, unless --simulator replaces it', async () => {
    const s = sim(`${BASE}simulator: { factory: evals.personas.make_llm }\n`);
    await expect(createSimulationDriver(s, { env: {} })).rejects.toThrow(ScenarioError);
    await expect(createSimulationDriver(s, { env: {} })).rejects.toThrow(
      /sim\.yaml:6:\d+: error: simulator\.factory: evals\.personas\.make_llm is a Python callable/,
    );
    const driver = await createSimulationDriver(s, {
      env: {},
      simulatorOverride: { service: 'openai', model: 'p', endpoint: 'http://127.0.0.1:9/v1' },
    });
    expect(driver.plannedTurns()).toEqual([]);
  });

  it('a JavaScript factory runs only with --allow-code, and what it returns plays the caller', async () => {
    writeFileSync(
      join(dir, 'persona.mjs'),
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the template literal is part of the generated JavaScript module's source
      "export function make(config) { return { service: 'custom', model: config.model, endpoint: 'in-process', complete: async (messages) => ({ content: `heard ${messages.length - 1}`, attempts: 1 }) }; }\n",
    );
    const s = sim(`${BASE}simulator: { factory: ./persona.mjs#make, model: mine }\n`, 'factory.yaml');
    await expect(createSimulationDriver(s, { env: {} })).rejects.toThrow(CodeNotAllowedError);
    const driver = await createSimulationDriver(s, { env: {}, allowCode: true });
    const { simulator } = driver.deps;
    expect(simulator.description).toBe('custom/mine @ in-process');
    expect(await simulator.next([{ role: 'bot', text: 'Hello?' }])).toMatchObject({ say: 'heard 1' });
  });

  it('an unusable judge or simulator block is an error naming its field', async () => {
    await expect(createSimulationDriver(sim(`${BASE}simulator: { service: gemini }\n`), { env: {} })).rejects.toThrow(
      /^simulator\.service: unknown simulator service "gemini"/,
    );
    const noKey = sim(
      'name: s\npersona: "Jamie"\ngoal: "Book."\nsuccess: "booked"\nsimulator: { service: ollama }\njudge: { eval: { service: openai } }\n',
      'nokey.yaml',
    );
    await expect(createSimulationDriver(noKey, { env: {} })).rejects.toThrow(JudgeConfigError);
    await expect(
      createSimulationDriver(noKey, { env: {}, judgeOverride: { service: 'ollama', model: 'm' } }),
    ).resolves.toBeDefined();
  });

  it("a built-in GAIA persona name plays as GAIA's description of it; other text as written", async () => {
    writeFileSync(
      join(dir, 'echo.mjs'),
      'export function make() { return { complete: async (messages) => ({ content: messages[0].content, attempts: 1 }) }; }\n',
    );
    const play = async (persona: string, name: string): Promise<unknown> => {
      const s = sim(`${BASE.replace('"Jamie"', persona)}simulator: { factory: ./echo.mjs#make }\n`, name);
      const driver = await createSimulationDriver(s, { env: {}, allowCode: true });
      return driver.deps.simulator.next([]);
    };
    expect(await play('power_user', 'builtin.yaml')).toMatchObject({
      say: expect.stringContaining('Who you are: Precise requests, specific file names, multi-step instructions'),
    });
    expect(await play('"Jamie, in a hurry"', 'custom.yaml')).toMatchObject({
      say: expect.stringContaining('Who you are: Jamie, in a hurry'),
    });
  });
});
