import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../../core/redact.js';
import { summarize, type ScenarioResult } from '../../results/index.js';
import { makeResult, stereoWav } from '../../results/fixtures.testutil.js';
import { jsonForScript, writeHtmlReport } from './html.js';
import { buildReportModel } from './model.js';

const HOSTILE = '</script><script>alert(1)</script><img src=x onerror=alert(2)> <!-- \u2028 & sk-html-secret-99';
const redactor = new Redactor({ ANTHROPIC_API_KEY: 'sk-html-secret-99' });

function report(results: ScenarioResult[], reportSubdir = ''): { html: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'earshot-html-'));
  mkdirSync(join(dir, 'recordings'));
  writeFileSync(join(dir, 'recordings', 'a.wav'), stereoWav(1, 8000, [[0, 0.4]], [[0.5, 0.9]]));
  writeFileSync(join(dir, 'recordings', 'broken.wav'), 'RIFF....WAVEjunk');
  const file = writeHtmlReport(results, summarize(results), {
    file: join(dir, reportSubdir, 'report.html'),
    resultsDir: dir,
    redactor,
  });
  return { html: readFileSync(file, 'utf8'), dir };
}

function island(html: string): unknown {
  const m = /<script type="application\/json" id="earshot-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error('no data island');
  return JSON.parse(m[1]);
}

describe('HTML report file', () => {
  it('is one file whose only scripts are its own: the data island cannot close its script element', () => {
    const { html } = report([makeResult({ file: 'a.yaml', reply: HOSTILE })]);
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html.match(/<script/gi)).toHaveLength(2);
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<!--');
    const data = island(html) as { results: Array<{ turns: ScenarioResult['turns'] }> };
    expect(data.results[0].turns[1].expectations[1].text).toBe(HOSTILE.replace('sk-html-secret-99', '[redacted]'));
  });

  it('round-trips any string through the data island unchanged', () => {
    const tricky = ['</script>', '</script>', '<!--<script>', '\u2028\u2029', '&amp;', '"\\', '\ud83d\ude00'];
    const text = jsonForScript({ tricky });
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual({ tricky });
  });

  it('forbids remote loads with a CSP that allows exactly its own inline script and style', () => {
    const { html } = report([makeResult({ file: 'a.yaml' })]);
    const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(html)?.[1] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("media-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:|\*/);
    const hash = (s: string): string => `'sha256-${createHash('sha256').update(s).digest('base64')}'`;
    const script = /<script>([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    const style = /<style>([\s\S]*?)<\/style>/.exec(html)?.[1] ?? '';
    expect(csp).toContain(`script-src ${hash(script)}`);
    expect(csp).toContain(`style-src ${hash(style)}`);
    const urls = html.match(/https?:\/\/[^\s'"<>)]+/g) ?? [];
    expect(new Set(urls)).toEqual(new Set(['http://www.w3.org/2000/svg']));
  });

  it('redacts secrets everywhere in the report', () => {
    const r = makeResult({ file: 'a.yaml', status: 'failed', reply: 'key sk-html-secret-99' });
    r.failures[0].reason = 'Authorization: Bearer abcdefghijklmnop and sk-html-secret-99';
    const { html } = report([r]);
    expect(html).not.toContain('sk-html-secret-99');
    expect(html).not.toContain('abcdefghijklmnop');
  });

  it('links the recording relative to the report and draws its waveform from the WAV', () => {
    const { html } = report([makeResult({ file: 'a.yaml', recording: 'recordings/a.wav' })], 'site/reports');
    const data = island(html) as { results: Array<{ recording: { src: string; envelope: { channels: string[] } } }> };
    expect(data.results[0].recording.src).toBe('../../recordings/a.wav');
    expect(data.results[0].recording.envelope.channels).toHaveLength(2);
  });

  it('says so when a recording is missing or unreadable, instead of failing the report', () => {
    const missing = makeResult({ file: 'a.yaml', recording: 'recordings/gone.wav' });
    const broken = makeResult({ file: 'b.yaml', recording: 'recordings/broken.wav' });
    const { html } = report([missing, broken]);
    const data = island(html) as { results: Array<{ recording: { note?: string; envelope?: unknown } }> };
    expect(data.results[0].recording).toMatchObject({ note: 'recording not found: recordings/gone.wav' });
    expect(data.results[1].recording.note).toBe('recordings/broken.wav: no format (fmt) chunk before the audio data');
  });

  it('percent-encodes artifact paths so they can never form a javascript: or remote URL', () => {
    const r = makeResult({ file: 'a.yaml', recording: 'javascript:alert(1)//x.wav' });
    r.artifacts = { ...r.artifacts, trace: 'traces/a b#?.json' };
    const model = buildReportModel([r], summarize([r]), { resultsDir: '/runs/x', reportDir: '/runs/x', redactor });
    expect(model.results[0].recording?.src).toBe('javascript%3Aalert(1)/x.wav');
    expect(model.results[0].links).toEqual([{ label: 'trace', href: 'traces/a%20b%23%3F.json' }]);
  });

  it('caps a flood of events and very long text so the report stays small', () => {
    const r = makeResult({ file: 'a.yaml', reply: 'y'.repeat(50_000) });
    r.events = Array.from({ length: 20_000 }, (_, i) => ({ name: 'llm_started' as const, at_ms: i }));
    const model = buildReportModel([r], summarize([r]), {
      resultsDir: '/x',
      reportDir: '/x',
      redactor,
      limits: { maxEvents: 100 },
    });
    expect(model.results[0].events).toHaveLength(100);
    expect(model.results[0].events_omitted).toBe(19_900);
    expect(model.results[0].turns[1].expectations[1].text).toMatch(/^y{20000}… \[30000 more characters\]$/);
  });
});
