import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { audibleBounds, type MicStream, Pacer } from '../../src/audio/index.js';
import type { CodecName } from '../../src/protocol/index.js';
import { trimLeadIn } from '../../src/refbot/reply/speech-pipeline.js';
import { DEFAULT_TTS_LEAD_IN_MS } from '../../src/refbot/reply/types.js';
import { createTts, type TtsProvider } from '../../src/speech/index.js';
import { startRefbotProcess, type RefbotProcess } from '../support/refbot-process.js';
import { Client, readTruth, shape } from './support.js';

/**
 * The reference bot hearing real speech: a Flite-spoken question streamed as
 * 20 ms frames in real time (the harness is the microphone), on both wire
 * codecs. The bot must transcribe it, answer in audio paced in real time, log
 * the truth of what it heard and sent, and stop talking when talked over.
 * A short greeting keeps the tests short; the default brain's is 9 s long.
 */
const RATE = 16000;
const BRAIN = `
greeting: Hello.
fallback: Sorry, I did not catch that.
story:
  when: [story]
  reply: >-
    Paris began long ago as a small fishing village on an island in the river.
    The Romans came and called the town Lutetia. Kings built the Louvre as a
    castle, and much later it became a famous museum. Today Paris is known
    around the world for its art and its food.
rules:
  - name: capital-france
    when: { all: [capital, france] }
    reply: The capital of France is Paris.
  - name: capital-japan
    when: { all: [capital, japan] }
    reply: The capital of Japan is the city of Tokyo.
`;

const dir = mkdtempSync(join(tmpdir(), 'earshot-refbot-audio-'));
const brainFile = join(dir, 'brain.yaml');
writeFileSync(brainFile, BRAIN);
let tts: TtsProvider;
let pacer: Pacer;
const speech = new Map<string, Int16Array>();

async function say(text: string): Promise<Int16Array> {
  if (!speech.has(text)) speech.set(text, (await tts.synthesize(text, { sampleRate: RATE })).pcm);
  return speech.get(text)!;
}

/** What the bot sends for a reply's first sentence: Flite's audio, its lead-in cut to the bot's. */
async function firstSentence(text: string): Promise<Int16Array> {
  // A copy: the tests compare whole buffers, and the trim is a view into the sentence.
  return trimLeadIn(await say(text), RATE, DEFAULT_TTS_LEAD_IN_MS).slice();
}

beforeAll(async () => {
  tts = await createTts('flite');
  pacer = new Pacer();
  await Promise.all(
    [
      'What is the capital of France?',
      'Tell me a story.',
      'What is the capital of Japan?',
      'The capital of France is Paris.',
      'Hello.',
    ].map(say),
  );
});
afterAll(async () => {
  pacer.close();
  await tts.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The harness's microphone: continuous 20 ms frames from now on, counting what it sent. */
function microphone(client: Client): { stream: MicStream; speechStart: Map<number, number> } {
  let sent = 0;
  const speechStart = new Map<number, number>();
  const stream = pacer.createStream({
    sampleRate: RATE,
    sink: (frame) => {
      if (frame.utteranceId !== null && !speechStart.has(frame.utteranceId)) speechStart.set(frame.utteranceId, sent);
      client.connection.sendAudio(frame.samples, RATE);
      sent += frame.samples.length;
    },
  });
  return { stream, speechStart };
}

function concat(parts: Int16Array[]): Int16Array {
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe.each(['pipecat-eval', 'protobuf'] as const)('audio turn on the %s wire', (wire: CodecName) => {
  let bot: RefbotProcess;
  const truthFile = join(dir, `truth-${wire}.jsonl`);
  beforeAll(async () => {
    // eval-configure reaches only the eval transport: a production (protobuf) bot enables raw VAD events itself.
    bot = await startRefbotProcess([
      '--wire',
      wire,
      '--brain',
      brainFile,
      '--truth-log',
      truthFile,
      ...(wire === 'protobuf' ? ['--vad-events'] : []),
    ]);
  });
  afterAll(async () => {
    await bot.stop();
  });

  it('hears a spoken question, answers in real-time audio, and logs the truth of both', async () => {
    const client = await Client.open(bot.url, { codec: wire, flags: { userAudio: true, captureBotAudio: true } });
    await client.handshake();
    client.connection.send(client.messages.evalConfigure({ vad_user_speaking: true }));
    await client.waitForType('bot-tts-stopped', 10_000);
    const mic = microphone(client);
    const question = await say('What is the capital of France?');
    const from = client.seen.length;
    const audioFrom = client.audio.length;
    const utterance = mic.stream.enqueue(question);
    const timing = await utterance.finished;
    const end = await client.waitForType('bot-tts-stopped', 20_000, from);
    mic.stream.stop();

    expect(
      shape(client.types(from, end + 1)),
      JSON.stringify(
        client.seen
          .slice(from, end + 1)
          .map((x) => x.message)
          .filter((m) => m.type !== 'bot-llm-text'),
      ),
    ).toEqual([
      'vad-user-started-speaking',
      'user-started-speaking',
      'vad-user-stopped-speaking',
      'user-transcription',
      'user-stopped-speaking',
      'user-llm-text',
      'bot-llm-started',
      'bot-llm-text…',
      'bot-tts-started', // once the first sentence has streamed: a one-sentence reply's last chunk
      'bot-llm-stopped',
      'bot-started-speaking',
      'bot-output',
      'bot-tts-text',
      'bot-stopped-speaking',
      'bot-tts-stopped',
    ]);
    const at = (type: string): number => client.seen.findIndex((s, i) => i >= from && s.message.type === type);
    expect(client.seen[at('user-transcription')].message).toMatchObject({
      data: { text: 'what is the capital of france', final: true },
    });
    expect(client.seen[at('bot-tts-text')].message).toMatchObject({
      data: { text: 'The capital of France is Paris.' },
    });
    expect(client.seen[at('bot-output')].message).toMatchObject({
      data: {
        text: 'The capital of France is Paris.',
        spoken: true,
        will_be_spoken: true,
        aggregated_by: 'sentence',
        spoken_status: 'completed',
      },
    });

    // The reply's audio: exactly Flite's rendering of the sentence, paced in real time.
    const frames = client.audio.slice(audioFrom);
    const received = concat(frames.map((f) => f.pcm));
    const expected = await firstSentence('The capital of France is Paris.');
    expect(received.length).toBe(expected.length);
    expect(Buffer.from(received.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
    // Not a burst: the frames arrive over the audio's duration (loose: a loaded machine delays reads).
    const spanMs = frames[frames.length - 1].at - frames[0].at;
    const durationMs = (expected.length * 1000) / RATE;
    expect(spanMs).toBeGreaterThan(durationMs - 150);
    expect(spanMs).toBeLessThan(durationMs + 150);
    expect(frames[0].at).toBeGreaterThanOrEqual(client.seen[at('bot-started-speaking')].at);
    expect(client.seen[at('bot-stopped-speaking')].at).toBeGreaterThanOrEqual(frames[frames.length - 1].at);

    // The truth log names the very samples: the end of the user's voiced speech in the stream the
    // harness sent, and the first audible sample of the reply in the stream it received.
    await client.close();
    const truth = readTruth(truthFile);
    const stopped = truth.find((t) => t.event === 'user_speech_stopped')!;
    const voiced = audibleBounds(question, RATE)!;
    const utteranceIn = mic.speechStart.get(utterance.id)!;
    expect(stopped.in_voiced_end_sample).toBe(utteranceIn + voiced.end);
    expect(stopped.in_sample_rate).toBe(RATE);
    const started = truth.find((t) => t.event === 'bot_audio_started' && t.turn === 1)!;
    const replyOut = client.audio.slice(0, audioFrom).reduce((n, f) => n + f.pcm.length, 0);
    expect(started.out_first_sample).toBe(replyOut);
    expect(started.out_first_audible_sample).toBe(replyOut + audibleBounds(expected, RATE)!.first);
    expect(started.on_wire).toBe(true);
    // Sent in real time, as the bot's own clock saw it: the last frame ends one audio duration after the first
    // (a burst would end seconds early; the margin is a loaded 2-core box delaying the last timer).
    const completed = truth.find((t) => t.event === 'bot_audio_stopped' && t.reply === started.reply)!;
    expect(completed.reason).toBe('completed');
    expect(completed.out_end_sample).toBe(replyOut + expected.length);
    expect(Math.abs((completed.stopped_ms as number) - (started.first_sent_ms as number) - durationMs)).toBeLessThan(
      80,
    );
    // voice-to-voice on the bot's clock: its first audible sample sent − the end of the user's speech heard.
    const v2v = started.voice_to_voice_ms as number;
    expect(v2v).toBeCloseTo((started.audible_ms as number) - (stopped.voiced_end_ms as number), 2);
    expect(v2v).toBeGreaterThan(300);
    // In the harness's terms (epoch time of the same two instants), close to the bot's view: a wrong clock
    // mapping is off by the processes' start-time difference (seconds). Idle, the two agree within ~1 ms
    // (`earshot calibrate`); the margin is the bot's own event loop stalling while the full test suite
    // loads both cores, which makes it hear the end late.
    const endEpoch = performance.timeOrigin + timing.utteranceEndMs!;
    expect(
      Math.abs(
        (stopped.voiced_end_ms as number) + ((stopped.epoch_ms as number) - (stopped.t_ms as number)) - endEpoch,
      ),
    ).toBeLessThan(250);
  });

  // Uploads are a pipecat-eval matter (raw-audio messages of any size); protobuf clients stream frames.
  if (wire === 'pipecat-eval')
    it('plays an utterance uploaded in 1 s messages (older clients) at real time, and answers in text only with skip_tts', async () => {
      const client = await Client.open(bot.url, { codec: wire, flags: { userAudio: true, skipTts: true } });
      await client.handshake();
      await client.waitForType('bot-llm-stopped', 5000);
      const question = await say('What is the capital of Japan?');
      const from = client.seen.length;
      const sent = performance.now();
      for (let at = 0; at < question.length; at += RATE)
        client.connection.sendAudio(question.subarray(at, at + RATE), RATE);
      const started = await client.waitForType('user-started-speaking', 5000, from);
      const stopped = await client.waitForType('bot-llm-stopped', 20_000, from);
      await client.close();
      const t = client.seen.find((x, i) => i >= from && x.message.type === 'user-transcription')!;
      expect(t.message).toMatchObject({ data: { text: 'what is the capital of japan', final: true } });
      expect(client.replyText(from, stopped)).toBe('The capital of Japan is the city of Tokyo.');
      // Heard at real time, not as one burst: the VAD's end comes after the audio's duration (plus its silence wait).
      const truth = readTruth(truthFile).filter((x) => x.event === 'user_speech_stopped');
      const end = truth[truth.length - 1];
      expect((end.detected_ms as number) - (end.voiced_end_ms as number)).toBeGreaterThan(250);
      expect(client.seen[started].at - sent).toBeGreaterThan(50);
      expect(
        (end.voiced_end_ms as number) +
          ((end.epoch_ms as number) - (end.t_ms as number)) -
          (performance.timeOrigin + sent),
      ).toBeGreaterThan(((audibleBounds(question, RATE)!.end - 2 * 320) * 1000) / RATE);
      expect(
        client.types(from).some((x) => x.startsWith('bot-tts') || (x.endsWith('speaking') && x.startsWith('bot'))),
      ).toBe(false);
      expect(client.audio).toEqual([]);
    });

  it('stops talking within a frame or two when the user barges in, says bot-interrupted, then answers the new question', async () => {
    const client = await Client.open(bot.url, { codec: wire, flags: { userAudio: true, captureBotAudio: true } });
    await client.handshake();
    await client.waitForType('bot-tts-stopped', 10_000);
    const mic = microphone(client);
    const from = client.seen.length;
    mic.stream.enqueue(await say('Tell me a story.'));
    await client.waitForType('bot-started-speaking', 20_000, from);
    await new Promise((r) => setTimeout(r, 1000));
    const cut = client.seen.length;
    const interruption = mic.stream.enqueue(await say('What is the capital of Japan?'));
    const timing = await interruption.started;
    const interrupted = await client.waitForType('bot-interrupted', 5000, cut);
    const answered = await client.waitForType('bot-tts-text', 20_000, interrupted);
    mic.stream.stop();
    await client.close();

    // (the story's text may still be streaming when the user starts; the protobuf bot sends raw VAD events of its own)
    expect(
      shape(client.types(cut, interrupted + 1)).filter((t) => t !== 'bot-llm-text…' && !t.startsWith('vad-')),
    ).toEqual(['user-started-speaking', 'bot-interrupted']);
    expect(client.types(interrupted + 1)).toContain('bot-stopped-speaking');
    if (wire === 'protobuf') expect(client.interruptions.length).toBe(1);
    const heard = client.seen
      .filter((x, i) => i > cut && x.message.type === 'user-transcription')
      .map((x) => JSON.stringify(x.message));
    expect(client.seen[answered].message, heard.join()).toMatchObject({
      data: { text: 'The capital of Japan is the city of Tokyo.' },
    });

    // No story audio after the interruption beyond the frame in flight (a bot that kept talking would send
    // for seconds; the margin is scheduling on a loaded machine).
    const interruptedAt = client.seen[interrupted].at;
    const storyFrames = client.audio.filter((f) => f.at < client.seen[answered].at);
    const lastStoryFrame = storyFrames[storyFrames.length - 1];
    expect(lastStoryFrame.at - interruptedAt).toBeLessThan(60);
    // From the user's first voiced sample (as due) to the bot falling silent: the VAD's confirmation
    // (~100-150 ms on Flite's onsets) plus a frame; the bound leaves room for a loaded machine.
    const voicedStart = timing.firstFrameDueMs! + (audibleBounds(interruption.samples, RATE)!.first * 1000) / RATE;
    expect(lastStoryFrame.at + 20 - voicedStart).toBeLessThan(500);

    const truth = readTruth(truthFile);
    const stop = truth.filter((t) => t.event === 'bot_audio_stopped' && t.reason === 'barge_in').pop()!;
    expect(stop.stop_after_detect_ms as number).toBeLessThan(80);
    expect(stop.interruption_ms as number).toBeGreaterThan(0);
    expect(stop.interruption_ms as number).toBeLessThan(500);
  });
});

describe('speaking as a Pipecat bot does: sentences with pauses, and a bot without RTVI', () => {
  const GAP_MS = 400;
  const TWO = `greeting: Hello.
fallback: Sorry.
rules:
  - name: capital-japan
    when: { all: [capital, japan] }
    reply: The capital of Japan is Tokyo. It is a very large city.
`;
  const twoBrain = join(dir, 'two.yaml');
  writeFileSync(twoBrain, TWO);

  it('--sentence-gap-ms: each pause is that much silence sent as frames, inside one speaking window', async () => {
    const bot = await startRefbotProcess([
      '--wire',
      'protobuf',
      '--brain',
      twoBrain,
      '--sentence-gap-ms',
      String(GAP_MS),
    ]);
    try {
      const client = await Client.open(bot.url, { codec: 'protobuf' });
      await client.handshake();
      await client.waitForType('bot-tts-stopped', 10_000);
      const from = client.seen.length;
      const audioFrom = client.audio.length;
      client.connection.send(client.messages.sendText('What is the capital of Japan?'));
      await client.waitForType('bot-tts-stopped', 20_000, from);
      const received = concat(client.audio.slice(audioFrom).map((f) => f.pcm));
      // The first sentence starts at once (the bot trims its lead-in); the next keeps Flite's own.
      const [s1, s2] = await Promise.all([
        firstSentence('The capital of Japan is Tokyo.'),
        say('It is a very large city.'),
      ]);
      const expected = concat([s1, new Int16Array((GAP_MS * RATE) / 1000), s2]);
      expect(received.length).toBe(expected.length);
      expect(Buffer.from(received.buffer).equals(Buffer.from(expected.buffer))).toBe(true);
      const types = client.types(from);
      expect(types.filter((t) => t === 'bot-started-speaking' || t === 'bot-stopped-speaking')).toEqual([
        'bot-started-speaking',
        'bot-stopped-speaking',
      ]);
      expect(types.filter((t) => t === 'bot-output' || t === 'bot-tts-text')).toEqual([
        'bot-output',
        'bot-tts-text',
        'bot-output',
        'bot-tts-text',
      ]);
      await client.close();
    } finally {
      await bot.stop();
    }
  });

  it('--no-rtvi: greets whoever connects in bare audio frames, and sends no RTVI message at all', async () => {
    const bot = await startRefbotProcess(['--wire', 'protobuf', '--brain', twoBrain, '--no-rtvi']);
    try {
      const client = await Client.open(bot.url, { codec: 'protobuf' });
      const hello = await firstSentence('Hello.');
      const deadline = performance.now() + 10_000;
      while (concat(client.audio.map((f) => f.pcm)).length < hello.length && performance.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      // client-ready goes unanswered: there is no RTVI processor to read it.
      client.connection.send(client.messages.clientReady({ library: 'test' }));
      await new Promise((r) => setTimeout(r, 300));
      expect(Buffer.from(concat(client.audio.map((f) => f.pcm)).buffer).equals(Buffer.from(hello.buffer))).toBe(true);
      expect(client.seen).toEqual([]);
      await client.close();
    } finally {
      await bot.stop();
    }
  });
});
