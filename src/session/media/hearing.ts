import { writeFile } from 'node:fs/promises';
import { basename } from 'node:path';
import { encodeWav, StreamingVad, type SileroVad } from '../../audio/index.js';
import { wordErrorRate } from '../../metrics/index.js';
import { MIN_SPEECH_MS, type HearingEvidence } from '../../results/index.js';
import type { SttProvider } from '../../speech/index.js';

/**
 * Whether earshot heard one spoken segment of the bot reliably
 * (results/hearing.ts has the rules): the second transcriber's words against
 * the first's, and, when the first heard nothing, Silero VAD over the
 * segment. A doubtful segment gets its evidence, and its audio as a WAV
 * beside the recording so a person can listen to what was said.
 */
export interface HearingOptions {
  vad: SileroVad;
  /** The second transcriber; null: only the empty-transcript rule applies. */
  check: SttProvider | null;
  /** Word error rate between the transcripts above which they disagree. */
  maxWer: number;
  /** `provider:model` of the first transcriber (and the check's, from `check`). */
  first: string;
  /** The recording's path: snippets go beside it as `<stem>.seg<N>.wav`; absent: none are written. */
  recordingPath?: string;
}

/** VAD frames at or above this probability count as speech (Silero's own start threshold). */
const SPEECH_PROBABILITY = 0.5;

export class Hearing {
  private snippets = 0;

  constructor(private readonly opts: HearingOptions) {}

  get checking(): SttProvider | null {
    return this.opts.check;
  }

  /** The evidence of a doubtful segment, or null when the transcript can be trusted. */
  async assess(input: {
    pcm: Int16Array;
    rate: number;
    transcript: string;
    checkTranscript?: string;
    startMs: number;
    endMs: number;
  }): Promise<HearingEvidence | null> {
    const { transcript, checkTranscript } = input;
    const wer = checkTranscript !== undefined ? wordErrorRate(transcript, checkTranscript).wer : undefined;
    const disagree = wer !== undefined && wer > this.opts.maxWer;
    if (!disagree && transcript !== '') return null;
    const speechMs = await speechIn(this.opts.vad, input.pcm, input.rate);
    if (!disagree && speechMs < MIN_SPEECH_MS) return null;
    const evidence: HearingEvidence = {
      doubt: disagree ? 'transcribers_disagree' : 'empty_transcript',
      transcript,
      transcribers: [this.opts.first, ...(this.opts.check ? [`${this.opts.check.name}:${this.opts.check.model}`] : [])],
      speech_ms: Math.round(speechMs),
      start_ms: round1(input.startMs),
      end_ms: round1(input.endMs),
    };
    if (checkTranscript !== undefined) {
      evidence.check_transcript = checkTranscript;
      evidence.wer = round4(wer ?? 0);
      evidence.max_wer = this.opts.maxWer;
    }
    const snippet = await this.writeSnippet(input.pcm, input.rate);
    if (snippet) evidence.snippet = snippet;
    return evidence;
  }

  /** `<recording stem>.seg<N>.wav`, named relative to the recording's folder (the results folder). */
  private async writeSnippet(pcm: Int16Array, rate: number): Promise<string | undefined> {
    const recording = this.opts.recordingPath;
    if (!recording) return undefined;
    const path = `${recording.replace(/\.wav$/i, '')}.seg${++this.snippets}.wav`;
    try {
      await writeFile(path, encodeWav(pcm, rate));
      return basename(path);
    } catch {
      // The evidence still holds the segment's span in the recording.
      return undefined;
    }
  }
}

/** Milliseconds of Silero VAD speech in a segment: its 32 ms frames at p ≥ 0.5, on a VAD state of its own. */
export async function speechIn(vad: SileroVad, pcm: Int16Array, rate: number): Promise<number> {
  let samples = 0;
  const stream = await StreamingVad.create(vad, {
    sampleRate: rate,
    onFrame: (f) => {
      if (f.probability >= SPEECH_PROBABILITY) samples += f.endSample - f.startSample;
    },
  });
  await stream.push(pcm);
  await stream.flush();
  return (samples * 1000) / rate;
}

function round1(x: number): number {
  return Math.round(x * 10) / 10;
}

function round4(x: number): number {
  return Math.round(x * 10_000) / 10_000;
}
