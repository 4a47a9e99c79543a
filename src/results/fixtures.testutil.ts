import { wavHeader } from '../audio/wav.js';
import type { Failure, ScenarioResult, TurnResult } from './types.js';

/**
 * Hand-made results for the tests of results/ and report/: the shapes the
 * session engine produces, built explicitly so each test states what it feeds in.
 */

export function passedTurn(index: number, user: string, reply: string, started_at_ms = index * 2000): TurnResult {
  return {
    index,
    status: 'passed',
    duration_ms: 900 + index,
    started_at_ms,
    input: { user },
    expectations: [
      { index: 0, event: 'llm_started', status: 'passed', matched_after_ms: 210 },
      { index: 1, event: 'response', status: 'passed', matched_after_ms: 850, text: reply },
    ],
    metrics: {
      voice_to_voice_ms: 640 + index * 10,
      llm_ttfb_ms: 210,
      first_token_ms: 320,
      speech_padding_ms: 35,
      bot_speech_ms: 1200,
      interruption_ms: null,
      yielded: null,
      bot_metrics: { 'ScriptedLLM#0': { ttfb_ms: 210, processing_ms: 480, reports: 2 } },
    },
  };
}

export function failedTurn(index: number, user: string, reply: string, started_at_ms = index * 2000): TurnResult {
  return {
    index,
    status: 'failed',
    duration_ms: 1500,
    started_at_ms,
    input: { user },
    expectations: [
      { index: 0, event: 'response', status: 'failed', text: reply },
      { index: 1, event: 'function_call', status: 'not_run' },
    ],
    metrics: { voice_to_voice_ms: 700, llm_ttfb_ms: 250 },
  };
}

/** A turn whose reply two transcribers heard differently: its `text_contains` verdict is inconclusive. */
export function inconclusiveTurn(
  index: number,
  user: string,
  heard: string,
  checkHeard: string,
  started_at_ms = index * 2000,
): TurnResult {
  return {
    index,
    status: 'inconclusive',
    duration_ms: 1400,
    started_at_ms,
    input: { user },
    expectations: [
      {
        index: 0,
        event: 'response',
        status: 'inconclusive',
        text: heard,
        inconclusive: {
          kinds: ['transcribers_disagree'],
          reason: 'the check passes on the first transcript and fails on the second',
          segments: [
            {
              doubt: 'transcribers_disagree',
              transcript: heard,
              check_transcript: checkHeard,
              wer: 0.5,
              max_wer: 0.3,
              transcribers: ['sphinx:en-us', 'sphinx:en-us'],
              speech_ms: 1632,
              start_ms: started_at_ms + 700,
              end_ms: started_at_ms + 2400,
              snippet: 'run.seg1.wav',
            },
          ],
        },
      },
    ],
    metrics: { voice_to_voice_ms: 690 },
  };
}

export function notRunTurn(index: number, user: string): TurnResult {
  return { index, status: 'not_run', duration_ms: 0, input: { user }, expectations: [] };
}

export function failure(kind: Failure['kind'], turn_index: number | null, reason: string): Failure {
  return {
    kind,
    turn_index,
    expectation_index: turn_index === null ? null : 0,
    event: turn_index === null ? null : 'response',
    reason,
  };
}

export interface ResultSpec {
  file: string;
  name?: string;
  status?: ScenarioResult['status'];
  bot?: string;
  repeat_index?: number;
  attempt?: number;
  shard?: string;
  reply?: string;
  recording?: string;
}

/** A two-turn scenario result; `status: 'failed'` makes turn 2 fail with `text_mismatch`, `inconclusive` makes it inconclusive (two transcribers disagree). */
export function makeResult(spec: ResultSpec): ScenarioResult {
  const status = spec.status ?? 'passed';
  const reply = spec.reply ?? 'Paris is the capital of France.';
  const turns =
    status === 'passed'
      ? [passedTurn(0, 'Hello there', 'Hi! How can I help?'), passedTurn(1, 'What is the capital of France?', reply)]
      : status === 'failed'
        ? [passedTurn(0, 'Hello there', 'Hi! How can I help?'), failedTurn(1, 'What is the capital of France?', reply)]
        : status === 'inconclusive'
          ? [
              passedTurn(0, 'Hello there', 'Hi! How can I help?'),
              inconclusiveTurn(
                1,
                'What is the capital of France?',
                'the capital of france is paris',
                'the capital of three and is yes',
              ),
            ]
          : [notRunTurn(0, 'Hello there'), notRunTurn(1, 'What is the capital of France?')];
  const failures =
    status === 'failed'
      ? [failure('text_mismatch', 1, `response did not contain "Paris": got "${reply}"`)]
      : status === 'error'
        ? [failure('connect_failed', null, 'nothing listens on ws://127.0.0.1:1 (ECONNREFUSED) after 3 attempts')]
        : [];
  const result: ScenarioResult = {
    name: spec.name ?? spec.file.replace(/^.*\//, '').replace(/\.ya?ml$/, ''),
    file: spec.file,
    status,
    started_at: '2025-01-01T00:00:00.000Z',
    duration_ms: 4000 + (spec.repeat_index ?? 0),
    turns,
    failures,
    events: [
      { name: 'bot_ready', at_ms: 40 },
      { name: 'llm_started', at_ms: 210 },
      { name: 'response', at_ms: 850, text: 'Hi! How can I help?' },
      { name: 'bot_audio_started', at_ms: 650 },
      { name: 'bot_audio_stopped', at_ms: 1850 },
      { name: 'llm_started', at_ms: 2210 },
      { name: 'function_call', at_ms: 2400, function_name: 'get_weather', args: { city: 'Paris' } },
      { name: 'response', at_ms: 2850, text: reply },
    ],
    run: {},
  };
  if (status === 'error') result.error = 'connect_failed';
  if (spec.bot !== undefined) result.run = { ...result.run, bot: spec.bot };
  if (spec.repeat_index !== undefined) result.run = { ...result.run, repeat_index: spec.repeat_index };
  if (spec.attempt !== undefined) result.run = { ...result.run, attempt: spec.attempt };
  if (spec.shard !== undefined) result.run = { ...result.run, shard: spec.shard };
  if (spec.recording !== undefined) result.artifacts = { recording: spec.recording };
  return result;
}

/**
 * A 16-bit PCM stereo WAV: user speech (left) as tone bursts in the given
 * windows, bot speech (right) likewise, silence elsewhere.
 */
export function stereoWav(
  seconds: number,
  sampleRate: number,
  user: Array<[number, number]>,
  bot: Array<[number, number]>,
): Buffer {
  const frames = Math.round(seconds * sampleRate);
  const data = Buffer.alloc(frames * 4);
  const inAny = (t: number, spans: Array<[number, number]>): boolean => spans.some(([a, b]) => t >= a && t < b);
  for (let i = 0; i < frames; i++) {
    const t = i / sampleRate;
    const l = inAny(t, user) ? Math.round(12000 * Math.sin(2 * Math.PI * 220 * t)) : 0;
    const r = inAny(t, bot) ? Math.round(16000 * Math.sin(2 * Math.PI * 330 * t)) : 0;
    data.writeInt16LE(l, i * 4);
    data.writeInt16LE(r, i * 4 + 2);
  }
  return Buffer.concat([wavHeader(sampleRate, 2, data.length), data]);
}
