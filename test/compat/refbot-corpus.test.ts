import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadScenarioFile, type Scenario } from '../../src/scenario/index.js';
import { runSession } from '../../src/drivers/index.js';
import { AudioEngine } from '../../src/session/index.js';
import { judgeRules, startLlmServer, type LlmServer } from '../support/llm-server.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { newestCorpus, requireCorpus } from './corpora.js';
import { CORPUS_JUDGE, PASSES, REFBOT_TABLE } from './refbot-table.js';

/**
 * Pipecat's newest scripted release scenarios, unchanged, against earshot's
 * reference bot: the judge replaced as `--judge` does (here the rule-based
 * stand-in server, in place of the files' Python TypeSafe classifier), the
 * speech services as `--tts flite --stt sphinx` do (in place of Kokoro and
 * Moonshine). Every scenario the table says can pass does; the table covers
 * every scripted scenario of the corpus, and docs/guide/pipecat-corpus.md
 * says the same.
 */
const CORPUS = newestCorpus();
const ROOT = resolve(import.meta.dirname, '..', '..');

function scripted(): Scenario[] {
  const dir = join(CORPUS, 'scenarios', 'scripted');
  return readdirSync(dir)
    .filter((f) => f.endsWith('.yaml'))
    .sort()
    .flatMap((f) => loadScenarioFile(join(dir, f)).scenarios)
    .filter((s): s is Scenario => s.kind === 'script');
}

let bot: RefbotProcess;
let llm: LlmServer;
let engine: AudioEngine;
const cache = mkdtempSync(join(tmpdir(), 'earshot-refbot-corpus-'));
beforeAll(async () => {
  requireCorpus(CORPUS, "Pipecat's newest release corpus");
  [bot, llm] = await Promise.all([startRefbotProcess(), startLlmServer(judgeRules(CORPUS_JUDGE))]);
  engine = new AudioEngine({ tts: 'flite', stt: 'sphinx', cacheDir: join(cache, 'tts'), record: false });
}, 30_000);
afterAll(async () => {
  await Promise.all([bot?.stop(), llm?.close(), engine?.close()]);
  rmSync(cache, { recursive: true, force: true });
});

describe("Pipecat's newest release evals against the reference bot", () => {
  it('the table classifies every scripted scenario of the corpus, and docs/guide/pipecat-corpus.md lists the same verdicts', () => {
    const ids = scripted().map((s) => s.name);
    expect(ids).toHaveLength(50);
    expect(Object.keys(REFBOT_TABLE).sort()).toEqual([...ids].sort());
    const readme = readFileSync(join(ROOT, 'docs', 'guide', 'pipecat-corpus.md'), 'utf8');
    for (const [id, verdict] of Object.entries(REFBOT_TABLE)) {
      const row = readme.split('\n').find((l) => l.startsWith(`| \`${id}\` |`));
      expect(row, id).toBeDefined();
      expect(row!.includes('| passes |'), id).toBe(verdict === PASSES);
    }
  });

  const passing = (): Scenario[] => scripted().filter((s) => REFBOT_TABLE[s.name] === PASSES);

  it('every scenario that can pass does, unchanged, with --judge/--tts/--stt overrides', async () => {
    const outcomes: string[] = [];
    for (const scenario of passing()) {
      const { result, trace } = await runSession(scenario, {
        url: bot.url,
        media: engine.media,
        noJudgeCache: true,
        judgeOverride: `openai:stand-in@${llm.url}`,
      });
      outcomes.push(
        `${scenario.name}: ${result.status}${result.failures.length ? ` ${result.failures.map((f) => `[${f.kind}] ${f.reason}`).join('; ')}` : ''}`,
      );
      if (result.status !== 'passed') outcomes.push(trace);
    }
    expect(outcomes.filter((o) => !o.endsWith(': passed'))).toEqual([]);
    expect(outcomes).toHaveLength(passing().length);
  }, 600_000);
});
