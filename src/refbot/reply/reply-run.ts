/**
 * One bot reply, run as a Pipecat pipeline would emit it:
 *
 *   bot-llm-started · metrics(ttfb) · [llm-function-call-started… ·
 *   llm-function-call-in-progress… · (calls run in parallel) ·
 *   llm-function-call-stopped… in completion order] · bot-llm-text… (word
 *   chunks, paced; `bot-transcription` after the chunk that ends each
 *   sentence, as Pipecat's RTVIObserver does) · metrics(processing) ·
 *   bot-llm-stopped
 *
 * and, when the reply is spoken, concurrently with the text stream from the
 * moment the first sentence is complete:
 *
 *   bot-tts-started · metrics(ttfb, TTS) · bot-started-speaking ·
 *   bot-output(S1) · bot-tts-text(S1) · [S1 audio, 20 ms frames in real time]
 *   · [the sentence gap's silence] · bot-output(S2) · bot-tts-text(S2) ·
 *   [S2 audio] · … · bot-stopped-speaking · bot-tts-stopped
 *
 * `bot-output` and `bot-tts-text` go out just before their sentence's first
 * audio frame (the observer holds them until the bot speaks), and
 * `bot-stopped-speaking` when the last frame has finished playing.
 *
 * A reply can be aborted at any point (barge-in, run_immediately text, a DTMF
 * key): from then on it sends nothing more, and `abort()` reports what was in
 * flight so the conversation can send the interruption messages.
 */
import { sleep } from '../../core/abort.js';
import type { FunctionCallReportLevel, ServerMessage } from '../../protocol/index.js';
import type { PlannedCall } from '../brain/brain.js';
import { SentAudio } from './sent-audio.js';
import { secs, SpeechPipeline, type SpeechHost } from './speech-pipeline.js';
import type { Interrupted, ReplyContext, ReplyPlan, SpokenSegment } from './types.js';

export const LLM_PROCESSOR = 'RefbotLLMService#0';
export const LLM_MODEL = 'refbot-brain';

export class ReplyRun implements SpeechHost {
  readonly done: Promise<void>;
  private readonly controller = new AbortController();
  private llmActive = false;
  private speaking = false;
  private readonly running = new Map<string, PlannedCall>();
  private speech: SpeechPipeline | null = null;
  /** What of this reply's audio went out, for the truth log. */
  readonly audio: SentAudio;

  constructor(
    readonly ctx: ReplyContext,
    readonly plan: ReplyPlan,
  ) {
    this.audio = new SentAudio(ctx, plan);
    this.done = this.run().catch((err: unknown) => {
      if (!this.controller.signal.aborted) throw err;
    });
  }

  get aborted(): boolean {
    return this.controller.signal.aborted;
  }

  /** Stops everything now (the speaker falls silent after the frame in flight) and says what was cut. */
  abort(): Interrupted {
    if (this.aborted) return { llmActive: false, speaking: false, runningCalls: [], audio: null };
    const info: Interrupted = {
      llmActive: this.llmActive,
      speaking: this.speaking,
      runningCalls: [...this.running.values()],
      audio: null,
    };
    this.controller.abort();
    this.speech?.cancel();
    // Sentences may be queued on the speaker without a frame sent yet: stop it whenever the reply speaks.
    if (this.plan.speak) {
      this.ctx.speaker.stop();
      info.audio = this.audio.end();
    }
    return info;
  }

  send(message: ServerMessage): void {
    if (!this.aborted) this.ctx.send(message);
  }

  private async run(): Promise<void> {
    const { ctx, plan } = this;
    const signal = this.controller.signal;
    if (plan.delayMs > 0) await sleep(plan.delayMs, signal);
    const startedMs = ctx.clock.now();
    this.send({ type: 'bot-llm-started' });
    this.llmActive = true;
    await sleep(ctx.timing.llmTtfbMs, signal);
    this.send({
      type: 'metrics',
      data: { ttfb: [{ processor: LLM_PROCESSOR, model: LLM_MODEL, value: secs(ctx.clock.now() - startedMs) }] },
    });
    if (plan.reply.calls.length) await this.runCalls(plan.reply.calls, signal);

    const speech = plan.speak ? new SpeechPipeline(this, plan.reply.sentences) : null;
    this.speech = speech;
    const ends = sentenceEnds(plan.reply.text, plan.reply.sentences);
    const interval = plan.reply.isStory ? ctx.timing.storyChunkMs : ctx.timing.chunkMs;
    let streamed = 0;
    let transcribed = 0;
    let sentence = '';
    for (const [i, chunk] of plan.reply.chunks.entries()) {
      if (i > 0) await sleep(interval, signal);
      this.send({ type: 'bot-llm-text', data: { text: chunk } });
      streamed += chunk.length;
      sentence += chunk;
      if (transcribed < ends.length && streamed >= ends[transcribed]) {
        while (transcribed < ends.length && streamed >= ends[transcribed]) transcribed++;
        this.send({ type: 'bot-transcription', data: { text: sentence } });
        sentence = '';
      }
      while (speech && speech.handed < ends.length && streamed >= ends[speech.handed]) speech.hand();
      if (plan.crash) {
        ctx.onFault('crash');
        return;
      }
      if (plan.disconnectMidway && !plan.speak && i + 1 >= plan.reply.chunks.length / 2) {
        ctx.onFault('disconnect');
        return;
      }
    }
    while (speech && speech.handed < plan.reply.sentences.length) speech.hand();
    this.send({
      type: 'metrics',
      data: { processing: [{ processor: LLM_PROCESSOR, model: LLM_MODEL, value: secs(ctx.clock.now() - startedMs) }] },
    });
    // Pipecat reports the response's marker when the response ends, only to a client that asked.
    if (plan.reply.marker && ctx.llmMarkers?.()) this.send({ type: 'bot-llm-marker', data: plan.reply.marker });
    this.send({ type: 'bot-llm-stopped' });
    this.llmActive = false;
    if (speech) await speech.finished(signal);
  }

  private async runCalls(calls: readonly PlannedCall[], signal: AbortSignal): Promise<void> {
    const level = (call: PlannedCall): FunctionCallReportLevel => this.ctx.reportLevel(call.name);
    const named = (l: FunctionCallReportLevel): boolean => l === 'name' || l === 'full';
    for (const call of calls) {
      const l = level(call);
      if (l !== 'disabled')
        this.send({ type: 'llm-function-call-started', data: named(l) ? { function_name: call.name } : {} });
    }
    for (const call of calls) {
      const l = level(call);
      this.running.set(call.toolCallId, call);
      if (l === 'disabled') continue;
      const data: { tool_call_id: string; function_name?: string; arguments?: Record<string, unknown> } = {
        tool_call_id: call.toolCallId,
      };
      if (named(l)) data.function_name = call.name;
      if (l === 'full') data.arguments = call.args;
      this.send({ type: 'llm-function-call-in-progress', data });
    }
    // Pipecat runs a response's calls in parallel; each reports its result as it finishes.
    await Promise.all(
      calls.map(async (call) => {
        await sleep(call.durationMs, signal);
        this.running.delete(call.toolCallId);
        const l = level(call);
        if (l === 'disabled') return;
        const data: { tool_call_id: string; cancelled: boolean; function_name?: string; result?: unknown } = {
          tool_call_id: call.toolCallId,
          cancelled: false,
        };
        if (named(l)) data.function_name = call.name;
        if (l === 'full' && call.result !== null && call.result !== '' && call.result !== false && call.result !== 0)
          data.result = call.result;
        this.send({ type: 'llm-function-call-stopped', data });
      }),
    );
  }

  // ------------------------------------------------------------ audio (SpeechHost)

  /**
   * A sentence is about to start: `bot-started-speaking` before the first, then its `bot-output` and `bot-tts-text`.
   */
  segmentStarting(text: string, pcm: Int16Array, outStart: number): SpokenSegment {
    if (!this.speaking) {
      this.send({ type: 'bot-started-speaking' });
      this.speaking = true;
    }
    // As Pipecat's observer reports a sentence a TTS without word timestamps has spoken (protocol 2.x fields).
    this.send({
      type: 'bot-output',
      data: {
        text,
        spoken: true,
        will_be_spoken: true,
        aggregated_by: 'sentence',
        segment_id: ++this.ctx.segments.count,
        spoken_status: 'completed',
        spoken_progress: { accumulated_text: text, remaining_text: '' },
      },
    });
    this.send({ type: 'bot-tts-text', data: { text } });
    return this.audio.segmentStarting(pcm, outStart);
  }

  /** Synthesis failed: the reply ends without its audio, the connection stays up. */
  speechFailed(err: unknown): void {
    if (this.aborted) return;
    this.ctx.onSpeechError(err);
    if (this.speaking) this.send({ type: 'bot-stopped-speaking' });
    this.speaking = false;
    this.send({ type: 'bot-tts-stopped' });
    this.speech?.cancel();
    this.controller.abort();
  }

  /** The last frame finished playing: the reply's audio is complete. */
  speechCompleted(): void {
    this.speaking = false;
    this.send({ type: 'bot-stopped-speaking' });
    this.send({ type: 'bot-tts-stopped' });
    const end = this.audio.end();
    if (end) this.audio.writeStopped('completed', end);
  }
}

/** Offset in `text` just past each sentence, for handing sentences to TTS as the stream completes them. */
function sentenceEnds(text: string, sentences: readonly string[]): number[] {
  const ends: number[] = [];
  let at = 0;
  for (const sentence of sentences) {
    const i = text.indexOf(sentence, at);
    at = i < 0 ? text.length : i + sentence.length;
    ends.push(at);
  }
  return ends;
}

/**
 * What a cancelled Pipecat pipeline still lets out after `bot-interrupted`:
 * the LLM's `bot-llm-stopped` (its `finally`) if the text stream was running,
 * `llm-function-call-stopped` with `cancelled: true` for calls in progress,
 * and `bot-stopped-speaking` if the bot was speaking.
 */
export function interruptedTail(
  info: Interrupted,
  level: (functionName: string) => FunctionCallReportLevel,
): ServerMessage[] {
  const out: ServerMessage[] = [];
  if (info.llmActive) out.push({ type: 'bot-llm-stopped' });
  for (const call of info.runningCalls) {
    const l = level(call.name);
    if (l === 'disabled') continue;
    out.push({
      type: 'llm-function-call-stopped',
      data:
        l === 'none'
          ? { tool_call_id: call.toolCallId, cancelled: true }
          : { tool_call_id: call.toolCallId, cancelled: true, function_name: call.name },
    });
  }
  if (info.speaking) out.push({ type: 'bot-stopped-speaking' });
  return out;
}
