import { describe, expect, it } from 'vitest';
import { ManualClock, monotonicClock } from '../../core/clock.js';
import { ManualTimerDriver } from '../../core/timers.js';
import type { FunctionCallReportLevel, ServerMessage } from '../../protocol/index.js';
import { BrainMemory, loadBrain } from '../brain/brain.js';
import { TruthLog } from '../truth.js';
import { interruptedTail, ReplyRun } from './reply-run.js';
import { Speaker } from './speaker.js';
import { BotTts } from './tts.js';
import type { ReplyContext } from './types.js';

/** A text-only reply (no speech), run for real on the monotonic clock with short timings. */
function run(text: string, level: FunctionCallReportLevel = 'full'): { sent: ServerMessage[]; reply: ReplyRun } {
  const brain = loadBrain();
  const reply = brain.respond({ kind: 'text', text }, new BrainMemory());
  const sent: ServerMessage[] = [];
  const manual = new ManualClock();
  const ctx: ReplyContext = {
    conn: 1,
    clock: monotonicClock,
    send: (m) => sent.push(m),
    speaker: new Speaker({ clock: manual, timers: new ManualTimerDriver(manual), sampleRate: 16000, send: () => {} }),
    audioOnWire: false,
    tts: new BotTts({ voice: 'slt', sampleRate: 16000 }),
    truth: new TruthLog(null, monotonicClock),
    timing: { llmTtfbMs: 1, chunkMs: 1, storyChunkMs: 5 },
    sentenceGapMs: 0,
    ttsLeadInMs: 20,
    segments: { count: 0 },
    reportLevel: () => level,
    onFault: () => {},
    onSpeechError: (err) => {
      throw err;
    },
  };
  return {
    sent,
    reply: new ReplyRun(ctx, { id: 1, reply, turn: 1, speak: false, delayMs: 0, userEndMs: null, responseDelayMs: 0 }),
  };
}

describe('ReplyRun (text)', () => {
  it('streams the brain reply as chunks between bot-llm-started and bot-llm-stopped', async () => {
    const { sent, reply } = run('What is the capital of Spain?');
    await reply.done;
    const text = sent.flatMap((m) => (m.type === 'bot-llm-text' ? [m.data.text] : [])).join('');
    expect(text).toBe('The capital of Spain is Madrid.');
    expect(sent[0].type).toBe('bot-llm-started');
    expect(sent[sent.length - 1].type).toBe('bot-llm-stopped');
  });

  it('abort() says what was in flight and sends nothing more', async () => {
    const { sent, reply } = run('What is the weather in Paris?');
    await new Promise((r) => setTimeout(r, 50)); // the call runs 300 ms
    const info = reply.abort();
    expect(info).toMatchObject({ llmActive: true, speaking: false, audio: null });
    expect(info.runningCalls.map((c) => c.name)).toEqual(['get_current_weather']);
    const count = sent.length;
    await reply.done;
    await new Promise((r) => setTimeout(r, 350));
    expect(sent.length).toBe(count);
    expect(reply.abort()).toEqual({ llmActive: false, speaking: false, runningCalls: [], audio: null });
  });
});

describe('interruptedTail: what a cancelled pipeline still sends after bot-interrupted', () => {
  const call = { name: 'get_current_weather', args: {}, durationMs: 300, result: null, toolCallId: 'call_7' };
  it('the LLM stop, cancelled calls at their report level, the end of speech', () => {
    expect(
      interruptedTail({ llmActive: true, speaking: true, runningCalls: [call], audio: null }, () => 'name'),
    ).toEqual([
      { type: 'bot-llm-stopped' },
      {
        type: 'llm-function-call-stopped',
        data: { tool_call_id: 'call_7', cancelled: true, function_name: 'get_current_weather' },
      },
      { type: 'bot-stopped-speaking' },
    ]);
    expect(
      interruptedTail({ llmActive: false, speaking: false, runningCalls: [call], audio: null }, () => 'none'),
    ).toEqual([{ type: 'llm-function-call-stopped', data: { tool_call_id: 'call_7', cancelled: true } }]);
    expect(
      interruptedTail({ llmActive: false, speaking: false, runningCalls: [call], audio: null }, () => 'disabled'),
    ).toEqual([]);
  });
});
