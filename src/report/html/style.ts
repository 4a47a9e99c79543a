/** The report's stylesheet, inlined; its sha256 goes into the Content-Security-Policy. */
export const STYLE_CSS = String.raw`
:root { color-scheme: light dark; --fg: #1d2329; --dim: #667; --bg: #fff; --line: #dde1e6; --panel: #f6f8fa;
  --pass: #1a7f37; --fail: #cf222e; --err: #8250df; --skip: #9a6700; --user: #0969da; --bot: #bf3989; --head: #e36209; }
@media (prefers-color-scheme: dark) {
  :root { --fg: #e6edf3; --dim: #8b949e; --bg: #0d1117; --line: #30363d; --panel: #161b22;
    --pass: #3fb950; --fail: #f85149; --err: #a371f7; --skip: #d29922; --user: #58a6ff; --bot: #f778ba;
    --head: #ffa657; }
}
* { box-sizing: border-box; }
body { margin: 0; padding: 1rem 1.5rem 3rem; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif;
  color: var(--fg); background: var(--bg); }
h1 { font-size: 1.4rem; margin: 0 0 .2rem; } h2 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
h3 { font-size: 1rem; margin: 1rem 0 .4rem; }
.meta, .dim { color: var(--dim); } .meta { margin: .2rem 0 .8rem; }
code { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
a { color: var(--user); }
.filters { display: flex; flex-wrap: wrap; gap: .4rem; align-items: center; margin: .5rem 0 1rem; position: sticky;
  top: 0; background: var(--bg); padding: .4rem 0; z-index: 1; }
.filters button { border: 1px solid var(--line); background: var(--panel); color: var(--fg); border-radius: 999px;
  padding: .2rem .8rem; cursor: pointer; font: inherit; }
.filters button[aria-pressed="true"] { border-color: var(--fg); font-weight: 600; }
.filters .count { color: var(--dim); }
.filters input { margin-left: .5rem; padding: .25rem .6rem; border: 1px solid var(--line); border-radius: 6px;
  background: var(--bg); color: var(--fg); min-width: 16rem; font: inherit; }
.shown { color: var(--dim); margin-left: .5rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; vertical-align: top; padding: .3rem .5rem; border-bottom: 1px solid var(--line); }
th { font-weight: 600; background: var(--panel); }
td.num { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.reason { color: var(--fail); max-width: 40rem; overflow-wrap: anywhere; }
.badge { display: inline-block; min-width: 4.2rem; text-align: center; border-radius: 4px; padding: 0 .35rem;
  font-size: 12px; font-weight: 600; color: #fff; background: var(--dim); }
.badge.passed { background: var(--pass); } .badge.failed { background: var(--fail); }
.badge.error { background: var(--err); }
.badge.skipped, .badge.not_run, .badge.flaky { background: var(--skip); }
.badge.inconclusive { background: var(--head); }
.doubt { color: var(--head); white-space: pre-wrap; overflow-wrap: anywhere; }
section.scenario { border: 1px solid var(--line); border-radius: 8px; margin: .8rem 0; padding: .4rem .8rem; }
section.scenario > details > summary { cursor: pointer; font-size: 1rem; padding: .2rem 0; }
section.scenario .name { font-weight: 600; }
.failure { color: var(--fail); white-space: pre-wrap; overflow-wrap: anywhere; }
ul.failures, ul.expectations { list-style: none; padding: 0; margin: 0; }
ul.expectations li { margin: 0 0 .3rem; }
blockquote.said { margin: .2rem 0 .2rem 1rem; padding: .1rem .5rem; border-left: 3px solid var(--bot);
  white-space: pre-wrap; overflow-wrap: anywhere; }
.judge, .note { color: var(--dim); font-style: italic; }
td.metrics dl { display: grid; grid-template-columns: auto auto; gap: 0 .6rem; margin: 0; }
td.metrics dt { color: var(--dim); } td.metrics dd { margin: 0; font-variant-numeric: tabular-nums; }
ol.transcript { padding-left: 1.5rem; }
ol.transcript li { margin-bottom: .4rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.caller b { color: var(--user); } .bot b { color: var(--bot); } .heard { color: var(--dim); }
.media { margin: .6rem 0; }
svg.timeline { width: 100%; height: auto; display: block; background: var(--panel); border-radius: 6px;
  cursor: crosshair; }
svg .grid { stroke: var(--line); stroke-width: 1; }
svg .tick, svg .lane, svg .turn-label { font: 10px system-ui, sans-serif; fill: var(--dim); }
svg .turn-label { fill: #fff; pointer-events: none; }
svg .turn { opacity: .8; } svg .turn.passed { fill: var(--pass); } svg .turn.failed { fill: var(--fail); }
svg .turn.not_run { fill: var(--skip); } svg .turn.inconclusive { fill: var(--head); }
svg .v2v { stroke: var(--head); stroke-width: 3; }
svg .wave.ch0 { fill: var(--user); } svg .wave.ch1 { fill: var(--bot); } svg .wave { fill: var(--dim); }
svg .event { fill: var(--fg); opacity: .75; }
svg .playhead { stroke: var(--head); stroke-width: 2; pointer-events: none; }
.player { display: flex; align-items: center; gap: .8rem; margin-top: .4rem; }
.player audio { width: min(40rem, 100%); }
.readout { font-variant-numeric: tabular-nums; color: var(--dim); }
details.events table td { font-size: 12px; overflow-wrap: anywhere; }
.simulation ol.conversation { list-style: none; padding: 0; margin: .4rem 0; }
.simulation ol.conversation li { margin: 0 0 .3rem; white-space: pre-wrap; overflow-wrap: anywhere; }
.simulation .at { display: inline-block; min-width: 5rem; color: var(--dim); font-variant-numeric: tabular-nums; }
.simulation .call, .simulation .hangup { color: var(--dim); } .simulation .hangup b { color: var(--head); }
ul.signals, ul.verdicts { list-style: none; padding: 0; margin: 0; } ul.signals li { margin: 0 0 .3rem; }
table.nemo tr.excluded { opacity: .55; } table.nemo tr.excluded code { font-style: italic; }
.gaia .legend { font-size: 12px; margin: .2rem 0 .4rem; }
table.gaia-grid td.na { color: var(--dim); font-style: italic; } table.gaia-grid td.capped { color: var(--fail); }
table.gaia-grid td.total { font-weight: 600; } table.gaia-grid tr.failed td.total { color: var(--fail); }
ol.gaia-turns li { margin: 0 0 .4rem; white-space: pre-wrap; overflow-wrap: anywhere; }
section.groups table.groups { width: auto; min-width: 24rem; margin-bottom: .6rem; }
[hidden] { display: none !important; }
`;
