import { afterAll, describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../results/index.js';
import { ScenarioFiles } from '../session/media/scenario.testutil.js';
import { explainRefusedReconnect, runWarnings } from './preflight.js';

const files = new ScenarioFiles();
afterAll(() => files.cleanup());

const TEXT = `name: typed
turns:
  - user: "Hello"
    expect: [{ event: response }]
`;
const AUDIO = (rate: number): string => `name: spoken
user: { modality: audio, speech: { service: flite, voice: slt, sample_rate: ${rate} } }
judge: { modality: audio, transcription: { service: sphinx } }
turns:
  - user: "Hello"
    expect: [{ event: response }]
`;

describe('runWarnings', () => {
  it('warns when a text scenario runs before an audio one against one Pipecat eval bot (skip_tts stays on)', async () => {
    const text = await files.load(TEXT, 'typed.yaml');
    const audio = await files.load(AUDIO(16000), 'spoken.yaml');
    const [warning, ...rest] = runWarnings(
      [text, audio],
      { codec: 'pipecat-eval', botInputRate: 16000 },
      { oneBot: true },
    );
    expect(rest).toEqual([]);
    expect(warning).toMatch(
      /spoken\.yaml: warning: runs after the text scenario .*typed\.yaml against one Pipecat eval bot, which keeps skip_tts on after a text session/,
    );
    expect(warning).toContain('`earshot suite`');
    // Audio first, a bot per scenario, or the protobuf wire (no skip_tts flag): nothing to warn about.
    expect(runWarnings([audio, text], { codec: 'pipecat-eval', botInputRate: 16000 }, { oneBot: true })).toEqual([]);
    expect(runWarnings([text, audio], { codec: 'pipecat-eval', botInputRate: 16000 }, { oneBot: false })).toEqual([]);
    expect(runWarnings([text, audio], { codec: 'protobuf', botInputRate: 16000 }, { oneBot: true })).toEqual([]);
  });

  it("warns once per scenario whose speech rate differs from the bot's input rate", async () => {
    const audio = await files.load(AUDIO(24000), 'wide.yaml');
    expect(runWarnings([audio, audio], { codec: 'protobuf', botInputRate: 16000 }, { oneBot: true })).toEqual([
      expect.stringMatching(/wide\.yaml:2:77: warning: user\.speech\.sample_rate: 24000 Hz differs/),
    ]);
    expect(runWarnings([audio], { codec: 'protobuf', botInputRate: 24000 }, { oneBot: true })).toEqual([]);
  });
});

describe('explainRefusedReconnect', () => {
  const refused = (): ScenarioResult => ({
    name: 'b',
    file: 'b.yaml',
    status: 'failed',
    started_at: '',
    duration_ms: 0,
    turns: [],
    failures: [
      { kind: 'connect_failed', turn_index: null, expectation_index: null, event: null, reason: 'connection refused' },
    ],
  });

  it('explains a refused connection after an earlier scenario connected, and nothing else', () => {
    const after = refused();
    explainRefusedReconnect(after, true, false);
    expect(after.failures[0].reason).toMatch(
      /^connection refused; the bot accepted the previous scenario's connection and refuses this one: .*on_client_disconnected.*`earshot suite`/,
    );
    const stopped = refused();
    explainRefusedReconnect(stopped, true, true);
    expect(stopped.failures[0].reason).toContain('--stop-bot asked it to shut down');
    const first = refused();
    explainRefusedReconnect(first, false, false);
    expect(first.failures[0].reason).toBe('connection refused');
  });
});
