import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../../core/redact.js';
import { summarize, type GaiaResult, type RunSummary } from '../../results/index.js';
import { ragResult } from '../../results/gaia-fixtures.testutil.js';
import { writeHtmlReport } from './html.js';

interface Island {
  summary: RunSummary;
  results: Array<{ gaia?: GaiaResult; category?: string; severity?: string }>;
}

function island(html: string): Island {
  const m = /<script type="application\/json" id="earshot-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no data island');
  return JSON.parse(m[1]) as Island;
}

describe('HTML report: GAIA scenarios', () => {
  it('carries the GAIA scores, tags and summary groups in its data, and the grid in its own script', () => {
    const dir = mkdtempSync(join(tmpdir(), 'earshot-html-gaia-'));
    const results = [ragResult()];
    const file = writeHtmlReport(results, summarize(results), {
      file: join(dir, 'report.html'),
      resultsDir: dir,
      redactor: new Redactor({}),
    });
    const html = readFileSync(file, 'utf8');
    const data = island(html);
    expect(data.results[0]).toMatchObject({ category: 'rag_quality', severity: 'critical' });
    expect(data.results[0].gaia?.turns.map((t) => t.dimensions[1].applicable)).toEqual([false, false]);
    expect(data.summary.categories).toEqual({
      rag_quality: { runs: 1, passed: 0, pass_rate: 0, mean_total: 7.179 },
    });
    expect(data.summary.severities).toEqual({ critical: { runs: 1, passed: 0, pass_rate: 0 } });
    // Still one self-contained page: the grid is drawn by the inline script, no other script or fetch.
    expect(html).toContain("el('table', { class: 'gaia-grid' }");
    expect(html.match(/<script/gi)).toHaveLength(2);
  });
});
