import { describe, expect, it } from 'vitest';
import { Redactor } from '../core/redact.js';
import { summarize } from '../results/index.js';
import { ragResult } from '../results/gaia-fixtures.testutil.js';
import { renderGithubSummary } from './github.js';

describe('GitHub job summary: GAIA scenarios', () => {
  it('tags the scenario row and adds tables per category, dimension and severity', () => {
    const results = [ragResult()];
    const md = renderGithubSummary(results, summarize(results), new Redactor({}));
    expect(md).toContain('| ❌ | simple\\_factual\\_rag \\[rag\\_quality · critical\\] |');
    expect(md).toContain('| rag\\_quality | 1 | 0 | 0% | 7.18 |');
    expect(md).toContain('| C correctness | 5.00 | 2 |');
    expect(md).not.toContain('tool selection |');
    expect(md).toContain('| critical | 1 | 0 | 0% |');
  });
});
