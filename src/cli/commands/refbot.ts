import { InvalidArgumentError, Option, type Command } from 'commander';
import { FUNCTION_CALL_REPORT_LEVELS, type CodecName, type FunctionCallReportLevel } from '../../protocol/index.js';
import { startRefbot } from '../../refbot/index.js';
import type { CliCommand } from '../command.js';
import { wireOption } from '../options.js';

interface RefbotFlags {
  port: number;
  host: string;
  brain?: string;
  wire: CodecName;
  responseDelayMs: number;
  sentenceGapMs: number;
  ttsLeadInMs: number;
  light?: boolean;
  lightReplyOffsetMs: number;
  rtvi: boolean;
  reportLevel?: FunctionCallReportLevel;
  vadEvents?: boolean;
  llmMarkers?: boolean;
  truthLog?: string;
  fault?: string[];
  voice: string;
  exitOnDisconnect?: boolean;
  inbandDtmf?: boolean;
  pausePatienceMs?: number;
  /** false with --no-yield-to-backchannel. */
  yieldToBackchannel?: boolean;
  quiet?: boolean;
  documents?: string;
  library?: string;
  evalDataRoot?: string;
  /** false with --no-scenario-state. */
  scenarioState?: boolean;
}

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError(`expected a port from 0 to 65535, got "${value}"`);
  return n;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError(`expected a number of milliseconds >= 0, got "${value}"`);
  return n;
}

/**
 * `earshot refbot --port N`: the reference bot. Prints one line,
 * `refbot listening on ws://HOST:PORT (wire NAME)`, once it accepts
 * connections; exits 0 on SIGINT/SIGTERM or a client's eval-cancel, 70 when a
 * crash fault fires.
 */
export const refbotCommand: CliCommand = {
  name: 'refbot',
  register(program: Command): void {
    program
      .command('refbot')
      .description(
        'Run the reference bot (a real RTVI voice bot with a scripted brain) for tests, demos and calibration',
      )
      .requiredOption('--port <n>', 'port to listen on (0 picks a free one; the line printed says which)', port)
      .option('--host <host>', 'interface to listen on', '127.0.0.1')
      .option('--brain <file>', 'brain YAML (default: the shipped fixtures/brain.yaml)')
      .addOption(wireOption())
      .option('--response-delay-ms <ms>', 'known extra delay before every reply to a user turn', milliseconds, 0)
      .option(
        '--sentence-gap-ms <ms>',
        'speak replies sentence by sentence with this much silence between them, as a Pipecat TTS does (the ' +
          'truth log counts it)',
        milliseconds,
        0,
      )
      .option(
        '--tts-lead-in-ms <ms>',
        "the most silence before a reply's first audible sample: Flite starts every utterance with ~200 ms of " +
          'it, a streaming production TTS does not (later sentences keep theirs)',
        milliseconds,
        20,
      )
      .addOption(
        new Option(
          '--report-level <level>',
          "its RTVIObserver's function-call report level (default none, as Pipecat's); eval-configure raises " +
            'it on the eval wire only',
        ).choices([...FUNCTION_CALL_REPORT_LEVELS]),
      )
      .option(
        '--vad-events',
        'send raw VAD events (vad-user-*-speaking) from the start, as ' +
          'RTVIObserverParams(vad_user_speaking_enabled=True)',
      )
      .option(
        '--llm-markers',
        "report the LLM's turn-completion markers (bot-llm-marker) from the start, as " +
          'RTVIObserverParams(bot_llm_marker_enabled=True)',
      )
      .option(
        '--no-rtvi',
        'a bot without RTVI: bare audio frames only (protobuf wire), talking from the moment a client ' +
          'connects; test it with earshot --handshake none',
      )
      .option(
        '--truth-log <file>',
        'append ground truth as JSONL: speech edges heard, first bot audio sent, barge-in stops (sample ' +
          'positions and times)',
      )
      .option(
        '--fault <name[=arg]>',
        'inject a fault (repeatable): refuse, no-ready, crash-after-turn=N, hang-after-turn=N, garbage, ' +
          'malformed-rtvi, huge-frame=BYTES, flood=MSGS_PER_S, slow=MS, audio-burst, disconnect-mid-audio',
        (value: string, previous: string[] | undefined) => [...(previous ?? []), value],
      )
      .option('--voice <name>', 'Flite voice: slt, rms, awb, kal, kal16', 'slt')
      .option(
        '--exit-on-disconnect',
        'exit when the disconnect handler runs (pipecat-eval: a client that asked for trigger_disconnect ' +
          'leaves; protobuf: any client leaves), as a bot that cancels its pipeline in on_client_disconnected',
      )
      .option(
        '--pause-patience-ms <ms>',
        "silence the bot waits for before it takes the caller's turn (its VAD's stop time; default 320): a " +
          'caller pausing longer mid-sentence is answered in the pause',
        milliseconds,
      )
      .option('--yield-to-backchannel', 'stop talking for any speech over a reply, a murmur included (the default)')
      .option(
        '--no-yield-to-backchannel',
        'hold the floor through a caller\'s short murmur ("right", "mm-hmm": speech over a reply that ends ' +
          'within 1 s); by default any speech over a reply barges in',
      )
      .option(
        '--inband-dtmf',
        "also hear keypad keys as tones in the caller's audio (a Goertzel receiver), as a telephony bot does",
      )
      .option(
        '--light',
        'light mode for load tests: no VAD, STT or brain; the energy gate ends a turn and one canned reply ' +
          'answers it at a known offset (exact truth)',
      )
      .option(
        '--light-reply-offset-ms <ms>',
        "light mode: the reply's first audible sample this long after the end of the user's voiced speech",
        milliseconds,
        800,
      )
      .option(
        '--documents <file.json>',
        'documents every call starts with indexed: a JSON {"documents": [...]} file, as a suite\'s {documents} ' +
          'spawn placeholder writes',
      )
      .option(
        '--library <dir>',
        'a folder of documents the bot may search and index on its own when nothing indexed answers ' +
          "(GAIA's smart discovery)",
      )
      .option(
        '--eval-data-root <dir>',
        "where NeMo's apply_initialization resolves db_path (default: $EVAL_DATA_ROOT, else the package's " +
          'fixtures/nemo); a path leaving it is refused',
      )
      .option(
        '--no-scenario-state',
        'keep no NeMo scenario state: refuse apply_initialization, get_scenario_summary, update_system_prompt and ' +
          'reset with error-response (a bot without a control plane)',
      )
      .option('-q, --quiet', 'no diagnostics on stderr')
      .action(async (flags: RefbotFlags) => {
        const faults = flags.fault ?? [];
        const log = flags.quiet ? undefined : (line: string): void => void process.stderr.write(`refbot: ${line}\n`);
        const bot = await startRefbot({
          port: flags.port,
          host: flags.host,
          brain: flags.brain,
          wire: flags.wire,
          responseDelayMs: flags.responseDelayMs,
          sentenceGapMs: flags.sentenceGapMs,
          ttsLeadInMs: flags.ttsLeadInMs,
          noRtvi: !flags.rtvi,
          ...(flags.reportLevel ? { reportLevel: flags.reportLevel } : {}),
          vadEvents: flags.vadEvents === true,
          llmMarkers: flags.llmMarkers === true,
          truthLog: flags.truthLog,
          faults,
          voice: flags.voice,
          exitOnDisconnect: flags.exitOnDisconnect === true,
          inbandDtmf: flags.inbandDtmf === true,
          yieldToBackchannel: flags.yieldToBackchannel !== false,
          ...(flags.pausePatienceMs !== undefined ? { vad: { minSilenceMs: flags.pausePatienceMs } } : {}),
          ...(flags.light ? { light: { replyOffsetMs: flags.lightReplyOffsetMs } } : {}),
          ...(flags.documents !== undefined ? { documents: flags.documents } : {}),
          ...(flags.library !== undefined ? { library: flags.library } : {}),
          ...(flags.evalDataRoot !== undefined ? { evalDataRoot: flags.evalDataRoot } : {}),
          scenarioState: flags.scenarioState !== false,
          log,
        });
        let signalled = false;
        // The first signal closes the bot cleanly; a second one exits at once.
        const onSignal = (name: NodeJS.Signals): void => {
          if (signalled) process.exit(name === 'SIGINT' ? 130 : 143);
          signalled = true;
          void bot.close();
        };
        process.on('SIGINT', onSignal);
        process.on('SIGTERM', onSignal);
        process.stdout.write(`refbot listening on ${bot.url} (wire ${bot.wire})\n`);
        if (!flags.rtvi) log?.('no RTVI: bare audio frames only, talking from the moment a client connects');
        if (faults.length) log?.(`faults: ${faults.join(', ')}`);
        const exit = await bot.closed;
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
        log?.(`stopped (${exit.reason})`);
        // A crash is a crash: no orderly shutdown of whatever else is pending.
        if (exit.reason === 'crash') process.exit(exit.exitCode);
        process.exitCode = exit.exitCode;
        // Everything is released by now; this only guards against a stray handle keeping a stopped bot alive.
        setTimeout(() => process.exit(exit.exitCode), 2000).unref();
      });
  },
};
