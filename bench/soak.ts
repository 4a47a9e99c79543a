/**
 * Long-call soak (issue 7): one audio conversation against the reference bot,
 * in real time, for an hour (or --minutes), watching the harness for leaks and
 * for timing that degrades as the call goes on.
 *
 *   npm run bench:soak                                  # 60 minutes, 5-minute windows
 *   npx tsx bench/soak.ts --minutes 10 --window-minutes 1
 *   npx tsx bench/soak.ts --minutes 2 --window-minutes 0.5 --sample-seconds 5   # a smoke run
 *   npx tsx bench/soak.ts --minutes 60 --json soak.json --keep
 *   npx tsx bench/soak.ts --minutes 5 --stall-ms 200 --stall-every-s 5   # the main thread stuck 200 ms every 5 s
 *   npx tsx bench/soak.ts --minutes 5 --pacer main                       # the in-thread pacer (before issue 16)
 *
 * Real time, not compressed: the harness streams its microphone as 20 ms
 * frames on the pacer's clock, the bot hears them through its VAD and answers
 * with paced speech, and the harness runs VAD and PocketSphinx on every reply.
 * Compressing time would change exactly what is under test (timers, pacing,
 * queues that drain at the speed of speech), so the hour is an hour.
 *
 * The conversation is one scenario of many turns (Flite speaks a question,
 * the bot answers, the answer is transcribed by PocketSphinx and checked),
 * sized by --turn-seconds to last about --minutes and run through
 * `runSession` with the AudioEngine, as `earshot run` runs it (a deadline
 * stops it should a loaded machine make it run long). The bot (`earshot
 * refbot`, built CLI) runs in its own process; everything measured is the
 * harness, which is this process.
 *
 * The microphone is paced where `earshot run` paces it: on the pacer thread
 * (`--pacer thread`, the default; src/pacing/), or with `--pacer main` on
 * the in-thread pacer it used before issue 16. `--stall-ms N --stall-every-s
 * S` holds the main thread in a busy loop for N ms every S s, as a heavy judge
 * call or report would: the pacer thread must not notice.
 *
 * Every --sample-seconds: RSS, heap, external memory. Per window: peak and
 * final RSS, event-loop delay (perf_hooks.monitorEventLoopDelay, the 10 ms
 * sampling interval taken off: p50, p99, max), the microphone's lateness
 * (pacer thread: every frame's sent − due, p50, p99, max, and the pacer
 * thread's CPU; in-thread pacer: each timer wake against its deadline, p50,
 * p99, max; both: the mean lateness of every frame), turns finished and passed, their median wall
 * time and voice-to-voice latency, the bot's RSS, and CPU pressure on the
 * machine (Linux PSI: the share of time some task waited for a CPU). At the end: RSS growth after warm-up (last sample
 * minus the first one after the first window) and its slope by least squares,
 * and the slope of the per-window p99 lateness. Goal: growth < 50 MB over the
 * hour, and no lateness trend.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { monotonicClock, type Clock } from '../src/core/clock.js';
import { DurationHistogram } from '../src/core/histogram.js';
import { PreciseTimerDriver, type TimerDriver } from '../src/core/timers.js';
import { Pacer } from '../src/audio/index.js';
import { ThreadPacer } from '../src/pacing/index.js';
import { loadFileSync, type Scenario } from '../src/scenario/index.js';
import type { ScenarioResult } from '../src/results/index.js';
import { runSession } from '../src/drivers/index.js';
import { AudioEngine } from '../src/session/index.js';
import { cpuStallUs, threadCpuMs } from './machine.js';
import {
  delayMs,
  ELD_RESOLUTION_MS,
  median,
  procRssMb,
  r1,
  r2,
  slope,
  soakMarkdown,
  type Sample,
  type Window,
} from './soak-report.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const MB = 1024 * 1024;

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '60' },
    'window-minutes': { type: 'string' },
    'sample-seconds': { type: 'string', default: '10' },
    json: { type: 'string' },
    keep: { type: 'boolean', default: false },
    'turn-seconds': { type: 'string', default: '5.2' },
    pacer: { type: 'string', default: 'thread' },
    'stall-ms': { type: 'string', default: '0' },
    'stall-every-s': { type: 'string', default: '5' },
  },
});
const pacerKind = args.pacer;
const stallMs = Number(args['stall-ms']);
const stallEveryMs = Number(args['stall-every-s']) * 1000;
const minutes = Number(args.minutes);
const windowMinutes = Number(args['window-minutes'] ?? (minutes >= 30 ? 5 : Math.max(1, Math.round(minutes / 6))));
const sampleMs = Number(args['sample-seconds']) * 1000;
if (
  !(minutes > 0) ||
  !(windowMinutes > 0) ||
  !(sampleMs >= 1000) ||
  !['thread', 'main'].includes(pacerKind) ||
  !(stallMs >= 0) ||
  !(stallEveryMs > stallMs)
) {
  console.error(
    'usage: tsx bench/soak.ts [--minutes 60] [--window-minutes 5] [--sample-seconds 10] [--pacer thread|main] [--stall-ms N --stall-every-s S] [--json FILE] [--keep]',
  );
  process.exit(2);
}
if (!existsSync(CLI)) {
  console.error(`build first (npx tsc -p tsconfig.build.json): ${CLI} is missing`);
  process.exit(2);
}

/** Questions the default brain answers, with a word PocketSphinx reliably hears in each answer. */
const QUESTIONS: ReadonlyArray<[string, string]> = [
  ['What is the capital of Germany?', 'berlin'],
  ['What is the capital of France?', 'paris'],
  ['What is the capital of Spain?', 'madrid'],
  ['Tell me a joke.', 'chicken'],
  ['What are your opening hours?', 'monday'],
  ['Where is your office?', 'street'],
];

/** Each timer wake's lateness against its deadline, into whichever histogram is current. */
class MeasuredTimers implements TimerDriver {
  current = new DurationHistogram();
  constructor(
    private readonly inner: TimerDriver,
    private readonly clock: Clock,
  ) {}
  at(atMs: number, callback: () => void, early?: () => void): () => void {
    return this.inner.at(
      atMs,
      () => {
        this.current.record(this.clock.now() - atMs);
        callback();
      },
      early,
    );
  }
}

function startBot(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, [CLI, 'refbot', '--port', '0', '--quiet'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // An hour-long run is often stopped by hand or by a job runner's SIGTERM: the bot goes with it, not left listening.
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      child.kill('SIGTERM');
      process.exit(128 + (signal === 'SIGINT' ? 2 : signal === 'SIGTERM' ? 15 : 1));
    });
  }
  return new Promise((resolveBot, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /listening on (ws:\/\/\S+)/.exec(out);
      if (m) resolveBot({ url: m[1], child });
    });
    child.once('exit', (code) => reject(new Error(`refbot exited (${code}) before listening`)));
  });
}

function writeScenario(dir: string, turns: number): string {
  const lines = [
    '# Generated by bench/soak.ts: a long audio conversation with the reference bot.',
    'name: soak',
    'stop_on_failure: false',
    'user:',
    '  modality: audio',
    '  speech: {service: flite, voice: slt}',
    'judge:',
    '  modality: audio',
    '  transcription: {service: sphinx}',
    'turns:',
    '  - expect:',
    '      - event: bot_audio_stopped',
    '        within_ms: 30000',
  ];
  for (let i = 0; i < turns; i++) {
    const [question, word] = QUESTIONS[i % QUESTIONS.length];
    lines.push(
      `  - user: "${question}"`,
      '    expect:',
      '      - event: response',
      `        text_contains: "${word}"`,
      '        within_ms: 20000',
    );
  }
  const file = join(dir, 'soak.yaml');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function main(): Promise<void> {
  const clock = monotonicClock;
  const work = mkdtempSync(join(tmpdir(), 'earshot-soak-'));
  const durationMs = minutes * 60_000;
  const windowMs = windowMinutes * 60_000;
  // Sized to last about `minutes` (a turn takes ~5.2 s here since the reference bot's pooled recognizer and trimmed
  // lead-in: question, end-of-turn silence, answer; it was 7.5 s on 1 December), so
  // the session ends by itself and its result (with per-turn latencies) is built as in a real run; a
  // deadline stops it anyway if a loaded machine makes it run long.
  const turnSeconds = Number(args['turn-seconds']);
  const scenario = loadFileSync(
    writeScenario(work, Math.max(1, Math.round((minutes * 60 - 10) / turnSeconds))),
  ) as Scenario;
  const bot = await startBot();
  // The in-thread pacer's timer wakes are measured; the pacer thread reports every frame instead.
  const threaded = pacerKind === 'thread' ? new ThreadPacer() : null;
  const timers = threaded ? null : new MeasuredTimers(new PreciseTimerDriver({ clock }), clock);
  const pacer = threaded ?? new Pacer({ clock, timers: timers! });
  const engine = new AudioEngine({ pacer, clock, noCache: false, cacheDir: join(work, 'tts-cache') });
  const controller = new AbortController();

  console.log(
    `soak: ${minutes} min real-time audio conversation against ${bot.url}; windows of ${windowMinutes} min, samples every ${sampleMs / 1000} s`,
  );
  console.log(
    `pacer: ${threaded ? 'the pacer thread' : 'in-thread (main)'}${stallMs > 0 ? `; the main thread stalls ${stallMs} ms every ${stallEveryMs / 1000} s` : ''}`,
  );
  console.log(
    `machine: ${cpus().length} cores, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; node ${process.version}; work dir ${work}`,
  );

  const samples: Sample[] = [];
  const windows: Window[] = [];
  let eld: IntervalHistogram = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
  eld.enable();
  let turnsInWindow = 0;
  let passedInWindow = 0;
  let turnMsInWindow: number[] = [];
  let turnsTotal = 0;
  let passedTotal = 0;
  let windowStart = clock.now();
  let frameCountAtStart = 0;
  let frameSumAtStart = 0;
  let stallAtStart = cpuStallUs();
  let threadCpuAtStart: number | null = null;
  const threadCpu = (): number | null => (threaded?.osThreadId ? threadCpuMs([threaded.osThreadId]) : null);
  let rssMaxInWindow = 0;
  const t0 = clock.now();

  const takeSample = (): void => {
    const m = process.memoryUsage();
    const s: Sample = {
      at_min: (clock.now() - t0) / 60_000,
      rss_mb: m.rss / MB,
      heap_used_mb: m.heapUsed / MB,
      external_mb: m.external / MB,
    };
    samples.push(s);
    rssMaxInWindow = Math.max(rssMaxInWindow, s.rss_mb);
  };
  const closeWindow = (): void => {
    const now = clock.now();
    const frames = pacer.stats().frameLateness;
    const frameSum = (frames.meanMs ?? 0) * frames.count;
    const wake = timers?.current.summary() ?? new DurationHistogram().summary();
    const framesInWindow = threaded?.takeLatenessWindow() ?? null;
    const cpuNow = threadCpu();
    const stall = cpuStallUs();
    const last = samples[samples.length - 1];
    windows.push({
      window: windows.length + 1,
      from_min: r1((windowStart - t0) / 60_000)!,
      to_min: r1((now - t0) / 60_000)!,
      rss_end_mb: r1(last?.rss_mb ?? null),
      rss_max_mb: r1(rssMaxInWindow),
      heap_used_end_mb: r1(last?.heap_used_mb ?? null),
      eld_p50_ms: r2(delayMs(eld.percentile(50))),
      eld_p99_ms: r2(delayMs(eld.percentile(99))),
      eld_max_ms: r2(delayMs(eld.max)),
      wake_late_p50_ms: r2(wake.p50Ms),
      wake_late_p99_ms: r2(wake.p99Ms),
      wake_late_max_ms: r2(wake.maxMs),
      frame_late_p50_ms: r2(framesInWindow?.p50Ms ?? null),
      frame_late_p99_ms: r2(framesInWindow?.p99Ms ?? null),
      frame_late_max_ms: r2(framesInWindow?.maxMs ?? null),
      pacer_thread_cpu_pct:
        cpuNow !== null && threadCpuAtStart !== null
          ? r2((100 * (cpuNow - threadCpuAtStart)) / (now - windowStart))
          : null,
      frame_late_mean_ms:
        frames.count > frameCountAtStart ? r2((frameSum - frameSumAtStart) / (frames.count - frameCountAtStart)) : null,
      frames: frames.count - frameCountAtStart,
      turns: turnsInWindow,
      turns_passed: passedInWindow,
      turn_p50_ms: median(turnMsInWindow),
      v2v_p50_ms: null,
      bot_rss_mb: r1(procRssMb(bot.child.pid)),
      cpu_pressure_pct:
        stall !== null && stallAtStart !== null
          ? r1(((stall - stallAtStart) / 1000 / (now - windowStart)) * 100)
          : null,
    });
    const w = windows[windows.length - 1];
    console.log(
      `  window ${w.window} (${w.from_min}-${w.to_min} min): rss ${w.rss_end_mb} MB (max ${w.rss_max_mb}), heap ${w.heap_used_end_mb} MB, ` +
        `event loop p99 ${w.eld_p99_ms} ms, ` +
        (threaded
          ? `frame late p99 ${w.frame_late_p99_ms} ms max ${w.frame_late_max_ms} ms, pacer thread ${w.pacer_thread_cpu_pct}% cpu, `
          : `wake late p99 ${w.wake_late_p99_ms} ms max ${w.wake_late_max_ms} ms, `) +
        `turns ${w.turns_passed}/${w.turns}, turn p50 ${w.turn_p50_ms} ms, bot rss ${w.bot_rss_mb} MB, cpu pressure ${w.cpu_pressure_pct}%`,
    );
    eld.disable();
    eld = monitorEventLoopDelay({ resolution: ELD_RESOLUTION_MS });
    eld.enable();
    if (timers) timers.current = new DurationHistogram();
    turnsInWindow = 0;
    passedInWindow = 0;
    turnMsInWindow = [];
    rssMaxInWindow = 0;
    windowStart = now;
    frameCountAtStart = frames.count;
    frameSumAtStart = frameSum;
    stallAtStart = stall;
    threadCpuAtStart = cpuNow;
  };

  const sampler = setInterval(() => {
    takeSample();
    if (clock.now() - windowStart >= windowMs - sampleMs / 2) closeWindow();
  }, sampleMs);
  const deadline = setTimeout(() => controller.abort(new Error('soak: time is up')), durationMs * 1.25 + 60_000);
  // A heavy judge call or report, as the main thread would do it: nothing else runs on it meanwhile.
  const staller =
    stallMs > 0
      ? setInterval(() => {
          const until = performance.now() + stallMs;
          while (performance.now() < until);
        }, stallEveryMs)
      : null;
  // The window's thread CPU counts from the thread's first tick.
  void threaded?.whenReady().then(() => (threadCpuAtStart = threadCpu()));

  let ended = 'stopped at the deadline (the machine was slower than --turn-seconds assumed)';
  let result: ScenarioResult | null = null;
  try {
    const outcome = await runSession(scenario, {
      url: bot.url,
      media: engine.media,
      recordingPath: join(work, 'soak.wav'),
      clock,
      signal: controller.signal,
      onProgress: (p) => {
        if (p.type !== 'turn_end' || p.turn.index === 0) return;
        turnsInWindow++;
        turnsTotal++;
        if (p.turn.status === 'passed') {
          passedInWindow++;
          passedTotal++;
        }
        turnMsInWindow.push(p.turn.duration_ms);
      },
    });
    result = outcome.result;
    ended = 'all turns done';
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(deadline);
    clearInterval(sampler);
    if (staller) clearInterval(staller);
    takeSample();
    if (clock.now() - windowStart > sampleMs) closeWindow();
    eld.disable();
    await engine.close();
    pacer.close();
    bot.child.kill('SIGTERM');
  }

  // Voice-to-voice latency per window, placed by when the user stopped speaking.
  for (const w of windows) {
    const inWindow = (result?.turns ?? []).filter((t) => {
      const end = t.metrics?.user_speech_end_at_ms;
      return typeof end === 'number' && end / 60_000 >= w.from_min && end / 60_000 < w.to_min;
    });
    w.v2v_p50_ms = median(
      inWindow.map((t) => t.metrics?.voice_to_voice_ms).filter((v): v is number => typeof v === 'number'),
    );
  }
  const warm = samples.find((s) => s.at_min >= windowMinutes) ?? samples[0];
  const lastSample = samples[samples.length - 1];
  const afterWarm = samples.filter((s) => s.at_min >= warm.at_min);
  const growthMb = lastSample.rss_mb - warm.rss_mb;
  const rssSlopeMbPerHour = slope(afterWarm.map((s) => [s.at_min / 60, s.rss_mb]));
  const heapSlopeMbPerHour = slope(afterWarm.map((s) => [s.at_min / 60, s.heap_used_mb]));
  // The lateness trend: of every frame's on the pacer thread, of each timer wake's in-thread.
  const p99Of = (w: Window): number | null => (threaded ? w.frame_late_p99_ms : w.wake_late_p99_ms);
  const lateSlopeMsPerHour = slope(windows.filter((w) => p99Of(w) !== null).map((w) => [w.to_min / 60, p99Of(w)!]));
  const eldSlopeMsPerHour = slope(
    windows.filter((w) => w.eld_p99_ms !== null).map((w) => [w.to_min / 60, w.eld_p99_ms!]),
  );
  const frameStats = pacer.stats().frameLateness;
  const report = {
    command: `npx tsx bench/soak.ts ${process.argv.slice(2).join(' ')}`.trim(),
    minutes,
    window_minutes: windowMinutes,
    ended,
    turns: turnsTotal,
    turns_passed: passedTotal,
    peak_rss_mb: r1(process.resourceUsage().maxRSS / 1024),
    rss_after_warmup_mb: r1(warm.rss_mb),
    rss_end_mb: r1(lastSample.rss_mb),
    rss_growth_after_warmup_mb: r1(growthMb),
    rss_slope_mb_per_hour: r1(rssSlopeMbPerHour),
    heap_slope_mb_per_hour: r1(heapSlopeMbPerHour),
    pacer: pacerKind,
    stall_ms: stallMs,
    stall_every_s: stallEveryMs / 1000,
    late_p99_slope_ms_per_hour: r2(lateSlopeMsPerHour),
    eld_p99_slope_ms_per_hour: r2(eldSlopeMsPerHour),
    frames: frameStats.count,
    frame_late_p50_ms: r2(frameStats.p50Ms),
    frame_late_p99_ms: r2(frameStats.p99Ms),
    frame_late_max_ms: r2(frameStats.maxMs),
    goal_rss_growth_under_50_mb: growthMb < 50,
    windows,
    samples: samples.map((s) => ({
      at_min: r2(s.at_min),
      rss_mb: r1(s.rss_mb),
      heap_used_mb: r1(s.heap_used_mb),
      external_mb: r1(s.external_mb),
    })),
  };
  console.log(`\n${soakMarkdown(report, threaded !== null)}`);
  if (args.json) writeFileSync(args.json, `${JSON.stringify(report, null, 2)}\n`);
  if (args.keep) console.log(`kept ${work} (soak.yaml, soak.wav)`);
  else rmSync(work, { recursive: true, force: true });
}

await main();
