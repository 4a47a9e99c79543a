import { GAIA_JS } from './client-gaia.js';
import { SIMULATION_JS } from './client-simulation.js';
import { TIMELINE_JS } from './client-timeline.js';

/**
 * The report's script, inlined into report.html. Plain ES2017 for the browser: it
 * parses the JSON data island and builds every node with createElement and
 * textContent, so untrusted text never reaches an HTML parser. Its sha256 goes
 * into the page's Content-Security-Policy; nothing else may run.
 */
export const CLIENT_JS = String.raw`(function () {
  'use strict';
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var data = JSON.parse(document.getElementById('earshot-data').textContent);
  var app = document.getElementById('app');

  // Every node is built with createElement/textContent: nothing from the data is ever parsed as markup.
  function add(node, children) {
    if (children === undefined || children === null) return node;
    if (!Array.isArray(children)) children = [children];
    for (var i = 0; i < children.length; i++) {
      var c = children[i];
      if (c === undefined || c === null || c === false) continue;
      node.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
    }
    return node;
  }
  function setAttrs(node, attrs) {
    if (!attrs) return node;
    Object.keys(attrs).forEach(function (k) {
      var v = attrs[k];
      if (v === undefined || v === null || v === false) return;
      if (k === 'text') node.textContent = String(v);
      else node.setAttribute(k, String(v));
    });
    return node;
  }
  function el(tag, attrs, children) {
    return add(setAttrs(document.createElement(tag), attrs), children);
  }
  function svg(tag, attrs, children) {
    return add(setAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
  }

  function fmtMs(ms) {
    if (typeof ms !== 'number' || !isFinite(ms)) return '–';
    if (Math.abs(ms) < 1000) return Math.round(ms) + ' ms';
    if (Math.abs(ms) < 60000) return (ms / 1000).toFixed(2) + ' s';
    var s = Math.round(ms / 1000);
    return Math.floor(s / 60) + 'm ' + String(s % 60).padStart(2, '0') + 's';
  }
  function pct(rate) { return typeof rate === 'number' ? Math.round(rate * 100) + '%' : '–'; }
  function badge(status) { return el('span', { class: 'badge ' + status, text: status.replace('_', ' ') }); }
  function runLabel(r) {
    var parts = [];
    if (r.repeat_index !== undefined) parts.push('#' + (r.repeat_index + 1));
    if (r.attempt !== undefined && r.attempt > 1) parts.push('attempt ' + r.attempt);
    return parts.join(' ');
  }
  function inputText(turn) {
    var i = turn.input || {};
    if (i.user !== undefined) return i.user;
    if (i.dtmf !== undefined) return 'DTMF ' + i.dtmf;
    if (i.audio !== undefined) return 'audio ' + i.audio;
    return '(listening)';
  }
${SIMULATION_JS}
${GAIA_JS}
  function failureText(f) {
    var where = f.turn_index === null
      ? ''
      : ' turn ' + (f.turn_index + 1) + (f.expectation_index === null ? '' : '.' + (f.expectation_index + 1));
    return f.kind + where + (f.event ? ' ' + f.event : '') + ': ' + f.reason;
  }

  // ---- header and summary --------------------------------------------------------------
  var s = data.summary;
  document.title = data.title;
  add(app, el('header', null, [
    el('h1', { text: data.title }),
    el('p', { class: 'meta', text:
      s.results + ' scenario run' + (s.results === 1 ? '' : 's') + ' · pass rate ' + pct(s.pass_rate) +
      (typeof s.wall_ms === 'number' ? ' · ' + fmtMs(s.wall_ms) : '') +
      (s.shards && s.shards.length ? ' · shards ' + s.shards.join(', ') : '') +
      ' · generated ' + data.generated_at }),
  ]));

  var FILTERS = [
    ['all', 'All', data.results.length],
    ['passed', 'Passed', s.counts.passed],
    ['failed', 'Failed', s.counts.failed],
    ['inconclusive', 'Inconclusive', s.counts.inconclusive || 0],
    ['error', 'Error', s.counts.error],
    ['skipped', 'Skipped', s.counts.skipped],
    ['flaky', 'Flaky', data.results.filter(function (r) { return r.outcome === 'flaky'; }).length],
  ];
  var state = { filter: 'all', query: '' };
  var buttons = FILTERS.map(function (f) {
    var b = el('button', {
      type: 'button', class: 'filter ' + f[0], 'data-filter': f[0], 'aria-pressed': f[0] === 'all' ? 'true' : 'false',
    }, [f[1] + ' ', el('span', { class: 'count', text: f[2] })]);
    b.addEventListener('click', function () { state.filter = f[0]; applyFilter(); });
    return b;
  });
  var search = el('input', {
    type: 'search', id: 'search', placeholder: 'Filter by name, file or bot',
    'aria-label': 'Filter by name, file or bot',
  });
  search.addEventListener('input', function () { state.query = search.value.trim().toLowerCase(); applyFilter(); });
  var shown = el('span', { class: 'shown', id: 'shown' });
  add(app, el('nav', { class: 'filters', 'aria-label': 'Filter by status' }, buttons.concat([search, shown])));

  var rows = [];
  var sections = [];
  var tbody = el('tbody');
  data.results.forEach(function (r) {
    var firstFailure = r.failures.length ? failureText(r.failures[0]) : (r.error || '');
    var passedTurns = r.turns.filter(function (t) { return t.status === 'passed'; }).length;
    var row = el('tr', { 'data-status': r.status, 'data-outcome': r.outcome, 'data-id': r.id }, [
      el('td', null, badge(r.status)),
      el('td', null, [el('a', { href: '#' + r.id, text: r.name }),
        tagText(r) ? el('span', { class: 'tag dim', text: ' ' + tagText(r) }) : null]),
      el('td', { text: r.bot || '' }),
      el('td', { text: runLabel(r) }),
      el('td', { class: 'num', text: passedTurns + '/' + r.turns.length }),
      el('td', { class: 'num', text: fmtMs(r.duration_ms) }),
      el('td', { class: 'reason', text: firstFailure }),
    ]);
    row.searchText = (r.name + ' ' + r.file + ' ' + (r.bot || '') + ' ' + tagText(r)).toLowerCase();
    rows.push(row);
    tbody.appendChild(row);
  });
  add(app, el('table', { class: 'summary', id: 'summary-table' }, [
    el('thead', null, el('tr', null, ['Status', 'Scenario', 'Bot', 'Run', 'Turns', 'Duration', 'First failure']
      .map(function (h) { return el('th', { text: h }); }))),
    tbody,
  ]));

  if (s.scenarios.some(function (o) { return o.runs > 1; })) {
    add(app, el('h2', { text: 'Across repeats' }));
    add(app, el('table', { class: 'outcomes', id: 'outcomes-table' }, [
      el('thead', null, el('tr', null, [
        'Outcome', 'Scenario', 'Bot', 'Runs', 'Pass rate', 'Duration p50', 'Failure kinds',
      ].map(function (h) { return el('th', { text: h }); }))),
      el('tbody', null, s.scenarios.map(function (o) {
        var kinds = Object.keys(o.failure_kinds).map(function (k) { return k + ' ×' + o.failure_kinds[k]; })
          .join(', ');
        return el('tr', { 'data-outcome': o.outcome }, [
          el('td', null, badge(o.outcome)), el('td', { text: o.name }), el('td', { text: o.bot || '' }),
          el('td', { class: 'num', text: o.runs }), el('td', { class: 'num', text: pct(o.pass_rate) }),
          el('td', { class: 'num', text: o.duration_ms ? fmtMs(o.duration_ms.p50) : '–' }), el('td', { text: kinds }),
        ]);
      })),
    ]));
  }

  add(app, summaryGroupsView(s));

  // ---- one section per scenario run -------------------------------------------------------
  var METRICS = [
    ['voice_to_voice_ms', 'voice-to-voice'], ['llm_ttfb_ms', 'LLM start'], ['first_token_ms', 'first token'],
    ['speech_padding_ms', 'speech padding'], ['bot_speech_ms', 'bot speech'], ['interruption_ms', 'interruption'],
    ['response_gap_ms', 'response gap'], ['overlap_ms', 'overlap'], ['yield_ms', 'backchannel stop'],
  ];
  var BOT_TEXT = ['response', 'llm_response', 'tts_response'];

  function metricsCell(m) {
    if (!m) return el('td', { class: 'metrics' }, '–');
    var dl = el('dl');
    METRICS.forEach(function (pair) {
      if (typeof m[pair[0]] === 'number') add(dl, [el('dt', { text: pair[1] }), el('dd', { text: fmtMs(m[pair[0]]) })]);
    });
    [
      ['yielded', 'yielded'], ['takeover', 'took the pause'], ['backchannel_yielded', 'yielded to backchannel'],
    ].forEach(function (p) {
      if (typeof m[p[0]] === 'boolean') add(dl, [el('dt', { text: p[1] }), el('dd', { text: m[p[0]] ? 'yes' : 'no' })]);
    });
    if (typeof m.talk_over_ms === 'number' && m.talk_over_ms > 0) {
      add(dl, [el('dt', { text: 'talk-over' }), el('dd', { text: fmtMs(m.talk_over_ms) })]);
    }
    if (typeof m.word_error_rate === 'number') {
      add(dl, [el('dt', { text: 'WER' }), el('dd', { text: (m.word_error_rate * 100).toFixed(1) + '%' })]);
    }
    var bm = m.bot_metrics;
    if (bm && typeof bm === 'object') {
      Object.keys(bm).forEach(function (service) {
        var x = bm[service] || {};
        var parts = [];
        if (typeof x.ttfb_ms === 'number') parts.push('TTFB ' + fmtMs(x.ttfb_ms));
        if (typeof x.ttfa_ms === 'number') parts.push('TTFA ' + fmtMs(x.ttfa_ms));
        if (typeof x.ttfat_ms === 'number') parts.push('TTFAT ' + fmtMs(x.ttfat_ms));
        if (typeof x.processing_ms === 'number') parts.push('processing ' + fmtMs(x.processing_ms));
        if (typeof x.characters === 'number') parts.push(x.characters + ' chars');
        if (typeof x.stt_audio_ms === 'number') parts.push('STT audio ' + fmtMs(x.stt_audio_ms));
        add(dl, [el('dt', { text: service }), el('dd', { text: parts.join(' · ') || '–' })]);
      });
    }
    var tok = m.bot_tokens;
    if (tok && typeof tok.total_tokens === 'number') {
      add(dl, [el('dt', { text: 'tokens' }),
        el('dd', { text: tok.prompt_tokens + ' in · ' + tok.completion_tokens + ' out' })]);
    }
    return el('td', { class: 'metrics' }, dl.childNodes.length ? dl : '–');
  }

  function expectationsCell(turn, failures) {
    var ul = el('ul', { class: 'expectations' });
    turn.expectations.forEach(function (e) {
      var f = failures.filter(function (x) { return x.expectation_index === e.index; })[0];
      add(ul, el('li', { class: e.status }, [
        badge(e.status), ' ', el('code', { text: e.event }),
        typeof e.matched_after_ms === 'number'
          ? el('span', { class: 'dim', text: ' after ' + fmtMs(e.matched_after_ms) })
          : null,
        f ? el('div', { class: 'failure', text: f.kind + ': ' + f.reason }) : null,
        e.inconclusive ? doubt(e.inconclusive) : null,
        e.text !== undefined ? el('blockquote', { class: 'said', text: e.text }) : null,
        e.judge_reason ? el('div', { class: 'judge', text: 'judge: ' + e.judge_reason }) : null,
      ]));
    });
    failures.filter(function (x) { return x.expectation_index === null; }).forEach(function (f) {
      add(ul, el('li', { class: 'failed' }, el('div', { class: 'failure', text: failureText(f) })));
    });
    return el('td', null, ul);
  }

  /**
   * Why earshot could not hear the bot reliably: each reading's verdict, both transcripts, the segment's span and
   * audio.
   */
  function doubt(x) {
    return el('div', { class: 'doubt' }, [x.kinds.join(', ') + ': ' + x.reason].concat(x.segments.map(function (g) {
      return el('div', null, [
        fmtMs(g.start_ms) + '–' + fmtMs(g.end_ms) + ': heard ' + JSON.stringify(g.transcript) +
          (g.check_transcript !== undefined ? ', check heard ' + JSON.stringify(g.check_transcript) : '') + ' ',
        g.snippet ? el('a', { href: g.snippet, text: 'segment audio' }) : null,
      ]);
    })));
  }

  /** What each side said per turn: the caller's input, what the bot heard, what the bot replied. */
  function transcript(r) {
    var ol = el('ol', { class: 'transcript' });
    r.turns.forEach(function (t, i) {
      var next = r.turns[i + 1];
      var from = typeof t.started_at_ms === 'number' ? t.started_at_ms : null;
      var to = next && typeof next.started_at_ms === 'number' ? next.started_at_ms : Infinity;
      var within = from === null ? [] : r.events.filter(function (e) { return e.at_ms >= from && e.at_ms < to; });
      var heard = within.filter(function (e) { return e.name === 'user_transcription'; })
        .map(function (e) { return e.text; });
      var said = [];
      for (var k = 0; k < BOT_TEXT.length && said.length === 0; k++) {
        said = within.filter(function (e) { return e.name === BOT_TEXT[k]; }).map(function (e) { return e.text; });
      }
      if (said.length === 0) {
        said = t.expectations.filter(function (e) { return e.text !== undefined; })
          .map(function (e) { return e.text; });
      }
      add(ol, el('li', null, [
        el('div', { class: 'caller' }, [el('b', { text: 'Caller: ' }), inputText(t)]),
        heard.length ? el('div', { class: 'heard' }, [el('b', { text: 'Bot heard: ' }), heard.join(' ')]) : null,
        el('div', { class: 'bot' }, [el('b', { text: 'Bot: ' }), said.length ? said.join(' ') : '(nothing)']),
      ]));
    });
    return ol;
  }

  function section(r) {
    var turnFailures = function (t) { return r.failures.filter(function (f) { return f.turn_index === t.index; }); };
    var general = r.failures.filter(function (f) { return f.turn_index === null; });
    var body = [];
    body.push(el('p', { class: 'meta' }, [
      el('code', { text: r.file }), r.bot ? ' · bot ' + r.bot : '', ' · started ' + r.started_at,
      ' · ' + fmtMs(r.duration_ms),
    ].concat(r.links.map(function (l) { return [' · ', el('a', { href: l.href, text: l.label })]; })
      .reduce(function (a, b) { return a.concat(b); }, []))));
    if (r.error) body.push(el('p', { class: 'failure', text: 'error: ' + r.error }));
    if (general.length) {
      body.push(el('ul', { class: 'failures' }, general.map(function (f) {
        return el('li', { class: 'failure', text: failureText(f) });
      })));
    }
    if (r.simulation) body.push(simulationView(r.simulation));
    if (r.gaia) body.push(gaiaView(r.gaia));
    body.push(timeline(r));
    body.push(el('h3', { text: 'Turns' }));
    body.push(el('table', { class: 'turns' }, [
      el('thead', null, el('tr', null, ['#', 'Status', 'Sent', 'Duration', 'Expectations', 'Metrics'].map(function (h) {
        return el('th', { text: h });
      }))),
      el('tbody', null, r.turns.map(function (t) {
        return el('tr', { class: t.status }, [
          el('td', { class: 'num', text: t.index + 1 }), el('td', null, badge(t.status)),
          el('td', null, [inputText(t)].concat((t.notes || []).map(function (n) {
            return el('div', { class: 'note', text: n });
          }))),
          el('td', { class: 'num', text: fmtMs(t.duration_ms) }),
          expectationsCell(t, turnFailures(t)), metricsCell(t.metrics),
        ]);
      })),
    ]));
    body.push(el('h3', { text: 'Transcript' }));
    body.push(transcript(r));
    var ev = el('details', { class: 'events' }, [el('summary', {
      text: 'All events (' + r.events.length +
        (r.events_omitted ? ', ' + r.events_omitted + ' more not shown' : '') + ')',
    })]);
    add(ev, el('table', null, el('tbody', null, r.events.map(function (e) {
      var detail = e.text !== undefined
        ? e.text
        : e.function_name !== undefined ? e.function_name + (e.args ? ' ' + JSON.stringify(e.args) : '') : '';
      return el('tr', null, [el('td', { class: 'num', text: fmtMs(e.at_ms) }),
        el('td', null, el('code', { text: e.name })), el('td', { text: detail })]);
    }))));
    body.push(ev);
    var det = el('details', { class: 'scenario-details' }, [
      el('summary', null, [badge(r.status), ' ', el('span', { class: 'name', text: r.name }),
        r.bot ? el('span', { class: 'dim', text: ' [' + r.bot + ']' }) : null,
        tagText(r) ? el('span', { class: 'tag dim', text: ' ' + tagText(r) }) : null,
        runLabel(r) ? el('span', { class: 'dim', text: ' ' + runLabel(r) }) : null,
        el('span', { class: 'dim', text: ' · ' + fmtMs(r.duration_ms) })]),
    ].concat(body));
    if (r.status === 'failed' || r.status === 'error') det.open = true;
    var sec = el('section', { class: 'scenario', id: r.id, 'data-status': r.status, 'data-outcome': r.outcome }, det);
    sec.searchText = (r.name + ' ' + r.file + ' ' + (r.bot || '')).toLowerCase();
    return sec;
  }

  // ---- timeline: turns, both audio channels, events, and a playhead on one time axis -------
${TIMELINE_JS}

  var details = el('main', { id: 'scenarios' });
  data.results.forEach(function (r) { var sec = section(r); sections.push(sec); details.appendChild(sec); });
  add(app, details);

  function applyFilter() {
    var visible = 0;
    function match(node) {
      var st = node.getAttribute('data-status'), oc = node.getAttribute('data-outcome');
      var byStatus = state.filter === 'all' || (state.filter === 'flaky' ? oc === 'flaky' : st === state.filter);
      return byStatus && (!state.query || node.searchText.indexOf(state.query) >= 0);
    }
    rows.forEach(function (row) { row.hidden = !match(row); if (!row.hidden) visible++; });
    sections.forEach(function (sec) { sec.hidden = !match(sec); });
    buttons.forEach(function (b) {
      b.setAttribute('aria-pressed', b.getAttribute('data-filter') === state.filter ? 'true' : 'false');
    });
    shown.textContent = visible + ' of ' + rows.length + ' shown';
  }
  function openFromHash() {
    var m = /^#(r[0-9]+)$/.exec(location.hash);
    var sec = m && document.getElementById(m[1]);
    if (sec) { var d = sec.querySelector('details'); if (d) d.open = true; }
  }
  window.addEventListener('hashchange', openFromHash);
  applyFilter();
  openFromHash();
})();
`;
