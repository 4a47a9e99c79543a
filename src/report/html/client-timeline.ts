/**
 * The report's timeline of one scenario run, spliced into the report's script
 * (client.ts) so it shares its helpers (`el`, `svg`, `add`, `fmtMs`,
 * `inputText`): the turns, both audio channels and the events on one time
 * axis, with a playhead that follows the recording and a click that seeks it.
 * Like the rest of the script it builds nodes with textContent only.
 */
export const TIMELINE_JS = String.raw`  var W = 1000, LEFT = 120, RIGHT = 990;

  function decode(b64) {
    var bin = atob(b64), out = new Int8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = (bin.charCodeAt(i) << 24) >> 24;
    return out;
  }
  function niceStep(spanMs) {
    var steps = [100, 200, 500, 1000, 2000, 5000, 10000, 15000, 30000, 60000, 120000, 300000, 600000];
    for (var i = 0; i < steps.length; i++) if (spanMs / steps[i] <= 12) return steps[i];
    return 1200000;
  }

  function timeline(r) {
    var end = r.timeline_end_ms;
    var x = function (t) { return LEFT + (Math.max(0, Math.min(end, t)) / end) * (RIGHT - LEFT); };
    var names = [];
    r.events.forEach(function (e) { if (names.indexOf(e.name) < 0) names.push(e.name); });
    var rec = r.recording;
    var env = rec && rec.envelope;
    var lanes = [{ kind: 'turns', h: 20 }];
    if (env) {
      for (var c = 0; c < env.channels.length; c++) lanes.push({ kind: 'wave', channel: c, h: 44 });
    }
    names.forEach(function (n) { lanes.push({ kind: 'event', name: n, h: 14 }); });
    var AXIS = 18, y = AXIS;
    lanes.forEach(function (l) { l.y = y; y += l.h + 4; });
    var H = y + 2;
    var root = svg('svg', {
      class: 'timeline', viewBox: '0 0 ' + W + ' ' + H, role: 'img', 'aria-label': 'Timeline of ' + r.name,
    });
    var step = niceStep(end);
    for (var t = 0; t <= end; t += step) {
      add(root, [svg('line', { class: 'grid', x1: x(t), x2: x(t), y1: AXIS - 4, y2: H }),
        svg('text', { class: 'tick', x: x(t) + 2, y: 11, text: fmtMs(t) })]);
    }
    lanes.forEach(function (l) {
      var mid = l.y + l.h / 2;
      if (l.kind === 'turns') {
        add(root, svg('text', { class: 'lane', x: 4, y: mid + 4, text: 'turns' }));
        r.turns.forEach(function (tn) {
          if (typeof tn.started_at_ms !== 'number') return;
          var x0 = x(tn.started_at_ms), x1 = Math.max(x0 + 2, x(tn.started_at_ms + tn.duration_ms));
          add(root, svg('rect', { class: 'turn ' + tn.status, x: x0, y: l.y, width: x1 - x0, height: l.h },
            svg('title', { text: 'turn ' + (tn.index + 1) + ' · ' + tn.status + ' · ' + inputText(tn) })));
          add(root, svg('text', { class: 'turn-label', x: x0 + 3, y: mid + 4, text: 'T' + (tn.index + 1) }));
          var m = tn.metrics || {};
          if (typeof m.user_speech_end_at_ms === 'number' && typeof m.bot_audio_onset_at_ms === 'number') {
            add(root, svg('line', {
              class: 'v2v', x1: x(m.user_speech_end_at_ms), x2: x(m.bot_audio_onset_at_ms),
              y1: l.y + l.h - 2, y2: l.y + l.h - 2,
            },
              svg('title', { text: 'voice-to-voice ' + fmtMs(m.bot_audio_onset_at_ms - m.user_speech_end_at_ms) })));
          }
        });
      } else if (l.kind === 'wave') {
        add(root, svg('text', {
          class: 'lane', x: 4, y: mid + 4,
          text: l.channel === 0 ? 'caller audio' : l.channel === 1 ? 'bot audio' : 'channel ' + (l.channel + 1),
        }));
        var packed = decode(env.channels[l.channel]);
        var n = env.buckets, top = [], bottom = [];
        for (var b = 0; b < n; b++) {
          var bx = x(rec.started_at_ms + ((b + 0.5) / n) * env.duration_ms).toFixed(1);
          top.push(bx + ',' + (mid - (packed[b * 2 + 1] / 127) * (l.h / 2)).toFixed(1));
          bottom.push(bx + ',' + (mid - (packed[b * 2] / 127) * (l.h / 2) + 0.5).toFixed(1));
        }
        add(root, svg('polygon', { class: 'wave ch' + l.channel, points: top.concat(bottom.reverse()).join(' ') }));
      } else {
        add(root, svg('text', { class: 'lane', x: 4, y: mid + 4, text: l.name }));
        r.events.forEach(function (e) {
          if (e.name !== l.name) return;
          var label = e.name + ' @ ' + fmtMs(e.at_ms) +
            (e.text !== undefined ? ': ' + e.text : e.function_name ? ': ' + e.function_name : '');
          add(root, svg('rect', { class: 'event', x: x(e.at_ms) - 1, y: l.y + 1, width: 3, height: l.h - 2 },
            svg('title', { text: label })));
        });
      }
    });
    var start = rec ? rec.started_at_ms : 0;
    var head = svg('line', { class: 'playhead', x1: x(start), x2: x(start), y1: 0, y2: H, 'data-time-ms': start });
    add(root, head);
    var wrap = el('div', { class: 'media' }, root);
    if (!rec) return wrap;
    if (rec.note) add(wrap, el('p', { class: 'note', text: rec.note }));
    var audio = el('audio', { controls: '', preload: 'metadata', src: rec.src });
    var readout = el('span', { class: 'readout', text: fmtMs(start) });
    add(wrap, el('div', { class: 'player' }, [audio, readout]));
    var raf = 0;
    function sync() {
      var t = start + audio.currentTime * 1000;
      var px = x(t);
      head.setAttribute('x1', px); head.setAttribute('x2', px); head.setAttribute('data-time-ms', t.toFixed(1));
      readout.textContent = fmtMs(t);
    }
    function loop() { sync(); raf = audio.paused ? 0 : requestAnimationFrame(loop); }
    audio.addEventListener('timeupdate', sync);
    audio.addEventListener('seeked', sync);
    audio.addEventListener('play', function () { if (!raf) raf = requestAnimationFrame(loop); });
    root.addEventListener('click', function (ev) {
      var ctm = root.getScreenCTM();
      if (!ctm) return;
      var p = root.createSVGPoint();
      p.x = ev.clientX; p.y = ev.clientY;
      var sx = p.matrixTransform(ctm.inverse()).x;
      var t = ((sx - LEFT) / (RIGHT - LEFT)) * end;
      if (t < start) t = start;
      audio.currentTime = (t - start) / 1000;
      sync();
    });
    return wrap;
  }`;
