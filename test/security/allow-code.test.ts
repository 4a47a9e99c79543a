import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { ROOT } from '../support/paths.js';
import { earshot, readResults } from '../suite/cli.testutil.js';

/**
 * `factory:` code hooks run the scenario author's code, so they load only
 * with --allow-code. The hook here is a custom STT (fixtures/code/tiny-stt.mjs)
 * that leaves a mark when imported and "hears" how many seconds it was given.
 */
const here = (p: string): string => join(ROOT, 'test', 'security', 'fixtures', p);
const shortBrain = join(ROOT, 'test', 'faults', 'fixtures', 'short-brain.yaml');

let bot: RefbotProcess;
beforeAll(async () => {
  bot = await startRefbotProcess(['--brain', shortBrain]);
});
afterAll(async () => {
  await bot?.stop();
});

function run(extra: string[]): Promise<{ out: string; marker: string; code: number | null; stderr: string }> {
  const out = mkdtempSync(join(tmpdir(), 'earshot-allow-code-'));
  const marker = join(out, 'hook-imported.txt');
  const scenarios = [here('factory_stt.yaml'), join(ROOT, 'test', 'faults', 'fixtures', 'one_question.yaml')];
  return earshot(['run', ...scenarios, '--url', bot.url, '--out', out, '--reporter', 'dot', ...extra], {
    EARSHOT_TEST_HOOK_MARKER: marker,
  }).done.then((r) => ({
    out,
    marker,
    code: r.code,
    stderr: r.stderr,
  }));
}

describe('--allow-code', () => {
  it('without it, a scenario naming a factory: is an error that says how to allow it, its module is never imported, and the run goes on', async () => {
    const r = await run([]);
    expect(existsSync(r.marker)).toBe(false);
    const [hooked, plain] = readResults(r.out);
    expect(hooked).toMatchObject({
      name: 'factory_stt',
      status: 'error',
      error: 'scenario names code hooks (judge.transcription.factory); rerun with --allow-code to load them',
    });
    expect(hooked.turns.every((t) => t.status === 'not_run')).toBe(true);
    expect(plain).toMatchObject({ name: 'fault_one_question', status: 'passed' });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/internal error|\n\s+at /);
  }, 30_000);

  it('with it, the module is imported and its provider used: the reply is what the custom STT heard', async () => {
    const r = await run(['--allow-code']);
    expect(readFileSync(r.marker, 'utf8')).toMatch(/^tiny-stt imported by pid \d+\n$/);
    const [hooked, plain] = readResults(r.out);
    expect(hooked.status).toBe('passed');
    expect(hooked.turns[0].expectations[0].text).toMatch(/^factory heard \d+ seconds$/);
    expect(plain.status).toBe('passed');
    expect(r.code).toBe(0);
  }, 30_000);

  it('a judge.eval.factory loads only with --allow-code; without it the scenario is refused before connecting', async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-allow-code-judge-'));
    const marker = join(out, 'hook-imported.txt');
    const refused = await earshot(
      ['run', here('factory_judge.yaml'), '--url', bot.url, '--out', out, '--reporter', 'dot'],
      { EARSHOT_TEST_HOOK_MARKER: marker },
    ).done;
    expect(existsSync(marker)).toBe(false);
    expect(readResults(out)[0]).toMatchObject({
      status: 'error',
      error: 'scenario names code hooks (judge.eval.factory); rerun with --allow-code to load them',
    });
    expect(refused.code).toBe(1);
    const allowed = mkdtempSync(join(tmpdir(), 'earshot-allow-code-judge-'));
    const r = await earshot(
      ['run', here('factory_judge.yaml'), '--url', bot.url, '--out', allowed, '--reporter', 'dot', '--allow-code'],
      { EARSHOT_TEST_HOOK_MARKER: marker },
    ).done;
    expect(readFileSync(marker, 'utf8')).toMatch(/^tiny-judge imported by pid \d+\n$/);
    const [result] = readResults(allowed);
    expect(result.status).toBe('passed');
    expect(result.turns[0].expectations[0].judge_reason).toBe('tiny-judge says yes');
    expect(r.code).toBe(0);
  }, 30_000);
});
