import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redactor } from '../core/redact.js';
import { makeResult } from '../results/fixtures.testutil.js';
import { ragResult } from '../results/gaia-fixtures.testutil.js';
import { renderJUnit } from './junit.js';

/** The same schema and xmllint as junit.test.ts: earshot's rendition of the Jenkins/Ant JUnit format. */
const XSD = join(import.meta.dirname, 'testdata', 'junit.xsd');
const XMLLINT = '/usr/bin/xmllint';

function validate(xml: string): { ok: boolean; output: string } {
  if (!existsSync(XMLLINT)) throw new Error('xmllint is missing: apt-get install libxml2-utils');
  const file = join(mkdtempSync(join(tmpdir(), 'earshot-junit-gaia-')), 'junit.xml');
  writeFileSync(file, xml);
  try {
    return { ok: true, output: execFileSync(XMLLINT, ['--noout', '--schema', XSD, file], { encoding: 'utf8' }) };
  } catch (err) {
    return { ok: false, output: (err as { stderr?: string }).stderr ?? String(err) };
  }
}

const redactor = new Redactor({});

describe('renderJUnit: GAIA scenarios', () => {
  it('validates against the schema with the suite properties and a per-turn system-out', () => {
    const xml = renderJUnit([ragResult(), makeResult({ file: 'plain.yaml' })], redactor);
    const result = validate(xml);
    expect(result.output).toBe('');
    expect(result.ok).toBe(true);
    // The schema is strict about where properties go: inside a testcase they are rejected.
    const misplaced = xml.replace(
      /(<testcase name="turn 1[^>]*>)/,
      '$1\n      <properties><property name="category" value="x"/></properties>',
    );
    expect(misplaced).not.toBe(xml);
    expect(validate(misplaced).ok).toBe(false);
  });

  it('gives the suite its category, severity, GAIA total and threshold', () => {
    const xml = renderJUnit([ragResult()], redactor);
    expect(xml).toContain(
      '  <testsuite name="eval/scenarios/rag_quality/simple_factual_rag.yaml" tests="2" failures="1" errors="0" ' +
        'skipped="0" time="6.000" timestamp="2025-01-01T00:00:00">\n' +
        '    <properties>\n' +
        '      <property name="category" value="rag_quality"/>\n' +
        '      <property name="severity" value="critical"/>\n' +
        '      <property name="gaia.total" value="7.18"/>\n' +
        '      <property name="gaia.pass_threshold" value="7"/>\n' +
        '    </properties>\n',
    );
  });

  it('writes each turn’s scores, verdict and auto-zero reason into its testcase', () => {
    const xml = renderJUnit([ragResult()], redactor);
    expect(xml).toContain(
      '<system-out>GAIA turn 1: C 10 · T n/a · R 9 · Cm 8 · E n/a · P 10 · ER 10 · total 9.29 ≥ 7: passed\n' +
        'caller: "What was Acme revenue in Q3?"\nbot: "$14.2 million."</system-out>',
    );
    expect(xml).toContain(
      '<failure message="correctness_zero: wrong_number: said 40%, expected 23% (74% off)" type="correctness_zero">',
    );
    expect(xml).toContain(
      '<system-out>GAIA turn 2: C 0 · T n/a · R 8 · Cm 7 · E n/a · P 9 · ER 9 · total 5.07 &lt; 7: failed\n' +
        'auto-zero wrong_number (earshot): said 40%, expected 23% (74% off)\n',
    );
  });

  it('averages the total over a file’s runs and says how many', () => {
    const xml = renderJUnit(
      [
        ragResult({ repeat_index: 0 }),
        ragResult({ repeat_index: 1, turns: [{ scores: [10, null, 10, 10, null, 10, 10] }] }),
      ],
      redactor,
    );
    // (7.179 + 10) / 2
    expect(xml).toContain('<property name="gaia.total" value="8.59"/>\n      <property name="gaia.runs" value="2"/>');
  });

  it('adds no properties to a suite without category, severity or GAIA scores', () => {
    expect(renderJUnit([makeResult({ file: 'plain.yaml' })], redactor)).not.toContain('<properties>');
  });
});
