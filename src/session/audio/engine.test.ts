import { existsSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import { monotonicClock } from '../../core/clock.js';
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
    trace: (l) => trace.push(l),
    signal: new AbortController().signal,
  };
  return { ctx, trace, events };
}

describe('audio engine', () => {
  it('builds no media for a text scenario, and media for one where the bot speaks', async () => {
    const engine = new AudioEngine();
    const text = await files.load(`
name: text
turns:
  - user: "hi"
    expect: [{ event: response }]
`, 'text.yaml');
    expect(engine.media(text, {})).toBeNull();
    expect(engine.media(await files.load(TYPED_SPOKEN), {})).not.toBeNull();
    await engine.close();
    await engine.close();
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
      expect(trace[0]).toBe(`media: user types; bot transcribed by sphinx (scenario); ${record ? `recording ${path}` : 'no recording'}`);
    }
  });

  it('a scenario asking for a model that is not installed fails in prepare with the pull command, before any call is made', async () => {
    const scenario = await files.load(`
name: kokoro
user: { modality: audio, speech: { service: kokoro, voice: af_heart } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - user: "Hello"
    expect: [{ event: response }]
`, 'kokoro.yaml');
    const engine = new AudioEngine({ modelStore: new ModelStore(files.path('no-models')) });
    const media = engine.media(scenario, {})!;
    await expect(media.prepare(context().ctx)).rejects.toThrow(/model 'kokoro' is not in .*; run: earshot models pull kokoro$/);
    await media.finish();
    await engine.close();
  });
});
