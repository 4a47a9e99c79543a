import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_SCORECARD_WEIGHTS } from '../scenario/index.js';
import type { ScenarioResult } from '../results/index.js';
import { keepArtifacts } from './artifacts.js';

const dir = mkdtempSync(join(tmpdir(), 'earshot-artifacts-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const base: ScenarioResult = {
  name: 'simple_factual_rag',
  file: '/s/simple_factual_rag.yaml',
  status: 'passed',
  started_at: '2026-12-07T00:00:00.000Z',
  duration_ms: 10,
  turns: [],
  failures: [],
};
const gaia = {
  id: 'simple_factual_rag',
  persona: 'power_user',
  documents: [],
  weights: { ...DEFAULT_SCORECARD_WEIGHTS },
  pass_threshold: 7,
  calls_visible: true,
  total: 9,
  passed: true,
  turns: [],
};

describe('traces/<id>.json for GAIA scenarios', () => {
  it('holds the scores, the status and the evidence; a second run of the id gets its own file', async () => {
    const evidence = {
      transcript: [{ kind: 'caller', at_ms: 5, text: 'hi' }],
      judge_answers: [{ turn: 1, raw: '{}' }],
    };
    const kept = await keepArtifacts(dir, '001-a', { ...base, gaia }, 'trace\n', undefined, {}, evidence);
    expect(kept.artifacts).toEqual({ trace: '001-a.trace.log', gaia_trace: 'traces/simple_factual_rag.json' });
    const trace = JSON.parse(readFileSync(join(dir, 'traces', 'simple_factual_rag.json'), 'utf8'));
    expect(trace).toEqual({ ...gaia, status: 'passed', ...evidence });
    await keepArtifacts(dir, '002-a', { ...base, gaia }, 'trace\n', undefined);
    expect(existsSync(join(dir, 'traces', 'simple_factual_rag.2.json'))).toBe(true);
  });

  it('writes none for any other scenario', async () => {
    const other = mkdtempSync(join(tmpdir(), 'earshot-artifacts-'));
    await keepArtifacts(other, '001-b', base, 'trace\n', undefined);
    expect(existsSync(join(other, 'traces'))).toBe(false);
    rmSync(other, { recursive: true, force: true });
  });

  it("writes a NeMo run's <stem>.metrics.json beside its trace and points the result at it", async () => {
    const out = mkdtempSync(join(tmpdir(), 'earshot-artifacts-'));
    const nemo = {
      is_successful: true as const,
      is_task_successful: true as const,
      success_breakdown: { passed: ['clean_exit' as const], failed: [], not_applicable: [], excluded: [] },
      signals: [{ signal: 'clean_exit' as const, value: true, reason: 'the bot called EndConversationTool' }],
      stop_reason: '[EXIT]',
      agent_turns: 4,
      below_min_agent_turns: false,
      min_agent_turns: 3,
    };
    const simulation = {
      ended_by: 'bot_exit' as const,
      end_detail: 'the bot called EndConversationTool',
      persona_turns: 3,
      duration_s: 9,
      transcript: [],
      success: { criterion: 'c', verdict: 'yes' as const, reason: '' },
      metrics: [],
      passed: true,
      simulator: 'sim',
      nemo,
    };
    const kept = await keepArtifacts(out, '001-n', { ...base, simulation }, 'trace\n', undefined);
    expect(kept.artifacts).toEqual({ trace: '001-n.trace.log', metrics: '001-n.metrics.json' });
    const metrics = JSON.parse(readFileSync(join(out, '001-n.metrics.json'), 'utf8'));
    expect(metrics).toMatchObject({ scenario_name: 'simple_factual_rag', is_successful: true, clean_exit: true });
    await keepArtifacts(out, '002-n', base, 'trace\n', undefined);
    expect(existsSync(join(out, '002-n.metrics.json'))).toBe(false);
    rmSync(out, { recursive: true, force: true });
  });
});
