import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../core/redact.js';
import { makeResult } from '../results/fixtures.testutil.js';
import type { ScenarioResult } from '../results/index.js';
import { renderJUnit } from './junit.js';

/**
 * The schema is earshot's own rendition of the Jenkins/Ant JUnit format
 * (src/report/testdata/junit.xsd); xmllint is Debian's libxml2-utils.
 */
const XSD = join(import.meta.dirname, 'testdata', 'junit.xsd');
const XMLLINT = '/usr/bin/xmllint';

function validate(xml: string): { ok: boolean; output: string } {
  if (!existsSync(XMLLINT)) throw new Error('xmllint is missing: apt-get install libxml2-utils');
  const file = join(mkdtempSync(join(tmpdir(), 'earshot-junit-')), 'junit.xml');
  writeFileSync(file, xml);
  try {
    const output = execFileSync(XMLLINT, ['--noout', '--schema', XSD, file], { encoding: 'utf8', stdio: 'pipe' });
    return { ok: true, output };
  } catch (err) {
    const e = err as { stderr?: string };
    return { ok: false, output: e.stderr ?? String(err) };
  }
}

const redactor = new Redactor({ OPENAI_API_KEY: 'sk-junit-secret-42' });

function suite(): ScenarioResult[] {
  const hostile = makeResult({
    file: 'scenarios/hostile.yaml',
    status: 'failed',
    reply: 'ok ]]> <script>alert(1)</script> & "quotes" \u0000\u0007\u001b[31m \ud800 sk-junit-secret-42',
  });
  return [
    makeResult({ file: 'scenarios/capital.yaml', bot: 'voice-a.py', repeat_index: 0 }),
    makeResult({ file: 'scenarios/capital.yaml', bot: 'voice-a.py', repeat_index: 1, status: 'failed' }),
    makeResult({ file: 'scenarios/capital.yaml', bot: 'voice-b.py', repeat_index: 0 }),
    makeResult({ file: 'scenarios/down.yaml', status: 'error' }),
    makeResult({ file: 'scenarios/later.yaml', status: 'skipped' }),
    hostile,
  ];
}

describe('renderJUnit', () => {
  it('writes XML that validates against the JUnit schema, hostile bot text included', () => {
    const result = validate(renderJUnit(suite(), redactor));
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
  });

  it('is checked by a schema that does reject malformed JUnit (the validation can fail)', () => {
    const good = renderJUnit(suite(), redactor);
    expect(validate(good.replace('<testcase name=', '<testcase nom=')).ok).toBe(false);
    expect(validate(good.replace(/time="[0-9.]+"/, 'time="1.5s"')).ok).toBe(false);
    expect(validate(good.replace(/(<testsuite name="[^"]+") tests="\d+"/, '$1')).ok).toBe(false);
    expect(validate(good.replace('<failure ', '<failed ').replace('</failure>', '</failed>')).ok).toBe(false);
  });

  it('has one testsuite per scenario file and one testcase per turn of each run', () => {
    const xml = renderJUnit(suite(), redactor);
    const suites = [
      ...xml.matchAll(/<testsuite name="([^"]+)" tests="(\d+)" failures="(\d+)" errors="(\d+)" skipped="(\d+)"/g),
    ];
    expect(suites.map((m) => m.slice(1).join(' '))).toEqual([
      'scenarios/capital.yaml 6 1 0 0',
      'scenarios/down.yaml 3 0 1 2',
      'scenarios/hostile.yaml 2 1 0 0',
      'scenarios/later.yaml 2 0 0 2',
    ]);
    expect(xml).toContain(
      '<testcase name="turn 2: &quot;What is the capital of France?&quot; [voice-a.py] #2" classname="capital" time="1.500">',
    );
    expect(xml).toMatch(/<testsuites name="earshot" tests="13" failures="2" errors="1" skipped="4" time="24\.00\d">/);
  });

  it('types each failure by its kind, with the reason in the message', () => {
    const xml = renderJUnit(suite(), redactor);
    expect(xml).toContain(
      '<failure message="text_mismatch: response did not contain &quot;Paris&quot;: got &quot;Paris is the capital of France.&quot;" type="text_mismatch">',
    );
    expect(xml).toContain('<testcase name="setup" classname="down" time="0.000">');
    expect(xml).toContain(
      '<error message="connect_failed: nothing listens on ws://127.0.0.1:1 (ECONNREFUSED) after 3 attempts" type="connect_failed">',
    );
    expect(xml).toContain('<skipped message="scenario skipped"/>');
  });

  it('escapes markup, drops characters XML cannot hold, and redacts secrets', () => {
    const xml = renderJUnit(suite(), redactor);
    expect(xml).not.toContain('<script>');
    expect(xml).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; "quotes"');
    expect(xml).toContain('ok ]]&gt;');
    expect(xml).not.toMatch(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/);
    expect(xml).not.toContain('sk-junit-secret-42');
    expect(xml).toContain('[redacted]');
  });

  it('counts a retried run once, by its latest attempt', () => {
    const xml = renderJUnit(
      [makeResult({ file: 'a.yaml', status: 'failed', attempt: 1 }), makeResult({ file: 'a.yaml', attempt: 2 })],
      redactor,
    );
    expect(xml).toContain('<testsuite name="a.yaml" tests="2" failures="0"');
  });
});
