import { afterAll, describe, expect, it } from 'vitest';
import { encodeWav, sineWave } from '../../audio/index.js';
import { UsageError } from '../../core/errors.js';
import { ScenarioFiles } from './scenario.testutil.js';
import {
  DEFAULT_USER_SAMPLE_RATE,
  parseSttOverride,
  parseTtsOverride,
  sampleRateWarning,
  transcriptionPlan,
  userSpeechPlan,
} from './speech-specs.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

/** Pipecat's release scenarios ask for kokoro and moonshine, which need downloaded models. */
const PIPECAT_AUDIO = `
name: pipecat_style
user:
  modality: audio
  speech: { service: kokoro, voice: af_heart, sample_rate: 24000 }
judge:
  modality: audio
  transcription: { service: whisper, model: tiny, language: en, padding_secs: 1.5, device: cuda }
turns:
  - user: "Hello"
    expect: [{ event: response, text_contains: "hi" }]
`;

describe('speech plans: which TTS speaks the user and which STT hears the bot', () => {
  it('warns, at the field, when the scenario speaks at another rate than the bot takes (--bot-input-rate)', async () => {
    const s = await files.load(PIPECAT_AUDIO, 'rate.yaml');
    expect(sampleRateWarning(s, 16000)).toMatch(
      /rate\.yaml:5:60: warning: user\.speech\.sample_rate: 24000 Hz differs from the bot's input rate 16000 Hz \(--bot-input-rate\); the caller's audio is resampled to 16000 Hz/,
    );
    expect(sampleRateWarning(s, 24000)).toBeNull();
    // A text-mode caller sends no audio: nothing to warn about.
    expect(
      sampleRateWarning(
        await files.load(PIPECAT_AUDIO.replace('modality: audio\n  speech', 'modality: text\n  speech'), 'typed.yaml'),
        16000,
      ),
    ).toBeNull();
  });

  it("follows the scenario's user.speech and judge.transcription when nothing overrides them", async () => {
    const s = await files.load(PIPECAT_AUDIO);
    expect(userSpeechPlan(s)).toMatchObject({
      source: 'scenario',
      sampleRate: 24000,
      spec: { provider: 'kokoro', voice: 'af_heart' },
    });
    expect(transcriptionPlan(s)).toMatchObject({
      source: 'scenario',
      spec: { provider: 'whisper', model: 'tiny', language: 'en', padding_secs: 1.5, options: { device: 'cuda' } },
    });
  });

  it('--tts replaces the service and its voice but keeps the rate the bot expects', async () => {
    const s = await files.load(PIPECAT_AUDIO);
    const plan = userSpeechPlan(s, parseTtsOverride('flite'));
    expect(plan).toEqual({ source: 'override', sampleRate: 24000, spec: { provider: 'flite' } });
    expect(userSpeechPlan(s, parseTtsOverride('flite:rms')).spec).toEqual({ provider: 'flite', voice: 'rms' });
  });

  it('--stt replaces the service and its model and device but keeps language and padding', async () => {
    const s = await files.load(PIPECAT_AUDIO);
    expect(transcriptionPlan(s, parseSttOverride('sphinx'))).toEqual({
      source: 'override',
      spec: { provider: 'sphinx', language: 'en', padding_secs: 1.5 },
    });
    expect(transcriptionPlan(s, parseSttOverride('whisper:base.en')).spec).toMatchObject({
      provider: 'whisper',
      model: 'base.en',
    });
  });

  it('turns that all play recordings need no speech block: the plan is the default TTS at 16 kHz', async () => {
    files.write('caller.wav', encodeWav(sineWave(440, 200, 8000), 8000));
    const s = await files.load(`
name: recorded
user: { modality: audio }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - audio: caller.wav
    user: "A tone"
    expect: [{ event: response }]
`);
    expect(userSpeechPlan(s)).toEqual({ source: 'default', spec: null, sampleRate: DEFAULT_USER_SAMPLE_RATE });
    expect(transcriptionPlan(s).spec).toMatchObject({ provider: 'sphinx' });
  });

  it('an unknown provider on the command line is a usage error naming the known ones', () => {
    expect(() => parseTtsOverride('espeak')).toThrow(UsageError);
    expect(() => parseTtsOverride('espeak')).toThrow(/unknown TTS 'espeak' \(known: flite, kokoro\)/);
    expect(() => parseSttOverride('vosk:small')).toThrow(/unknown STT 'vosk' \(known: sphinx, whisper, moonshine\)/);
  });
});
