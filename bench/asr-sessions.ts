/**
 * How many calls one transcriber keeps up with (`npm run bench:asr`, the
 * sessions part). N simulated calls, each with the bot replying a Flite
 * utterance of s seconds every s / duty seconds from a random phase
 * (asr-stats.ts `replySchedule`); each reply is handed to the transcriber when
 * it ends, as earshot's capture does after `bot_audio_stopped`. A level is
 * sustained when every reply is transcribed within its own length (times
 * `deadlineFactor`) after it ended (`judgeLevel`). The transcribers are earshot's own arrangements: a
 * Whisper pipeline behind a WorkerPool of one (TransformersStt: one pipeline,
 * calls in turn, a bounded queue), PocketSphinx's pool (SphinxStt, one
 * recognizer process per core at nice 10).
 */
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { sincResample } from '../src/audio/index.js';
import { WorkerPool, type PoolWorker } from '../src/speech/stt/pool.js';
import { SphinxStt } from '../src/speech/stt/sphinx.js';
import { resolveSphinx } from '../src/speech/stt/sphinx-config.js';
import { DEFAULT_PADDING_SECS, STT_SAMPLE_RATE } from '../src/speech/stt/types.js';
import { loadStt, loadUtterances, transcribeOnce, type SessionsJob } from './asr-cell.js';
import { judgeLevel, largestSustained, replySchedule, type LevelVerdict, type Transcript } from './asr-stats.js';

export interface SessionsResult {
  transcriber: string;
  max_sessions: number;
  levels: LevelVerdict[];
  tried: number[];
  duty: number;
  deadline_factor: number;
  duration_s: number;
}

interface Transcriber {
  transcribe(pcm: Int16Array, seconds: number): Promise<void>;
  close(): Promise<void>;
}

async function whisperTranscriber(job: SessionsJob): Promise<Transcriber> {
  if (!job.load) throw new Error('sessions: whisper needs load options');
  const stt = await loadStt(job.load);
  interface Worker extends PoolWorker {
    alive: true;
  }
  // TransformersStt's arrangement: one pipeline, one call at a time, its default queue bound.
  const pool = new WorkerPool<Worker>({
    provider: 'whisper',
    size: 1,
    create: async () => ({ alive: true, close: async () => {} }),
  });
  return {
    transcribe: async (pcm, seconds) => void (await pool.run(() => transcribeOnce(stt, pcm, seconds))),
    close: async () => {
      await pool.close();
      await stt.asr.dispose();
    },
  };
}

function sphinxTranscriber(): Transcriber {
  const stt = new SphinxStt(resolveSphinx(), DEFAULT_PADDING_SECS, sincResample, 'pool');
  return {
    transcribe: async (pcm) => void (await stt.transcribe(pcm, STT_SAMPLE_RATE)),
    close: () => stt.close(),
  };
}

async function runLevel(
  t: Transcriber,
  utterances: { pcm: Int16Array; seconds: number }[],
  n: number,
  job: SessionsJob,
): Promise<LevelVerdict> {
  const replies = replySchedule({
    sessions: n,
    durationS: job.durationS,
    duty: job.duty,
    lengthsS: utterances.map((u) => u.seconds),
    seed: job.seed + n,
  });
  const transcripts: Transcript[] = [];
  let failed = 0;
  const t0 = performance.now();
  await Promise.all(
    replies.map(async (r) => {
      // Late timers (ONNX Runtime runs on this thread) count against the transcriber: latency is from the due time.
      await sleep(Math.max(0, r.endS * 1000 - (performance.now() - t0)));
      const u = utterances[r.utterance];
      try {
        await t.transcribe(u.pcm, u.seconds);
        transcripts.push({ latencyS: (performance.now() - t0) / 1000 - r.endS, seconds: r.seconds });
      } catch {
        failed++;
      }
    }),
  );
  // The machine's load as the level ends: another process's work shows up as lag here.
  const load = Math.round(loadavg()[0] * 100) / 100;
  const verdict = {
    ...judgeLevel(n, { transcripts, replies: replies.length, failed }, job.deadlineFactor),
    load_avg: load,
  };
  console.error(
    `  ${job.transcriber} ${n} sessions: ${replies.length} replies, latency p50 ${verdict.latency_p50_s} s, ` +
      `max ${verdict.latency_max_s} s (${verdict.lag_max} × its reply), ${verdict.late} late, ${failed} failed: ` +
      `${verdict.sustained ? 'sustained' : 'not sustained'} (load avg ${load})`,
  );
  return verdict;
}

export async function runSessionsJob(job: SessionsJob): Promise<SessionsResult> {
  const utterances = loadUtterances(job.utterancesFile);
  const t = job.transcriber === 'whisper' ? await whisperTranscriber(job) : sphinxTranscriber();
  const levels: LevelVerdict[] = [];
  try {
    // Warm: the first call's allocations (or the first recognizer's start) belong to no level.
    await t.transcribe(utterances[0].pcm, utterances[0].seconds);
    const { max, tried } = await largestSustained(async (n) => {
      const v = await runLevel(t, utterances, n, job);
      levels.push(v);
      await sleep(1000);
      return v.sustained;
    }, job.maxSessions);
    return {
      transcriber: job.transcriber,
      max_sessions: max,
      levels: levels.sort((a, b) => a.sessions - b.sessions),
      tried,
      duty: job.duty,
      deadline_factor: job.deadlineFactor,
      duration_s: job.durationS,
    };
  } finally {
    await t.close();
  }
}
