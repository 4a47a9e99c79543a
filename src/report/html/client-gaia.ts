import { SCORECARD_DIMENSIONS } from '../../scenario/index.js';
import { DIMENSION_ABBREVIATIONS, dimensionLegend } from '../gaia-text.js';

/**
 * The report's view of GAIA scores, spliced into the report's script (client.ts) so it shares its helpers (`el`,
 * `add`, `badge`, `pct`): a scenario's turn × dimension grid (C T R Cm E P ER, `n/a` where a dimension did not
 * apply, each turn's total against the threshold, its verdict and why it failed), and the run's summary tables per
 * category, per dimension and per severity. Like the rest of the script it builds nodes with textContent only.
 */
// The columns and legend come from gaia-text.ts as JSON, so the HTML grid and the text reports cannot drift apart.
const DIMENSIONS_JSON = JSON.stringify(SCORECARD_DIMENSIONS.map((d) => [d, DIMENSION_ABBREVIATIONS[d]]));

export const GAIA_JS = String.raw`
  var GAIA_DIMENSIONS = ${DIMENSIONS_JSON};
  var GAIA_LEGEND = ${JSON.stringify(dimensionLegend())};
  function dimensionName(d) { return d.replace(/_/g, ' '); }
  function scoreText(score) {
    if (score === null || score === undefined) return '–';
    return score % 1 === 0 ? String(score) : score.toFixed(1);
  }
  function tagText(x) {
    var parts = [x.category, x.severity].filter(function (p) { return p !== undefined && p !== ''; });
    return parts.length ? '[' + parts.join(' · ') + ']' : '';
  }
  function gaiaLegend() {
    return el('p', { class: 'legend dim', text: GAIA_LEGEND });
  }
  function gaiaCell(turn, dim) {
    var d = turn.dimensions.filter(function (x) { return x.dimension === dim; })[0];
    if (!d) return el('td', { class: 'num' });
    if (!d.applicable) return el('td', { class: 'num na', 'data-dimension': dim, title: d.reason, text: 'n/a' });
    var why = d.reason + (d.cap ? ' (capped at ' + d.cap.max + ': ' + d.cap.reason + ')' : '');
    return el('td', { class: 'num' + (d.cap ? ' capped' : ''), 'data-dimension': dim, title: why,
      text: scoreText(d.score) });
  }
  function gaiaReasons(turn) {
    var out = [];
    if (turn.auto_zero) {
      out.push(el('div', { class: 'failure auto-zero',
        text: 'auto-zero ' + turn.auto_zero.rule + ' (' + turn.auto_zero.by + '): ' + turn.auto_zero.reason }));
    }
    if (turn.success) {
      out.push(el('div', { class: turn.success.verdict === 'no' ? 'failure' : 'dim',
        text: 'success criteria ' + turn.success.verdict + ': ' + turn.success.reason }));
    }
    return out;
  }
  function gaiaView(g) {
    var box = el('div', { class: 'gaia' });
    add(box, el('h3', { text: 'GAIA scores' }));
    add(box, el('p', { class: 'meta' }, [badge(g.passed ? 'passed' : 'failed'),
      ' total ' + g.total.toFixed(2) + ' / 10 (mean of ' + g.turns.length + ' turn' +
        (g.turns.length === 1 ? '' : 's') + '; pass at ' + g.pass_threshold + ', every turn must pass)',
      ' · persona ' + g.persona,
      g.documents.length ? ' · documents ' + g.documents.map(function (d) { return d.corpus_doc; }).join(', ') : '',
      g.documents_via ? ' (via ' + g.documents_via + ')' : '',
      g.calls_visible ? '' : ' · function calls not visible: T and E not applicable']));
    add(box, gaiaLegend());
    var head = ['Turn'].concat(GAIA_DIMENSIONS.map(function (p) { return p[1]; }), ['Total', 'Verdict', 'Why']);
    add(box, el('table', { class: 'gaia-grid' }, [
      el('thead', null, el('tr', null, head.map(function (h, i) {
        var dim = GAIA_DIMENSIONS[i - 1];
        return el('th', { text: h, title: dim ? dimensionName(dim[0]) : null });
      }))),
      el('tbody', null, g.turns.map(function (t) {
        var total = t.total.toFixed(2) + (t.total >= g.pass_threshold ? ' ≥ ' : ' < ') + g.pass_threshold;
        return el('tr', { class: t.passed ? 'passed' : 'failed', 'data-turn': t.turn }, [
          el('td', { class: 'num', title: t.objective, text: t.turn }),
        ].concat(GAIA_DIMENSIONS.map(function (p) { return gaiaCell(t, p[0]); }), [
          el('td', { class: 'num total', text: total }),
          el('td', null, badge(t.passed ? 'passed' : 'failed')),
          el('td', null, gaiaReasons(t)),
        ]));
      })),
    ]));
    add(box, el('ol', { class: 'gaia-turns' }, g.turns.map(function (t) {
      return el('li', null, [
        el('div', { class: 'dim', text: 'objective: ' + t.objective }),
        el('div', { class: 'caller' }, [el('b', { text: 'Caller: ' }), t.user_message,
          t.user_message_source === 'generated' ? el('span', { class: 'dim', text: ' (written by the caller model)' })
            : null]),
        el('div', { class: 'bot' }, [el('b', { text: 'Bot: ' }), t.reply || '(nothing)']),
        t.calls.length ? el('div', { class: 'dim', text: 'calls: ' + t.calls.map(function (c) {
          return (c.name || '(unnamed)') + (c.args ? ' ' + JSON.stringify(c.args) : '');
        }).join('; ') }) : null,
        t.expected_answer !== undefined ? el('div', { class: 'dim', text: 'expected answer: ' +
          (t.expected_answer === null ? '(none: the bot must say it does not know)' : t.expected_answer) }) : null,
      ]);
    })));
    return box;
  }
  function groupTable(id, head, rows) {
    return el('table', { class: 'groups', id: id }, [
      el('thead', null, el('tr', null, head.map(function (h) { return el('th', { text: h }); }))),
      el('tbody', null, rows.map(function (cells) {
        return el('tr', null, cells.map(function (c, i) { return el('td', { class: i ? 'num' : null, text: c }); }));
      })),
    ]);
  }
  function summaryGroupsView(s) {
    var parts = [];
    if (s.categories && Object.keys(s.categories).length) {
      parts.push(el('h3', { text: 'By category' }), groupTable('categories-table',
        ['Category', 'Runs', 'Passed', 'Pass rate', 'Mean GAIA total'],
        Object.keys(s.categories).map(function (k) {
          var g = s.categories[k];
          return [k, g.runs, g.passed, pct(g.pass_rate), g.mean_total === null ? '–' : g.mean_total.toFixed(2)];
        })));
    }
    if (s.dimensions && Object.keys(s.dimensions).length) {
      parts.push(el('h3', { text: 'By dimension' }), groupTable('dimensions-table', ['Dimension', 'Mean', 'Scores'],
        GAIA_DIMENSIONS.filter(function (p) { return s.dimensions[p[0]]; }).map(function (p) {
          var g = s.dimensions[p[0]];
          return [p[1] + ' ' + dimensionName(p[0]), g.mean === null ? '–' : g.mean.toFixed(2), g.n];
        })));
    }
    if (s.severities && Object.keys(s.severities).length) {
      parts.push(el('h3', { text: 'By severity' }), groupTable('severities-table',
        ['Severity', 'Runs', 'Passed', 'Pass rate'], Object.keys(s.severities).map(function (k) {
          var g = s.severities[k];
          return [k, g.runs, g.passed, pct(g.pass_rate)];
        })));
    }
    return parts.length ? el('section', { class: 'groups' }, [el('h2', { text: 'Groups' })].concat(parts)) : null;
  }
`;
