import { mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { monotonicClock } from '../core/clock.js';
import { EarshotError, errorMessage } from '../core/errors.js';
import type { ScenarioResult } from '../results/index.js';
import { checkSphinxInstalled, DEFAULT_CODEC, type AudioEngineOptions, type SessionOptions } from '../session/index.js';
import { PortAllocator } from '../bots/index.js';
import { defaultOutDir, runScenarios, type RunnerIo, type RunScenariosOutcome } from '../runner/index.js';
import { startRefbotChild } from './refbot-child.js';

/**
 * `earshot demo`: the reference bot in a subprocess (its own process, so its
 * real-time audio and the harness's do not share an event loop), the bundled
 * audio scenarios run against it with `earshot run`'s machinery, and a short
 * account of what happened: where the results and recordings are, and how
 * fast the bot answered each spoken turn.
 */
export interface DemoOptions extends RunnerIo {
  outDir?: string;
  wire?: NonNullable<SessionOptions['codec']>;
  reporter?: string;
  /** Scenario files or folders; default the package's `scenarios/audio`. */
  scenarios?: readonly string[];
  /** How to run `earshot` for the bot; default this package's built CLI. */
  selfCommand?: readonly string[];
  audio?: AudioEngineOptions;
  /** How long the bot may take to accept connections (default 30 s). */
  spawnTimeoutMs?: number;
}

export interface DemoOutcome extends RunScenariosOutcome {
  botUrl: string;
  /** The reference bot's log, beside the results. */
  botLog: string;
}

/** The demo cannot run on this machine (a missing system package), with what to do about it. */
export class DemoSetupError extends EarshotError {
  constructor(
    readonly what: string,
    readonly fix: string,
  ) {
    super(`${what}; ${fix}`);
    this.name = 'DemoSetupError';
  }
}

/** `<package>/scenarios/audio`, wherever the command is run from (src/tools or dist/tools → the package root). */
export const DEMO_SCENARIOS_DIR = fileURLToPath(new URL('../../scenarios/audio', import.meta.url));
const DEMO_BASE_PORT = 7860;
/** The pause a Pipecat TTS leaves between sentences, which the demo's bot leaves too (barge-ins bridge it). */
const DEMO_SENTENCE_GAP_MS = 400;

export async function runDemo(options: DemoOptions = {}): Promise<DemoOutcome> {
  try {
    checkSphinxInstalled();
  } catch (err) {
    throw new DemoSetupError(
      `${errorMessage(err).split(';')[0]}: earshot demo needs it (the reference bot hears the caller with it, ` +
        `and earshot transcribes the bot with it)`,
      'run scripts/install-deps.sh, or: sudo apt-get install pocketsphinx pocketsphinx-en-us',
    );
  }
  const clock = options.clock ?? monotonicClock;
  const wire = options.wire ?? DEFAULT_CODEC;
  const outDir = options.outDir ?? defaultOutDir();
  await mkdir(outDir, { recursive: true });
  const botLog = join(outDir, 'refbot.log');
  // As a real Pipecat bot: sentences with a TTS's pauses between them; on protobuf, what eval-configure cannot ask for
  // is enabled in the bot itself.
  const realism = [
    '--sentence-gap-ms',
    String(DEMO_SENTENCE_GAP_MS),
    ...(wire === 'protobuf' ? ['--report-level', 'full', '--vad-events'] : []),
  ];
  const bot = await startRefbotChild({
    ports: new PortAllocator(DEMO_BASE_PORT),
    args: ['--wire', wire, ...realism],
    logFile: botLog,
    selfCommand: options.selfCommand,
    env: options.env,
    clock,
    spawnTimeoutMs: options.spawnTimeoutMs,
    signal: options.signal,
  });
  try {
    const botUrl = bot.url;
    const outcome = await runScenarios({
      paths: options.scenarios ?? [DEMO_SCENARIOS_DIR],
      url: botUrl,
      outDir,
      reporter: options.reporter ?? 'list',
      audio: options.audio,
      session: {
        codec: wire,
        ...(wire === 'protobuf' ? { botEnables: { reportLevel: 'full' as const, vadEvents: true } } : {}),
      },
      ...(options.env ? { env: options.env } : {}),
      clock,
      ...(options.stdout ? { stdout: options.stdout } : {}),
      ...(options.stderr ? { stderr: options.stderr } : {}),
      ...(options.signal ? { signal: options.signal } : {}),
      verbose: options.verbose,
    });
    return { ...outcome, botUrl, botLog };
  } finally {
    await bot.stop();
  }
}

/** What the demo prints after the run: where things are, and the voice-to-voice latency of each spoken turn. */
export function describeDemo(outcome: DemoOutcome, cwd = process.cwd()): string[] {
  const show = (p: string): string => relative(cwd, p) || '.';
  const recordings = outcome.results.flatMap((r) =>
    r.artifacts?.recording ? [join(outcome.outDir, r.artifacts.recording)] : [],
  );
  const lines = [
    '',
    `results:    ${show(join(outcome.outDir, 'results.jsonl'))}`,
    'recordings: ' +
      (recordings.length
        ? `${recordings.length} stereo WAV (user left, bot right) in ${show(outcome.outDir)}/`
        : 'none'),
    `bot log:    ${show(outcome.botLog)}`,
    '',
    'voice-to-voice latency (end of the user speech → first audible bot audio, measured from the audio):',
  ];
  const rows = voiceToVoiceRows(outcome.results);
  if (!rows.length) lines.push('  (no spoken turn was answered)');
  const width = Math.max(...rows.map((r) => r.label.length), 0);
  for (const r of rows) lines.push(`  ${r.label.padEnd(width)}  ${r.value}`);
  return lines;
}

function voiceToVoiceRows(results: ScenarioResult[]): Array<{ label: string; value: string }> {
  const rows: Array<{ label: string; value: string }> = [];
  for (const r of results) {
    for (const t of r.turns) {
      if (t.input.user === undefined && t.input.audio === undefined) continue;
      const v2v = t.metrics?.voice_to_voice_ms;
      const said = t.input.user ?? t.input.audio ?? '';
      const label =
        `${r.name} turn ${t.index + 1} ` + `${JSON.stringify(said.length > 40 ? `${said.slice(0, 39)}…` : said)}`;
      rows.push({ label, value: typeof v2v === 'number' ? `${Math.round(v2v)} ms` : `not measured (${t.status})` });
    }
  }
  return rows;
}
