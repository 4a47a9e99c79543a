import type { Command } from 'commander';
import type { AudioEngineOptions } from '../session/index.js';
import { nonNegativeNumber } from './options.js';

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
}

export function addAudioFlags(command: Command): Command {
  return command
    .option('--tts <name[:voice]>', "speak every user turn with this TTS instead of the scenario's user.speech (flite, kokoro; e.g. flite:slt)")
    .option('--stt <name[:model]>', "transcribe the bot with this STT instead of the scenario's judge.transcription (sphinx, whisper, moonshine; e.g. whisper:base.en)")
    .option('--stt-check <name[:model]>', 'a second STT checks the first: a reply the two hear differently is inconclusive, not failed (replaces a second judge.transcription entry)')
    .option('--stt-disagreement <wer>', 'word error rate between the two transcripts above which they disagree (default 0.3)', nonNegativeNumber)
    .option('--record', 'write a stereo WAV per audio scenario beside results.jsonl (user left, bot right; the default)')
    .option('--no-record', 'do not write recordings')
    .option('--cache-dir <dir>', 'TTS utterance cache folder (default $EARSHOT_CACHE_DIR/tts or ~/.cache/earshot/tts)')
    .option('--no-cache', 'synthesize every user utterance afresh (no TTS cache)');
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
  };
}
