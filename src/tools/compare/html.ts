import { inlineOnlyPolicy, renderPage } from '../../report/index.js';
import type { CompareReport } from './compare.js';
import { compareRows, headline, ruleText, turnLabel, verdictWord } from './rows.js';

/**
 * `earshot compare`'s HTML page: one self-contained file, like report.html — the
 * data in a JSON island, one inline script that builds every node with
 * createElement/textContent (untrusted scenario names never meet an HTML
 * parser), and a Content-Security-Policy that allows only that script and
 * style by hash.
 */

export interface HtmlRow {
  verdict: string;
  label: string;
  scenario: string;
  file: string;
  where: string;
  what: string;
  base: string;
  new: string;
  change: string;
  p: string;
  /** For metric rows: the shift's interval and the threshold it had to pass, in ms, for the bar. */
  bar?: { estimate: number; low: number; high: number; threshold: number };
}

export interface HtmlModel {
  title: string;
  headline: string;
  rule: string;
  base: string;
  new: string;
  ok: boolean;
  rows: HtmlRow[];
  only_in_base: string[];
  only_in_new: string[];
  warnings: string[];
}

export function compareHtmlModel(report: CompareReport): HtmlModel {
  const rows = compareRows(report).map((r): HtmlRow => {
    const row: HtmlRow = {
      verdict: r.verdict,
      label: verdictWord(r.verdict),
      scenario: r.scenario.name,
      file: r.scenario.file,
      where: turnLabel(r.turn),
      what: r.what,
      base: r.base,
      new: r.new,
      change: r.change,
      p: r.p,
    };
    const metric =
      r.turn === null
        ? undefined
        : r.scenario.turns.find((t) => t.index === r.turn)?.metrics.find((m) => m.metric === r.what);
    if (metric?.ci95 && metric.shift_ms !== null && metric.base.median !== null) {
      const threshold = Math.max(
        report.settings.threshold_ms,
        (report.settings.threshold_pct / 100) * Math.abs(metric.base.median),
      );
      row.bar = { estimate: metric.shift_ms, low: metric.ci95.low, high: metric.ci95.high, threshold };
    }
    return row;
  });
  return {
    title: 'earshot compare',
    headline: headline(report),
    rule: ruleText(report),
    base: `${report.base.source} (${report.base.results} results)`,
    new: `${report.new.source} (${report.new.results} results)`,
    ok: report.ok,
    rows,
    only_in_base: report.only_in_base.map((s) => `${s.name} (${s.file})`),
    only_in_new: report.only_in_new.map((s) => `${s.name} (${s.file})`),
    warnings: report.warnings,
  };
}

export function renderCompareHtml(report: CompareReport): string {
  return renderPage({
    title: 'earshot compare',
    policy: inlineOnlyPolicy(COMPARE_CLIENT_JS, COMPARE_STYLE_CSS),
    style: COMPARE_STYLE_CSS,
    script: COMPARE_CLIENT_JS,
    islandId: 'earshot-compare',
    data: compareHtmlModel(report),
    noscript: 'This page draws itself with JavaScript; the same comparison is in the JSON and markdown outputs.',
  });
}

export const COMPARE_STYLE_CSS = String.raw`
:root { color-scheme: light dark; --fg: #1d2329; --dim: #667; --bg: #fff; --line: #dde1e6; --panel: #f6f8fa;
  --bad: #cf222e; --good: #1a7f37; --moved: #9a6700; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --dim: #8b949e; --bg: #0d1117; --line: #30363d; --panel: #161b22;
    --bad: #f85149; --good: #3fb950; --moved: #d29922; } }
body { margin: 0; padding: 1rem 1.5rem 3rem; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
h1 { font-size: 1.4rem; margin: 0 0 .3rem; } .dim { color: var(--dim); } p { margin: .2rem 0; }
.filters { display: flex; gap: .4rem; margin: .8rem 0; flex-wrap: wrap; }
.filters button { border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: 999px;
  padding: .2rem .8rem; cursor: pointer; font: inherit; }
.filters button[aria-pressed="true"] { border-color: var(--fg); font-weight: 600; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
th { background: var(--panel); font-weight: 600; } td.num { white-space: nowrap; font-variant-numeric: tabular-nums; }
.badge { display: inline-block; min-width: 5.5rem; text-align: center; border-radius: 4px; padding: 0 .35rem;
  font-size: 12px; font-weight: 600; color: #fff; background: var(--dim); }
.badge.regressed { background: var(--bad); } .badge.improved { background: var(--good); }
.badge.changed { background: var(--moved); }
svg.bar line.zero { stroke: var(--dim); } svg.bar line.limit { stroke: var(--dim); stroke-dasharray: 2 2; }
svg.bar line.ci { stroke: var(--fg); stroke-width: 3; } svg.bar circle { fill: var(--fg); }
`;

export const COMPARE_CLIENT_JS = String.raw`(function () {
  'use strict';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('earshot-compare').textContent);
  var app = document.getElementById('app');
  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.setAttribute('class', cls);
    return node;
  }
  function svg(tag, attrs) {
    var node = document.createElementNS(SVG_NS, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    return node;
  }
  // The shift's 95 % interval on an axis through 0, with the threshold it had to pass on either side.
  function bar(b) {
    var W = 160, H = 16, span = Math.max(Math.abs(b.low), Math.abs(b.high), b.threshold) * 1.15 || 1;
    var x = function (v) { return (W / 2 + (v / span) * (W / 2)).toFixed(1); };
    var s = svg('svg', { class: 'bar', width: W, height: H, viewBox: '0 0 ' + W + ' ' + H, role: 'img' });
    s.appendChild(svg('line', { class: 'limit', x1: x(-b.threshold), x2: x(-b.threshold), y1: 2, y2: H - 2 }));
    s.appendChild(svg('line', { class: 'limit', x1: x(b.threshold), x2: x(b.threshold), y1: 2, y2: H - 2 }));
    s.appendChild(svg('line', { class: 'zero', x1: x(0), x2: x(0), y1: 0, y2: H }));
    s.appendChild(svg('line', { class: 'ci', x1: x(b.low), x2: x(b.high), y1: H / 2, y2: H / 2 }));
    s.appendChild(svg('circle', { cx: x(b.estimate), cy: H / 2, r: 3 }));
    var title = svg('title', {});
    title.textContent = 'median shift ' + Math.round(b.estimate) + ' ms, 95% interval ' + Math.round(b.low) +
      ' to ' + Math.round(b.high) + ' ms; threshold ±' + Math.round(b.threshold) + ' ms';
    s.appendChild(title);
    return s;
  }
  app.appendChild(el('h1', (data.ok ? '✅ ' : '❌ ') + data.title));
  app.appendChild(el('p', data.headline));
  app.appendChild(el('p', 'base ' + data.base + ' → new ' + data.new, 'dim'));
  app.appendChild(el('p', data.rule, 'dim'));
  var filters = el('div', null, 'filters');
  app.appendChild(filters);
  var table = el('table');
  var head = el('tr');
  ['', 'scenario', 'where', 'what', 'base', 'new', 'change (95% CI)', '', 'p'].forEach(function (h) {
    head.appendChild(el('th', h));
  });
  table.appendChild(head);
  var rendered = data.rows.map(function (r) {
    var tr = el('tr');
    var badge = el('td');
    badge.appendChild(el('span', r.label, 'badge ' + r.verdict));
    tr.appendChild(badge);
    var name = el('td', r.scenario);
    name.setAttribute('title', r.file);
    tr.appendChild(name);
    tr.appendChild(el('td', r.where));
    tr.appendChild(el('td', r.what));
    tr.appendChild(el('td', r.base, 'num'));
    tr.appendChild(el('td', r.new, 'num'));
    tr.appendChild(el('td', r.change, 'num'));
    var cell = el('td');
    if (r.bar) cell.appendChild(bar(r.bar));
    tr.appendChild(cell);
    tr.appendChild(el('td', r.p, 'num'));
    table.appendChild(tr);
    return { row: r, node: tr };
  });
  app.appendChild(table);
  var counts = {};
  data.rows.forEach(function (r) { counts[r.verdict] = (counts[r.verdict] || 0) + 1; });
  var buttons = [];
  function show(verdict) {
    rendered.forEach(function (x) { x.node.hidden = verdict !== 'all' && x.row.verdict !== verdict; });
    buttons.forEach(function (b) { b.setAttribute('aria-pressed', String(b.dataset.verdict === verdict)); });
  }
  ['all', 'regressed', 'improved', 'changed', 'unchanged', 'too_few'].forEach(function (v) {
    if (v !== 'all' && !counts[v]) return;
    var b = el('button', (v === 'too_few' ? 'too few' : v) + ' (' + (v === 'all' ? data.rows.length : counts[v]) + ')');
    b.dataset.verdict = v;
    b.addEventListener('click', function () { show(v); });
    buttons.push(b);
    filters.appendChild(b);
  });
  show(counts.regressed ? 'regressed' : 'all');
  [
    ['Only in the base (not compared)', data.only_in_base],
    ['Only in the new run (not compared)', data.only_in_new],
    ['Warnings', data.warnings]
  ].forEach(function (section) {
    if (!section[1].length) return;
    app.appendChild(el('h2', section[0]));
    var list = el('ul');
    section[1].forEach(function (item) { list.appendChild(el('li', item)); });
    app.appendChild(list);
  });
})();`;
