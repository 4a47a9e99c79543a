import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { monotonicClock } from '../../core/clock.js';
import { Pacer, rms, sineWave, writeWav } from '../../audio/index.js';
import { ThreadPacer } from '../../pacing/index.js';
import { connect } from '../../protocol/index.js';
import { startServer } from '../../protocol/loopback.testutil.js';
import type { EarshotEvent } from '../../results/events.js';
import { ModelStore } from '../../speech/index.js';
import type { MediaContext } from '../media.js';
import { AudioEngine } from './engine.js';
import { ScenarioFiles } from './scenario.testutil.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

const TYPED_SPOKEN = `
name: typed
user: { modality: text }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - user: "What is the capital of Japan?"
    expect: [{ event: response, text_contains: "tokyo" }]
`;

function context(): { ctx: MediaContext; trace: string[]; events: EarshotEvent[] } {
  const trace: string[] = [];
  const events: EarshotEvent[] = [];
  const ctx: MediaContext = {
    clock: monotonicClock,
    t0Ms: monotonicClock.now(),
    emit: (e) => events.push(e),
    markUserSpeech: () => undefined,
    markBotStreamEnd: () => undefined,
    trace: (l) => trace.push(l),
    signal: new AbortController().signal,
  };
  return { ctx, trace, events };
}

describe('audio engine', () => {
  it('builds no media for a text scenario, and media for one where the bot speaks', async () => {
    const engine = new AudioEngine();
    const text = await files.load(
      `
name: text
turns:
  - user: "hi"
    expect: [{ event: response }]
`,
      'text.yaml',
    );
    expect(engine.media(text, {})).toBeNull();
    const typedSpoken = engine.media(await files.load(TYPED_SPOKEN), {});
    expect(typedSpoken).not.toBeNull();
    // The user types here: the session connects on this thread, and no pacer thread is started (cold start).
    expect(typedSpoken!.openSocket).toBeUndefined();
    expect(engine.pacer).toBeInstanceOf(ThreadPacer);
    expect((engine.pacer as ThreadPacer).started).toBe(false);
    await engine.close();
    await engine.close();
  });

  it('keeps the in-thread pacer on an injected clock (manual-time tests), the pacer thread on the real one', async () => {
    const manual = new AudioEngine({ clock: { now: () => 0 } });
    expect(manual.pacer).toBeInstanceOf(Pacer);
    const real = new AudioEngine({ clock: monotonicClock });
    expect(real.pacer).toBeInstanceOf(ThreadPacer);
    await Promise.all([manual.close(), real.close()]);
  });

  it('a Python factory: for a speech service the run needs is refused, located; --tts/--stt replace it', async () => {
    const scenario = await files.load(
      `
name: pythonic
user: { modality: audio, speech: { factory: my_evals.voice } }
judge: { modality: audio, transcription: { factory: my_evals.ears } }
turns:
  - user: "hi"
    expect: [{ event: response }]
`,
      'pythonic.yaml',
    );
    const refused = (engine: AudioEngine): string => {
      try {
        engine.media(scenario, {});
      } catch (err) {
        return (err as Error).message;
      }
      return 'built';
    };
    expect(refused(new AudioEngine())).toMatch(
      /pythonic\.yaml:3:\d+: error: user\.speech\.factory: my_evals\.voice is a Python callable .*; speak the user turns with --tts NAME$/,
    );
    expect(refused(new AudioEngine({ tts: 'flite' }))).toMatch(
      /pythonic\.yaml:4:\d+: error: judge\.transcription\.factory: my_evals\.ears is a Python callable/,
    );
    expect(refused(new AudioEngine({ tts: 'flite', stt: 'sphinx' }))).toBe('built');
  });

  it('a second transcriber checks the first: from the scenario or --stt-check, whose Python factory is refused unless the flag replaces it', async () => {
    expect(() => new AudioEngine({ sttCheck: 'bogus' })).toThrow(
      "--stt-check bogus: unknown STT 'bogus' (known: sphinx, whisper, moonshine)",
    );
    const scenario = await files.load(
      `
name: checked
user: { modality: text }
judge: { modality: audio, transcription: [{ service: sphinx }, { factory: my_evals.ears }] }
turns:
  - user: "hi"
    expect: [{ event: response }]
`,
      'checked.yaml',
    );
    expect(() => new AudioEngine().media(scenario, {})).toThrow(
      /checked\.yaml:4:\d+: error: judge\.transcription\[1\]\.factory: my_evals\.ears is a Python callable .*; check the transcription with --stt-check NAME$/,
    );
    const engine = new AudioEngine({ sttCheck: 'sphinx', record: false });
    const media = engine.media(scenario, {})!;
    const { ctx, trace } = context();
    await media.prepare(ctx);
    await media.finish();
    await engine.close();
    expect(trace[0]).toBe('media: user types; bot transcribed by sphinx (scenario), checked by sphinx; no recording');
  });

  it('records where the run asks unless recording is off (--no-record)', async () => {
    const scenario = await files.load(TYPED_SPOKEN);
    for (const record of [true, false]) {
      const engine = new AudioEngine({ record });
      const path = files.path(`typed-${record}.wav`);
      const media = engine.media(scenario, { recordingPath: path })!;
      const { ctx, trace } = context();
      await media.prepare(ctx);
      const artifacts = await media.finish();
      await engine.close();
      expect(existsSync(path)).toBe(record);
      expect(artifacts.recording).toBe(record ? path : undefined);
      expect(trace[0]).toBe(
        `media: user types; bot transcribed by sphinx (scenario); ${record ? `recording ${path}` : 'no recording'}`,
      );
    }
  });

  it('a scenario asking for a model that is not installed fails in prepare with the pull command, before any call is made', async () => {
    const scenario = await files.load(
      `
name: kokoro
user: { modality: audio, speech: { service: kokoro, voice: af_heart } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - user: "Hello"
    expect: [{ event: response }]
`,
      'kokoro.yaml',
    );
    const engine = new AudioEngine({ modelStore: new ModelStore(files.path('no-models')) });
    const media = engine.media(scenario, {})!;
    await expect(media.prepare(context().ctx)).rejects.toThrow(
      /model 'kokoro' is not in .*; run: earshot models pull kokoro$/,
    );
    await media.finish();
    await engine.close();
  });

  it("speaks an utterance no scripted turn prepared (a driver's own turn), made when it is said", async () => {
    const scenario = await files.load(
      `
name: spoken
user: { modality: audio, speech: { service: flite } }
turns: []
`,
      'spoken.yaml',
    );
    // A recording at another rate, so the utterance is made (read, resampled) at the call, not looked up.
    const recording = files.path('caller-line.wav');
    await writeWav(recording, sineWave(440, 120, 8000, -12), 8000);
    const engine = new AudioEngine({ record: false, noCache: true });
    const media = engine.media(scenario, {})!;
    const { ctx, trace } = context();
    let voiced: (span: [number, number]) => void = () => undefined;
    const spoken = new Promise<[number, number]>((resolve) => (voiced = resolve));
    await media.prepare({ ...ctx, markUserSpeech: (start, end) => voiced([start, end]) });
    const server = await startServer('pipecat-eval');
    // The engine's microphone runs on the pacer thread, which holds the session's socket: connect as the runtime does.
    expect(media.openSocket).toBeDefined();
    const conn = await connect(server.server.url(), { codec: 'pipecat-eval', openSocket: media.openSocket });
    const peer = (await server.nextPeer()).connection;
    try {
      await media.start(conn);
      const dueMs = await media.speak({ audio: recording }, 4, ctx.signal);
      expect(dueMs).toBeGreaterThan(ctx.t0Ms);
      const [startMs, endMs] = await spoken;
      expect(endMs - startMs).toBeGreaterThan(100);
      await new Promise((r) => setTimeout(r, 60)); // loopback delivery of the last frames
      const sent = peer.drain().flatMap((item) => (item.kind === 'audio' ? [item.pcm] : []));
      expect(sent.filter((pcm) => rms(pcm) > 0).length * 20).toBeGreaterThanOrEqual(120);
      expect(trace).toContainEqual(expect.stringMatching(/^speech: turn 4 voiced /));
    } finally {
      await media.finish();
      await conn.close();
      await server.server.close();
      await engine.close();
    }
  }, 20_000);
});
