/**
 * The report's view of a simulated call, spliced into the report's script
 * (client.ts) so it shares its helpers (`el`, `badge`, `fmtMs`, `pct`): the
 * conversation as it happened, who said what and when, how it ended, and
 * every score with its evidence (the goal, each metric and its per-reply
 * verdicts, the scorecard, the success signals). Like the rest of the
 * script it builds nodes with textContent only.
 */
export const SIMULATION_JS = String.raw`
  function verdictBadge(v) {
    return el('span', { class: 'badge ' + (v === 'yes' ? 'passed' : v === 'no' ? 'failed' : 'inconclusive'), text: v });
  }
  function passBadge(ok) { return badge(ok ? 'passed' : 'failed'); }
  function conversationLine(e) {
    var at = el('span', { class: 'at', text: fmtMs(e.at_ms) });
    if (e.kind === 'caller') return el('li', { class: 'caller' }, [at, el('b', { text: 'Caller' }), ' ', e.text]);
    if (e.kind === 'bot') return el('li', { class: 'bot' }, [at, el('b', { text: 'Bot' }), ' ', e.text]);
    if (e.kind === 'call') {
      var call = (e.name || '(unnamed)') + (e.args ? ' ' + JSON.stringify(e.args) : '') +
        (e.cancelled ? ' (cancelled)' : '');
      return el('li', { class: 'call' }, [at, el('b', { text: 'Function call' }), ' ', el('code', { text: call })]);
    }
    return el('li', { class: 'hangup' },
      [at, el('b', { text: 'Caller hung up' }), ' (' + (e.success ? 'succeeded' : 'gave up') + ') ', e.reason]);
  }
  function metricRow(m) {
    var value = m.kind === 'measured'
      ? (m.value === null || m.value === undefined ? '–' : String(m.value))
      : pct(m.score);
    var bounds = m.kind === 'measured'
      ? [m.min_value !== undefined ? '≥ ' + m.min_value : '', m.max_value !== undefined ? '≤ ' + m.max_value : '']
        .filter(Boolean).join(', ')
      : m.min_score !== undefined ? '≥ ' + pct(m.min_score) : '';
    var evidence = [m.reason];
    if (m.verdicts && m.verdicts.length) {
      evidence.push(el('details', null, [el('summary', { text: m.verdicts.length + ' reply verdict(s)' }),
        el('ul', { class: 'verdicts' }, m.verdicts.map(function (v) {
          return el('li', null, ['reply ' + v.turn + ' ', verdictBadge(v.verdict), ' ' + v.reason]);
        }))]));
    }
    return el('tr', null, [el('td', null, passBadge(m.passed)), el('td', null, el('code', { text: m.name })),
      el('td', { text: m.kind }), el('td', { class: 'num', text: value }), el('td', { class: 'num', text: bounds }),
      el('td', null, evidence)]);
  }
  function scorecardTable(card) {
    return el('table', { class: 'scorecard' }, [
      el('thead', null, el('tr', null, ['Dimension', 'Weight', 'Score', 'Judge said', 'Reason'].map(function (h) {
        return el('th', { text: h });
      }))),
      el('tbody', null, card.dimensions.map(function (d) {
        return el('tr', null, [el('td', { text: d.dimension.replace('_', ' ') }),
          el('td', { class: 'num', text: pct(d.weight) }),
          el('td', { class: 'num', text: d.score === null ? '–' : String(d.score) }),
          el('td', { class: 'num', text: d.judge_score === null ? '–' : String(d.judge_score) }),
          el('td', null, [d.reason,
            d.cap ? el('div', { class: 'note', text: 'capped at ' + d.cap.max + ': ' + d.cap.reason }) : null])]);
      })),
      el('tfoot', null, el('tr', null, [el('th', { text: 'Total' }), el('td'),
        el('td', { class: 'num', text: card.total.toFixed(2) + ' / 10' }),
        el('td', { class: 'num', text: 'pass at ' + card.pass_threshold }),
        el('td', null, [passBadge(card.passed), card.expected_answer !== undefined
          ? ' expected answer: ' +
            (card.expected_answer === null ? '(none: the bot must say it does not know)' : card.expected_answer)
          : ''])])),
    ]);
  }
  function signalItem(s) {
    return el('li', null, [passBadge(s.passed), ' ', el('code', { text: s.signal }), ' ' + s.reason,
      s.assertions ? el('ul', null, s.assertions.map(function (a) {
        return el('li', null, [verdictBadge(a.verdict), ' ' + a.claim + ': ' + a.reason]);
      })) : null]);
  }
  function nemoValueBadge(v) {
    if (v === 'N/A' || v === null || v === undefined) {
      return el('span', { class: 'badge inconclusive na', text: 'N/A' });
    }
    return passBadge(v === true);
  }
  function nemoRow(s, excluded) {
    var rate = s.pass_rate !== undefined ? ' (pass rate ' + pct(s.pass_rate) + ')' : '';
    return el('tr', { class: excluded ? 'excluded' : '' }, [el('td', null, nemoValueBadge(s.value)),
      el('td', null, el('code', { text: s.signal })), el('td', { text: excluded ? 'excluded' : 'whitelisted' }),
      el('td', { text: s.reason + rate })]);
  }
  function nemoView(n) {
    var excluded = n.success_breakdown.excluded;
    var rows = n.signals.map(function (s) { return nemoRow(s, excluded.indexOf(s.signal) >= 0); });
    n.success_breakdown.not_applicable.forEach(function (key) {
      if (!n.signals.some(function (s) { return s.signal === key; })) {
        rows.push(nemoRow({ signal: key, value: null, reason: 'no value for it in this run' }, false));
      }
    });
    var parts = [el('h4', { text: 'NeMo signals' }),
      el('p', { class: 'meta' }, ['is_successful ', nemoValueBadge(n.is_successful),
        ' · is_task_successful ', nemoValueBadge(n.is_task_successful),
        ' · stop_reason ', el('code', { text: n.stop_reason }), ' · ' + n.agent_turns + ' agent turn(s)' +
        (n.below_min_agent_turns ? ' (below --min-agent-turns ' + n.min_agent_turns + ': counted failed)' : '')]),
      el('table', { class: 'nemo' }, [
        el('thead', null, el('tr', null, ['', 'Signal', 'Gate', 'Reason'].map(function (h) {
          return el('th', { text: h });
        }))),
        el('tbody', null, rows),
      ])];
    if (n.summary_error !== undefined) {
      parts.push(el('p', { class: 'note', text: 'No summary from the bot: ' + n.summary_error }));
    }
    return parts;
  }
  function simulationView(s) {
    var box = el('div', { class: 'simulation' });
    add(box, el('h3', { text: 'Simulated call' }));
    add(box, el('p', { class: 'meta' }, [passBadge(s.passed), ' ended by ',
      el('code', { class: 'ended-by', text: s.ended_by }), ': ' + s.end_detail,
      ' · ' + s.persona_turns + ' caller turn(s) · ' + s.duration_s + ' s · caller played by ' + s.simulator]));
    add(box, el('p', { class: 'goal' }, ['Goal ', verdictBadge(s.success.verdict), ' ',
      el('q', { text: s.success.criterion }), ' ' + s.success.reason]));
    add(box, el('ol', { class: 'conversation' }, s.transcript.map(conversationLine)));
    if (s.nemo) nemoView(s.nemo).forEach(function (node) { add(box, node); });
    if (s.metrics.length) {
      add(box, el('h4', { text: 'Metrics' }));
      add(box, el('table', { class: 'sim-metrics' }, [
        el('thead', null, el('tr', null, ['', 'Metric', 'Kind', 'Score', 'Bound', 'Evidence'].map(function (h) {
          return el('th', { text: h });
        }))),
        el('tbody', null, s.metrics.map(metricRow)),
      ]));
    }
    if (s.scorecard) {
      add(box, el('h4', { text: 'Scorecard (earshot extension)' }));
      add(box, scorecardTable(s.scorecard));
    }
    if (s.signals) {
      add(box, el('h4', { text: 'Success signals (earshot extension)' }));
      add(box, el('ul', { class: 'signals' }, s.signals.map(signalItem)));
    }
    return box;
  }
`;
