import type { Command } from 'commander';
import type { AudioEngineOptions } from '../session/index.js';
import { resolve } from 'node:path';
import { parseConditionFlags, type ConditionOverrides } from '../scenario/index.js';
import { STT_PROVIDERS, TTS_PROVIDERS } from '../speech/index.js';
import { nonNegativeInt, nonNegativeNumber } from './options.js';

const collect = (value: string, all: string[]): string[] => [...all, value];
/** A provider table's names, for a flag's help. */
const names = (table: Readonly<Record<string, unknown>>): string => Object.keys(table).join(', ');

/** A noise WAV named on the command line is relative to the working directory. */
function resolveNoisePath(o: ConditionOverrides): ConditionOverrides {
  const type = o.noise?.type;
  return type !== undefined && /\.wav$/i.test(type) ? { ...o, noise: { ...o.noise, type: resolve(type) } } : o;
}

/** The audio flags `earshot run`, `suite` and `demo` share. */
export interface AudioFlags {
  tts?: string;
  stt?: string;
  sttCheck?: string;
  sttDisagreement?: number;
  /** true: --record; false: --no-record; undefined: the default (record audio scenarios). */
  record?: boolean;
  cacheDir?: string;
  /** false with --no-cache. */
  cache?: boolean;
  /** --condition key.path=value, repeatable. */
  condition?: string[];
  seed?: number;
}

export function addAudioFlags(command: Command): Command {
  return command
    .option(
      '--tts <name[:voice]>',
      `speak every user turn with this TTS instead of the scenario's user.speech (${names(TTS_PROVIDERS)}; ` +
        'e.g. flite:slt)',
    )
    .option(
      '--stt <name[:model]>',
      `transcribe the bot with this STT instead of the scenario's judge.transcription (${names(STT_PROVIDERS)}; ` +
        'e.g. whisper:base.en)',
    )
    .option(
      '--stt-check <name[:model]>',
      'a second STT checks the first: a reply the two hear differently is inconclusive, not failed (replaces a ' +
        'second judge.transcription entry)',
    )
    .option(
      '--stt-disagreement <wer>',
      'word error rate between the two transcripts above which they disagree (default 0.3)',
      nonNegativeNumber,
    )
    .option(
      '--record',
      'write a stereo WAV per audio scenario beside results.jsonl (user left, bot right; the default)',
    )
    .option('--no-record', 'do not write recordings')
    .option('--cache-dir <dir>', 'TTS utterance cache folder (default $EARSHOT_CACHE_DIR/tts or ~/.cache/earshot/tts)')
    .option('--no-cache', 'synthesize every user utterance afresh (no TTS cache)')
    .option(
      '--condition <key=value>',
      "a channel condition on the caller's audio for the whole run, over each scenario's (repeatable): " +
        'noise.snr_db=10, noise.type=pink, telephony.codec=mulaw, loss.rate=0.05',
      collect,
      [],
    )
    .option(
      '--seed <n>',
      "seed of the conditions' random choices (noise, lost packets); recorded in each result, replays the same bytes",
      nonNegativeInt,
    );
}

export function audioSettings(flags: AudioFlags): AudioEngineOptions {
  return {
    ...(flags.tts !== undefined ? { tts: flags.tts } : {}),
    ...(flags.stt !== undefined ? { stt: flags.stt } : {}),
    ...(flags.sttCheck !== undefined ? { sttCheck: flags.sttCheck } : {}),
    ...(flags.sttDisagreement !== undefined ? { sttDisagreement: flags.sttDisagreement } : {}),
    ...(flags.record !== undefined ? { record: flags.record } : {}),
    ...(flags.cacheDir !== undefined ? { cacheDir: flags.cacheDir } : {}),
    ...(flags.cache === false ? { noCache: true } : {}),
    ...(flags.condition?.length ? { conditions: resolveNoisePath(parseConditionFlags(flags.condition)) } : {}),
    ...(flags.seed !== undefined ? { seed: flags.seed } : {}),
  };
}
